"""Which files one annotation import reads: a study as it was run, in batches.

A study arrives as many files (one Label Studio project per rater per batch, one Thresh
file per annotator and document, exports made weeks apart). ``annotator import PROJECT
FILE_OR_FOLDER...`` reads them all as one import; this module turns the command's arguments
into the list of files, in order, each with the annotator to use where the format does not
name one:

- a folder stands for its files of the format (``*.json``, ``*.jsonl``, ``*.csv``) in name
  order; an InfoLossQA folder (``documents.json`` + ``questions.json``) is one unit, and a
  Thresh folder without a pattern keeps its rule (the file name is the annotator);
- ``--annotator-from-filename PATTERN`` takes the annotator from each file's name:
  ``{annotator}`` is the name, ``*`` any run of characters, ``?`` one; the pattern is
  matched against as many trailing parts of the path as it has (``batch*-{annotator}.json``
  against the file name, ``annotations-{annotator}/*.json`` against folder and file).

Order matters only for ``--update``, where a later file's rating of an item replaces an
earlier one: name the batches so that they sort in the order they were run (or list them).
"""

from __future__ import annotations

import re
from pathlib import Path

from annotator.core.records import Problem

SUFFIXES = {"thresh": (".json",), "labelstudio": (".json",), "labelstudio-min": (".json",),
            "annotations-jsonl": (".jsonl",), "annotations-csv": (".csv",)}


def filename_pattern(pattern: str) -> re.Pattern:
    """``batch*-{annotator}.json`` as a regular expression with the group ``annotator``;
    ValueError when the pattern does not hold ``{annotator}`` exactly once."""
    if pattern.count("{annotator}") != 1:
        raise ValueError(f"--annotator-from-filename {pattern!r}: the pattern must hold "
                         "{annotator} once, e.g. 'batch*-{annotator}.json'")
    out = []
    for piece in re.split(r"(\{annotator\}|\*|\?)", pattern):
        out.append({"{annotator}": r"(?P<annotator>[^/]+?)", "*": r"[^/]*",
                    "?": r"[^/]"}.get(piece, re.escape(piece)))
    return re.compile("".join(out))


def annotator_from_name(path: Path, pattern: re.Pattern, depth: int) -> str | None:
    """The ``{annotator}`` part of the path's last ``depth`` parts, or None."""
    tail = "/".join(path.parts[-depth:])
    match = pattern.fullmatch(tail)
    return match["annotator"].strip() or None if match else None


def annotation_files(paths: list[Path], fmt: str, annotator: str | None = None,
                     pattern: str | None = None
                     ) -> tuple[list[tuple[Path, str | None]], list[Problem]]:
    """``(file or folder, annotator)`` pairs in the order to read them, and the problems
    (a folder without files of the format, a name the pattern does not match)."""
    regex = filename_pattern(pattern) if pattern else None
    depth = pattern.count("/") + 1 if pattern else 1
    files: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        if not path.is_dir() or fmt == "infolossqa" or (fmt == "thresh" and regex is None):
            files.append(path)
            continue
        found = sorted(p for p in path.iterdir()
                       if p.is_file() and p.suffix.lower() in SUFFIXES[fmt])
        if not found:
            problems.append(Problem(str(path), None, None, "the folder holds no "
                                    + " or ".join(SUFFIXES[fmt]) + f" files for --format "
                                    f"{fmt}"))
        files += found
    if regex is None:
        return [(f, annotator) for f in files], problems
    named = []
    for f in files:
        who = annotator_from_name(f, regex, depth)
        if who is None:
            problems.append(Problem(str(f), None, None, "the file name does not match "
                                    f"--annotator-from-filename {pattern!r} (got "
                                    f"{'/'.join(f.parts[-depth:])!r})"))
        named.append((f, who))
    return named, problems
