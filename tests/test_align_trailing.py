"""SimpleOG trailing rule: exact agreement with a plain reference implementation."""

import random
from difflib import SequenceMatcher

from nltk.tokenize import NLTKWordTokenizer

from annotator.align.text import split_sentences
from annotator.align.trailing_batch import trailing_content_many
from annotator.align.trailing_content import document_is_positive, trailing_content


def reference_trailing(source, prediction, min_chars=25):
    """The rule written plainly (also timed by benchmarks/bench_trailing.py).

    Tokens: nltk.word_tokenize-style (sentence split first, NLTKWordTokenizer per
    sentence, spans from span_tokenize); SequenceMatcher with default arguments.
    """
    tokenizer = NLTKWordTokenizer()

    def spans_of(text):
        spans = []
        for start, end in split_sentences(text):
            for s, e in tokenizer.span_tokenize(text[start:end]):
                spans.append((start + s, start + e))
        return spans

    src_spans = spans_of(source)
    pred_spans = spans_of(prediction)
    a = [source[s:e] for s, e in src_spans]
    b = [prediction[s:e] for s, e in pred_spans]
    blocks = [m for m in SequenceMatcher(None, a, b).get_matching_blocks() if m.size > 0]
    deletions, insertions = [], []
    prev_a = prev_b = 0
    for m in blocks:
        if m.a > prev_a:
            deletions.append((src_spans[prev_a][0], src_spans[m.a - 1][1]))
        if m.b > prev_b:
            insertions.append((pred_spans[prev_b][0], pred_spans[m.b - 1][1]))
        prev_a, prev_b = m.a + m.size, m.b + m.size
    if prev_a < len(a):
        deletions.append((src_spans[prev_a][0], src_spans[-1][1]))
    if prev_b < len(b):
        span = (pred_spans[prev_b][0], pred_spans[-1][1])
        chars = span[1] - span[0]
    else:
        span, chars = None, 0
    return (span, chars, chars >= min_chars, tuple(deletions), tuple(insertions))


WORDS = ("patients trial drug dose week weeks placebo group risk children adults asthma "
         "blood pressure levels were was the a of in and with to for compared received "
         "reduced increased significantly study randomized double-blind outcomes mg/kg "
         "2.5 12 42 0.05 (n = 42) p < vs. i.v. e.g. et al. Fig. 2 78.9 ± 7.65 % \"quoted\" "
         "it's can't 'rephrase' -- ; : , . ? !").split()
TAILS = [
    "(I chose 'rephrase' as the internal simplification strategy)",
    "These comparisons were made whether or not the patients were also taking other medicines.",
    "Note: this is simplified.",
    "ok.",
    "",
    "",
    "",
]


def generate_pairs(n, seed=0):
    rng = random.Random(seed)
    pairs = []
    sources = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40))).capitalize() + "."
               for _ in range(max(1, n // 20))]
    for _ in range(n):
        src = rng.choice(sources)
        toks = src.split()
        pred = [t for t in toks if rng.random() > 0.2]
        for _ in range(rng.randint(0, 3)):
            pred.insert(rng.randint(0, len(pred)), rng.choice(WORDS))
        pairs.append((src, " ".join(pred) + " " + rng.choice(TAILS)))
    return pairs


def test_study_example_injected_sentence_is_89_characters():
    src = "Patients in both groups received the study drug for 12 weeks."
    tail = (
        "These comparisons were made whether or not the patients were also taking other medicines."
    )
    pred = "Patients in both groups got the drug for 12 weeks. " + tail
    result = trailing_content(src, pred)
    assert result.trailing_chars == 89
    assert pred[slice(*result.trailing_span)] == tail
    assert result.flagged


def test_study_example_leaked_instruction_span():
    # The study reports 59 characters for this aside; as quoted it is 60 characters long
    # (len() of the string) and our span runs from "(" to ")" inclusive.
    tail = "(I chose 'rephrase' as the internal simplification strategy)"
    src = "The trial enrolled 42 adults with asthma."
    pred = "The study included 42 adults with asthma. " + tail
    result = trailing_content(src, pred)
    assert pred[slice(*result.trailing_span)] == tail
    assert result.trailing_chars == len(tail) == 60
    assert result.flagged


def test_short_tail_is_noise_and_copy_has_no_tail():
    src = "The drug lowered blood pressure."
    noisy = trailing_content(src, "The drug lowered blood pressure a lot")
    assert noisy.trailing_span is not None and not noisy.flagged
    assert noisy.trailing_chars == len("a lot")
    same = trailing_content(src, src)
    assert same.trailing_span is None and same.trailing_chars == 0 and not same.flagged
    assert same.deletions == () and same.insertions == ()


def test_deletions_and_mid_text_insertions():
    src = "Adults received 2.5 mg/kg of the drug daily."
    pred = "Adults, all volunteers, received the drug daily."
    result = trailing_content(src, pred)
    assert [src[s:e] for s, e in result.deletions] == ["2.5 mg/kg of"]
    assert [pred[s:e] for s, e in result.insertions] == [", all volunteers,"]
    assert result.trailing_span is None


def test_no_match_means_everything_trails_and_empty_inputs():
    result = trailing_content("Alpha beta.", "Completely different words here and more of them")
    assert result.trailing_span == (0, len("Completely different words here and more of them"))
    assert trailing_content("", "").trailing_span is None
    assert trailing_content("Some source.", "").trailing_chars == 0


def test_document_or_rule():
    flagged = trailing_content("A b c.", "A b c. And then a long appended sentence about nothing.")
    clean = trailing_content("A b c.", "A b c.")
    assert document_is_positive([clean, flagged])
    assert not document_is_positive([clean, clean])
    assert not document_is_positive([])


def test_matches_reference_on_generated_pairs():
    pairs = generate_pairs(3000, seed=7)
    mismatches = [
        (s, p) for s, p in pairs if trailing_content(s, p).as_tuple() != reference_trailing(s, p)
    ]
    assert mismatches == []
    assert sum(reference_trailing(s, p)[2] for s, p in pairs) > 300  # the set has positives


def test_batch_path_matches_reference_in_order():
    pairs = generate_pairs(2500, seed=11)
    expected = [reference_trailing(s, p) for s, p in pairs]
    for workers in (1, 2):
        got = [r.as_tuple() for r in trailing_content_many(pairs, workers=workers)]
        assert got == expected
