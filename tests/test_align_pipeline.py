"""suggest / suggest_many with the real embedded model, and the `align` command."""

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from annotator.align import AlignSettings, Suggestion, suggest, suggest_many
from annotator.align.embeddings import Embedder, HashingEmbedder
from annotator.commands.align import align

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SOURCE = ("BACKGROUND: Vitamin D deficiency is common in patients with inflammatory bowel disease. "
          "METHODS: In this prospective double-blinded, randomized trial, 120 adults received "
          "2000 IU of cholecalciferol daily for 12 weeks. "
          "Quality of life was measured with the Short IBD Questionnaire (SIBDQ). "
          "RESULTS: Quality of life improved more with vitamin D than with placebo (p = 0.003). "
          "Adverse events were rare.")
TARGET = ("Many people with bowel disease have low vitamin D. "
          "In a study, adults took vitamin D pills or dummy pills every day for 12 weeks. "
          "Their quality of life was measured with a survey. "
          "Quality of life got better with vitamin D than with dummy pills. "
          "Side effects were rare. "
          "(I chose 'rephrase' as the internal simplification strategy)")


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


def kinds(suggestions):
    return {s.kind for s in suggestions}


def test_embedder_is_normalised_and_cached(embedder):
    vecs = embedder.encode(["Vitamin D helps bones.", "Vitamin D helps bones.", "Cats purr."])
    assert vecs.shape[0] == 3 and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert np.allclose(vecs[0], vecs[1])
    sim = embedder.similarity_matrix(
        ["Vitamin D helps bones."], ["Vitamin D is good for bones.", "Cats purr."]
    )
    assert sim[0, 0] > sim[0, 1] + 0.3


def test_suggest_finds_planted_problems(embedder):
    out = suggest(SOURCE, TARGET, embedder=embedder)
    assert all(isinstance(s, Suggestion) for s in out)
    tail = TARGET.index("(I chose")
    trailing = [s for s in out if s.kind == "trailing"]
    assert any(s.target_spans[0][0] <= tail < s.target_spans[0][1] for s in trailing)
    assert any(s.category == "leaked_instruction" for s in trailing)
    assert "leaked_instruction" in kinds(out) and "semantic_outlier" in kinds(out)
    losses = [s for s in out if s.kind in ("deletion", "oversimplification")]
    lost_text = " ".join(SOURCE[a:b] for s in losses for a, b in s.source_spans)
    for planted in ("2000 IU", "(p = 0.003)", "Short IBD Questionnaire (SIBDQ)"):
        assert planted in lost_text
    over = [s for s in out if s.kind == "oversimplification"]
    assert all(s.source_spans and s.target_spans for s in over)
    for s in out:
        d = s.to_dict()
        assert list(d) == [
            "kind",
            "source_spans",
            "target_spans",
            "score",
            "target_score",
            "method",
            "explanation",
            "category",
            "kind_scores",
        ]
        assert json.loads(json.dumps(d)) == d and "\n" not in d["explanation"]
        # Only a loss box may carry both kinds' scores, its own kind's equal to its score.
        if d["kind_scores"] is not None:
            assert s.kind in ("deletion", "oversimplification")
            assert set(d["kind_scores"]) == {"deletion", "oversimplification"}
            assert d["kind_scores"][s.kind] == d["score"]
        assert all(0 <= a <= b <= len(SOURCE) for a, b in s.source_spans)
        assert all(0 <= a <= b <= len(TARGET) for a, b in s.target_spans)


def test_faithful_copy_gets_no_overgeneration(embedder):
    out = suggest(SOURCE, SOURCE, embedder=embedder)
    assert not kinds(out) & {"trailing", "leaked_instruction", "repetition", "semantic_outlier",
                             "deletion", "oversimplification"}


def test_detector_selection_and_sentence_pairs(embedder):
    src = "The drug lowered blood pressure. It was safe."
    tgt = ("The drug lowered blood pressure. It was safe. These comparisons were made whether "
           "or not the patients were also taking other medicines.")
    pairs = [((0, 32), (0, 32)), ((33, 45), (33, len(tgt)))]
    out = suggest(src, tgt, sentence_pairs=pairs, detectors={"trailing"}, embedder=embedder)
    assert kinds(out) == {"trailing"}
    assert tgt[slice(*out[0].target_spans[0])].startswith("These comparisons")
    with pytest.raises(ValueError):
        suggest(src, tgt, detectors={"nope"}, embedder=embedder)


def test_empty_inputs(embedder):
    assert suggest("", "", embedder=embedder) == []
    assert suggest("Only a source.", "   ", embedder=embedder) == []
    out = suggest("", "Here is the simplified version: nothing.", embedder=embedder)
    assert kinds(out) == {"leaked_instruction"}


