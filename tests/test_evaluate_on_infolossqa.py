"""benchmarks/evaluate_on_infolossqa.py end to end on a slice of the real InfoLossQA
development data (issue #14): the script runs, its experts' figure is the measure's own
(known answer computed here), and it prints the intervals, the repeated cross-validation
and the --learn comparison it reports in the docs. Real MiniLM model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from annotator.core.edit_match import between_annotators
from tests.helpers import INFOLOSSQA

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = 15


def _slice(tmp_path: Path) -> Path:
    """The first DOCUMENTS documents, as the release lays them out (one file per expert)."""
    ids = sorted({p.name.split("-")[0] for p in (INFOLOSSQA / "annotations").glob("*/*.json")})
    keep = set(ids[:DOCUMENTS])
    for path in (INFOLOSSQA / "annotations").glob("*/*-annotations.json"):
        if path.name.split("-")[0] in keep:
            target = tmp_path / "annotations" / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return tmp_path


def test_the_benchmark_runs_on_a_slice_of_the_real_data(tmp_path):
    data = _slice(tmp_path)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from infolossqa_data import load, scored_marks
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    docs = load(data)
    assert len(docs) == DOCUMENTS
    gold = scored_marks(docs)
    experts = between_annotators(gold)

    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "evaluate_on_infolossqa.py"), "--data",
         str(data), "--folds", "3", "--repeats", "2", "--skip-baseline"],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    out = result.stdout
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"{DOCUMENTS} documents from {data}" in out
    both = re.findall(r"both kinds +experts +([\d.]+) +([\d.]+) +([\d.]+)", out)
    assert both and all(float(f1) == round(experts.f1, 3) for _, _, f1 in both)
    assert "Ranked suggestions, 3-fold cross-validated" in out
    assert re.search(r"repeated 3-fold cross-validation, 2 splits", out)
    # Every kind's ratio has its interval and boxes per document beside an expert's count.
    for kind in ("deletion", "oversimplification", "both kinds"):
        rows = re.findall(kind + r" +suggestions +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +([\d.]+) +"
                          r"([\d.]+)-([\d.]+) +([\d.]+)", out)
        assert len(rows) >= 3, (kind, out[-1500:])
        assert all(float(low) <= float(high) and float(boxes) >= 0
                   for _, low, high, boxes in rows)
    marked = [m for d in gold.values() for ms in d.values() for m in ms if m.kind == "deletion"]
    per_expert = len(marked) / sum(len(d) for d in gold.values())
    expert_rows = re.findall(r"deletion +experts +[\d.]+ +[\d.]+ +[\d.]+ +\d+ +([\d.]+)", out)
    assert expert_rows and all(float(v) == round(per_expert, 1) for v in expert_rows)
    assert "--learn raises the held-out ratio" in out
    for kind in ("deletion", "oversimplification"):   # and by how much for each kind
        assert re.search(rf"  {kind}: [\d.]+ -> [\d.]+ \([+-][\d.]+; 95% interval ", out), out
    final = re.search(r"held-out ratio \(suggestions F1 / experts F1\): ([\d.]+); at "
                      r"0.25/0.225: ([\d.]+); means over 2 splits ([\d.]+) and ([\d.]+)", out)
    assert final, out[-1500:]
    assert all(0 < float(v) < 2 for v in final.groups())
