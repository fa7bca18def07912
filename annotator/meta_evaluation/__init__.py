"""Judging automatic metrics and systems against human scores from a gold set (issue 46):
correlations with bootstrap intervals, binary detection scores, tau-like, and pairwise
comparisons of metrics. Pure: no Flask, no database; `annotator eval metrics` reads the
tables and prints the report."""
