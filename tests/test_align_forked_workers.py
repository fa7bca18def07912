"""Forked workers share what the parent loaded once (issue #29: align 36 abstracts faster).

The parent imports the word tokenizer and loads the model before the pool forks; the
suggestions must be exactly those of one process, on real InfoLossQA abstracts with the
real model, and nothing the parent loaded outlives the pool.
"""

from __future__ import annotations

import json

from annotator.align import pipeline, suggest_many
from annotator.align.embeddings import Embedder
from tests.helpers import infolossqa_pairs


def test_forked_workers_give_the_suggestions_of_one_process():
    pairs = infolossqa_pairs(3)
    assert len(pairs) == 3
    one = [(i, [s.to_dict() for s in out])
           for i, out in suggest_many(pairs, workers=1, embedder=Embedder())]
    two = [(i, [s.to_dict() for s in out]) for i, out in suggest_many(pairs, workers=2)]
    assert two == one
    assert any(s["kind"] in ("deletion", "oversimplification") for _, out in one for s in out)
    assert pipeline._inherited == {}


def test_contextual_renderings_move_only_the_rendering():
    """``contextual_renderings`` (one model pass per target sentence, the default since
    issue #29) changes where an oversimplification is rendered, never which boxes there
    are, their kinds or scores."""
    from annotator.align import AlignSettings

    pairs = infolossqa_pairs(4)
    embedder = Embedder()
    assert AlignSettings().contextual_renderings
    plain = list(suggest_many(pairs, embedder=embedder,
                              settings=AlignSettings(contextual_renderings=False)))
    contextual = list(suggest_many(pairs, embedder=embedder))
    rendered = 0
    for (i, a), (j, b) in zip(plain, contextual):
        assert i == j
        assert [(s.kind, s.source_spans, s.score) for s in a] == \
               [(s.kind, s.source_spans, s.score) for s in b]
        for before, after in zip(a, b):
            if after.kind != "oversimplification" or not after.target_spans:
                assert after.target_spans == before.target_spans
                continue
            rendered += 1
            target = next(p["target"] for p in pairs if p["id"] == i)
            (t0, t1), = after.target_spans
            assert 0 <= t0 < t1 <= len(target) and len(target[t0:t1].split()) <= 5
            assert 0.0 <= after.target_score <= 1.0
    assert rendered > 0


def test_align_command_takes_window_renderings(tmp_path):
    from click.testing import CliRunner

    from annotator.commands.align import align

    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in infolossqa_pairs(2)), encoding="utf-8")
    plain = CliRunner().invoke(align, [str(path), "--window-renderings"])
    contextual = CliRunner().invoke(align, [str(path)])
    assert plain.exit_code == 0 and contextual.exit_code == 0, contextual.output

    def boxes(output):
        return [[(s["kind"], s["source_spans"]) for s in json.loads(line)["suggestions"]]
                for line in output.splitlines()]

    assert boxes(contextual.output) == boxes(plain.output) and len(boxes(plain.output)) == 2
