"""Evaluation modes (issue 8): rating generated QA pairs (``qa-quality``), pairwise recall
of reference QAs (``qa-recall``), PLABA quality axes (``plaba``, ``plaba-2023``) and
PlainFact sentence typing (``plainfact``).

Pure statistics live in :mod:`quality`, :mod:`recall`, :mod:`plaba`, :mod:`plainfact`
(plain data in, plain dicts out); :mod:`store` reads the database into that plain data;
:mod:`results` assembles the results of a project for pages, exports and releases;
:mod:`pages` holds the payload and "done" rule of each mode's own page. Which of these a
project uses follows from its schema's ``mode:`` (:mod:`annotator.annotate.modes`).
"""
