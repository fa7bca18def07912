"""Documents split into cross-validation folds by a hash of their id: stable across runs,
machines and Python's salted ``hash``, so anything tuned on the other folds is scored only
on documents it never saw (the pre-highlight measure,
:mod:`annotator.agreement.prehighlight_agreement`, align's ``--learn``, and the
benchmarks that choose thresholds on folds).

Pure: no Flask, no SQLAlchemy.
"""

from __future__ import annotations

import hashlib
from typing import Iterable


def fold_of(doc_id: str, k: int, split: int = 0) -> int:
    """Stable fold number of a document id (a hash, not Python's salted ``hash``).
    ``split`` > 0 gives another split of the same documents (repeated cross-validation)."""
    key = str(doc_id) if not split else f"{split}:{doc_id}"
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:4], "big") % k


def folds(doc_ids: Iterable[str], k: int, split: int = 0) -> list[list[str]]:
    """Document ids split into ``k`` folds by :func:`fold_of`, each sorted."""
    out: list[list[str]] = [[] for _ in range(k)]
    for doc_id in sorted({str(d) for d in doc_ids}):
        out[fold_of(doc_id, k, split)].append(doc_id)
    return out