def test_one_megabyte_input_is_bounded(embedder):
    big = ("Patients received 2.5 mg/kg of the drug for 12 weeks in a randomized trial. " * 14_000)
    assert len(big) > 1_000_000
    # Bounded by what is read, not by a clock: no span reaches past max_chars on either side
    # (speed is measured by benchmarks/bench_align_abstracts.py, never asserted here).
    out = suggest(big, big[:600_000] + "Note: this was simplified by an AI.", embedder=embedder,
                  settings=AlignSettings(max_chars=20_000))
    assert out
    assert all(b <= 20_000 for s in out for _, b in s.target_spans)
    assert all(b <= 20_000 for s in out for _, b in s.source_spans)


def test_suggest_many_order_progress_and_workers():
    pairs = [
        {"id": f"p{i}", "source": SOURCE, "target": TARGET if i % 2 else SOURCE} for i in range(4)
    ]
    seen = []
    single = list(suggest_many(pairs, detectors={"trailing", "leaked_instruction"},
                               embedder=HashingEmbedder(), progress=seen.append))
    assert [i for i, _ in single] == ["p0", "p1", "p2", "p3"] and seen == [1, 2, 3, 4]
    multi = list(suggest_many(pairs, workers=2, detectors={"trailing", "leaked_instruction"},
                              embedder=HashingEmbedder()))
    assert [(i, [s.to_dict() for s in out]) for i, out in multi] == \
           [(i, [s.to_dict() for s in out]) for i, out in single]
    assert single[1][1] and not any(s.kind == "leaked_instruction" for s in single[0][1])


def _write(tmp_path, lines):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_cli_outputs_one_line_per_pair(tmp_path):
    path = _write(tmp_path, [json.dumps({"id": "a", "source": SOURCE, "target": TARGET}),
                             json.dumps({"id": 2, "source": "A b.", "target": "A b."})])
    result = CliRunner().invoke(align, [path, "--no-embeddings"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["a", 2]
    assert lines[1]["suggestions"] == []
    assert "semantic_outlier" not in {s["kind"] for s in lines[0]["suggestions"]}
    assert "leaked_instruction" in {s["kind"] for s in lines[0]["suggestions"]}
    only = CliRunner().invoke(align, [path, "--no-embeddings", "--detectors", "leaked_instruction"])
    kinds_found = {s["kind"] for line in only.stdout.splitlines()
                   for s in json.loads(line)["suggestions"]}
    assert kinds_found == {"leaked_instruction"}


def test_cli_with_embeddings(tmp_path):
    path = _write(tmp_path, [json.dumps({"id": "a", "source": SOURCE, "target": TARGET})])
    result = CliRunner().invoke(align, [path, "--detectors", "semantic_outlier"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["suggestions"]
    assert found and {s["kind"] for s in found} == {"semantic_outlier"}


@pytest.mark.parametrize(
    "bad_line, field",
    [
        ('{"id": "b", "source": 3, "target": "x"}', "source"),
        ('{"source": "x", "target": "x"}', "id"),
        ('{"id": "b", "source": "x"}', "target"),
        ("not json", None),  # a syntax error names the line, not a field
        (
            '{"id": "b", "source": "x", "target": "y", "sentence_pairs": [[[0, 9], [0, 1]]]}',
            "sentence_pairs[0].source",
        ),
        ('{"id": "a", "source": "x", "target": "y"}', "id"),  # duplicate id
    ],
)
def test_cli_rejects_bad_input_before_printing(tmp_path, bad_line, field):
    path = _write(tmp_path, [json.dumps({"id": "a", "source": "A b.", "target": "A b."}), bad_line])
    result = CliRunner().invoke(align, [path, "--no-embeddings"])
    assert result.exit_code == 2
    assert result.stdout == ""
    where = f"{path}:2: " + (f"field '{field}'" if field else "")
    assert where in result.stderr
    if field is None:
        assert "field" not in result.stderr


def test_cli_rejects_unknown_detector(tmp_path):
    path = _write(tmp_path, [json.dumps({"id": "a", "source": "A.", "target": "A."})])
    result = CliRunner().invoke(align, [path, "--detectors", "trailing,bogus"])
    assert result.exit_code == 2 and "bogus" in result.output


def test_repetition_appended_at_the_end_is_trailing_content():
    from annotator.align import suggest
    from annotator.align.embeddings import HashingEmbedder

    source = ("Erenumab was given to 120 adults with migraine for 12 weeks. "
              "Headache days fell by 3.2 per month compared with placebo.")
    target = ("Adults with migraine got erenumab for 12 weeks. Headache days fell by about "
              "3 per month. Adults with migraine got erenumab for 12 weeks.")
    found = suggest(source, target, embedder=HashingEmbedder())
    tails = [s for s in found if s.kind == "trailing" and s.category == "repetitive"]
    assert len(tails) == 1
    start, end = tails[0].target_spans[0]
    assert target[start:end] == "Adults with migraine got erenumab for 12 weeks."
    # Repeated in the middle, with aligned text after it: not appended at the end.
    middle = ("Adults with migraine got erenumab for 12 weeks. Adults with migraine got "
              "erenumab for 12 weeks. Headache days fell by about 3 per month.")
    assert not [s for s in suggest(source, middle, embedder=HashingEmbedder())
                if s.method == "repetition-at-end"]
