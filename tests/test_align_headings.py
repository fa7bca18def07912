"""Section headings stay out of suggestion spans (issue 35): the pure trimming in
annotator/align/headings.py, and the pipeline that applies it where spans are produced."""

from __future__ import annotations

from annotator.align import suggest
from annotator.align.embeddings import HashingEmbedder
from annotator.align.headings import heading_ranges, trim_span, without_headings
from annotator.align.suggestions import Suggestion

SOURCE = ("BACKGROUND: Opioid use after spinal fusion remains high.\n"
          "METHODS: In this double-blind, placebo-controlled trial, 124 adults received "
          "ketamine. RESULTS: Morphine use fell (p < 0.001).")


def cut(span):
    return [SOURCE[a:b] for a, b in span]


def test_headings_at_line_starts_and_after_a_sentence():
    labels = [SOURCE[a:b] for a, b in heading_ranges(SOURCE)]
    assert labels == ["BACKGROUND: ", "METHODS: ", "RESULTS: "]
    # Ordinary prose with a colon is not a heading: not at a line start, not in capitals.
    assert heading_ranges("Pain was measured in two ways: by survey and by diary.") == []


def test_a_span_starting_at_a_heading_starts_after_it():
    start = SOURCE.index("METHODS")
    end = SOURCE.index(", placebo")
    assert cut(trim_span((start, end), heading_ranges(SOURCE), SOURCE)) == [
        "In this double-blind"]


def test_a_span_across_a_heading_loses_only_the_heading():
    start = SOURCE.index("124 adults")
    end = SOURCE.index(" fell")
    assert cut(trim_span((start, end), heading_ranges(SOURCE), SOURCE)) == [
        "124 adults received ketamine.", "Morphine use"]


def test_a_suggestion_of_a_heading_alone_is_dropped_and_others_are_trimmed():
    start = SOURCE.index("RESULTS")
    only_heading = Suggestion(kind="deletion", source_spans=[(start, start + 8)])
    sentence = Suggestion(kind="deletion", source_spans=[(0, SOURCE.index("\n"))])
    kept = without_headings([only_heading, sentence], SOURCE, "Simple text.")
    assert kept == [sentence]
    assert cut(sentence.source_spans) == ["Opioid use after spinal fusion remains high."]


def test_the_pipeline_never_returns_a_span_that_starts_with_a_heading():
    target = "People took a drug. Fewer painkillers were needed."
    found = suggest(SOURCE, target, embedder=HashingEmbedder(), detectors={"deletion"})
    labels = heading_ranges(SOURCE)
    assert found, "the pipeline found no deletion to check"
    for sug in found:
        for a, b in sug.source_spans:
            assert not any(h0 <= a < h1 or h0 < b <= h1 for h0, h1 in labels), SOURCE[a:b]
