"""Pre-highlighter precision and recall on the hand-written demo abstracts.

The synthetic set of ``evaluate_prehighlight.py`` is built from templates; the demo
abstracts (annotator/demo_data/infolossqa_demo*.json*) were written like real LLM
simplifications, with their planted problems recorded. This is the harder, more honest
check: real simplifications split sentences, elaborate and reword freely.

    python benchmarks/evaluate_on_demo.py [--loss-thresholds D/O]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import loss_thresholds  # noqa: E402

from annotator.align import AlignSettings, suggest  # noqa: E402
from annotator.align.embeddings import default_embedder  # noqa: E402
from annotator.core.resources import demo_data_dir  # noqa: E402

FAMILIES = {
    # planted kinds -> (suggestion kinds, side the spans are compared on)
    "information loss": ({"deletion", "oversimplification"},
                         {"deletion", "oversimplification"}, "source"),
    "overgeneration": ({"trailing", "leaked_instruction", "repetition", "ungrounded_injection"},
                       {"trailing", "leaked_instruction", "repetition"}, "target"),
    "leaked instruction": ({"leaked_instruction"}, {"leaked_instruction"}, "target"),
}


def overlaps(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    loss_thresholds.add_option(parser)
    args = parser.parse_args()
    settings = AlignSettings(loss_model=loss_thresholds.shipped_model(args.loss_thresholds))
    docs = {json.loads(line)["id"]: json.loads(line)
            for line in (demo_data_dir() / "infolossqa_demo.jsonl").read_text().splitlines()
            if line.strip()}
    planted = json.loads((demo_data_dir() / "infolossqa_demo_planted.json").read_text())
    embedder = default_embedder()
    found = {i: [s.to_dict() for s in suggest(d["source"], d["target"], embedder=embedder,
                                                       settings=settings)]
             for i, d in docs.items()}
    print(f"{len(docs)} demo documents, {len(planted)} planted problems")
    print(f"{'family':20s} {'precision':>9s} {'recall':>7s} {'#sugg':>6s} {'#planted':>8s}")
    for family, (planted_kinds, kinds, side) in FAMILIES.items():
        key = f"{side}_span"
        problems = [p for p in planted if p["kind"] in planted_kinds and p.get(key)]
        suggestions = [(i, s) for i, ss in found.items() for s in ss if s["kind"] in kinds]
        hit = lambda i, s, p: p["id"] == i and any(  # noqa: E731
            overlaps(x, p[key]) for x in s[f"{side}_spans"])
        recall = sum(any(hit(i, s, p) for i, s in suggestions) for p in problems)
        precise = sum(any(hit(i, s, p) for p in problems) for i, s in suggestions)
        print(f"{family:20s} {precise / max(1, len(suggestions)):9.3f} "
              f"{recall / max(1, len(problems)):7.3f} {len(suggestions):6d} {len(problems):8d}")
    print("suggestions by kind:", dict(Counter(s["kind"] for ss in found.values() for s in ss)))


if __name__ == "__main__":
    main()
