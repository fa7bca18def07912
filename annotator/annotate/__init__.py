"""Annotate: assignments of documents to annotators, and their edits and ratings (database side)."""
