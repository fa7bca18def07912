"""A record that yields no edits while carrying keys that look like annotations.

A file whose span data sits under keys the reader does not know (``spans``, ``offsets``,
``annotations`` ...) would otherwise import as "0 edits" with no word beyond the count; the
importer stores what it read and says which keys it did not read as edits.
"""

from __future__ import annotations

from typing import Any

# Words that, in a key name, suggest annotations (spans, offsets, labels).
ANNOTATION_WORDS = ("span", "offset", "annotation", "label", "highlight", "idx")


def annotation_like_keys(row: dict[str, Any], read: set[str]) -> list[str]:
    """Keys of ``row`` not in ``read`` whose name suggests annotations and whose value is
    not empty."""
    return sorted(k for k, v in row.items()
                  if k not in read and v not in (None, "", [], {})
                  and any(w in k.lower() for w in ANNOTATION_WORDS))


def no_edits_note(file: str, line: int, keys: list[str], edits_key: str) -> str:
    shown = ", ".join(repr(k) for k in keys)
    return (f"{file}:{line}: no edits read (edits are read from '{edits_key}'), but the "
            f"record carries {shown}, which look like annotations: map them into "
            f"'{edits_key}' or pass --ignore to drop them")
