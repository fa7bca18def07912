"""Tokens and sentences: offsets into the original string on hard biomedical cases."""

import random

import pytest
from nltk.tokenize import NLTKWordTokenizer

from annotator.align.text import sentence_word_spans, split_sentences, word_spans, word_tokens


def sents(text):
    return [text[s:e] for s, e in split_sentences(text)]


@pytest.mark.parametrize("text", [
    "Drug X was given i.v. daily vs. placebo, e.g. saline, as in Fig. 2 and Smith et al. (2019).",
    "Mean age was 78.9 ± 7.65 % and the dose 2.5 mg/kg (n = 42).",
    "The effect (approx. 5 mmHg) was seen in No. 3 of the arms.",
])
def test_abbreviations_and_numbers_do_not_split(text):
    assert sents(text) == [text]


def test_sentence_boundaries_and_headings():
    text = ("BACKGROUND: Vitamin D deficiency is common. METHODS. We enrolled 42 adults. "
            "Results were clear! Were they? Yes.\nRESULTS\nThe p-value was p < 0.05. "
            "mRNA levels rose.")
    assert sents(text) == [
        "BACKGROUND: Vitamin D deficiency is common.",  # heading with ':' stays inline
        "METHODS.",                                      # heading with '.' stands alone
        "We enrolled 42 adults.", "Results were clear!", "Were they?", "Yes.",
        "RESULTS",                                       # heading line stands alone
        "The p-value was p < 0.05.", "mRNA levels rose.",
    ]


def test_route_abbreviation_before_sentence_opener_splits():
    assert sents("It was given i.v. The effect was large.") == [
        "It was given i.v.",
        "The effect was large.",
    ]


def test_offsets_with_crlf_nbsp_unicode():
    text = "  Première phrase.\r\nSecond\u00a0line – “quoted” here.\u00a0\u00a0Third µg/kg dose.  "
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "Première phrase.", "Second\u00a0line – “quoted” here.", "Third µg/kg dose."]
    for s, e in word_spans(text):
        assert text[s:e] and not text[s:e].isspace()


def test_hard_wrapped_lines_are_joined_but_blank_lines_split():
    assert sents("A long sentence that\ncontinues here.\n\nNew paragraph") == [
        "A long sentence that\ncontinues here.", "New paragraph"]


def test_empty_and_whitespace():
    assert split_sentences("") == [] and split_sentences(" \r\n\t\u00a0") == []
    assert word_spans("") == [] and word_spans("   ") == []


def test_word_tokens_on_abbreviations_and_quotes():
    text = 'He said "stop" at 2.5 mg/kg; it\'s (p < 0.05) vs. placebo.'
    assert word_tokens(text) == ["He", "said", '"', "stop", '"', "at", "2.5", "mg/kg", ";",
                                 "it", "'s", "(", "p", "<", "0.05", ")", "vs.", "placebo", "."]


def test_word_spans_equal_nltk_span_tokenize_on_fuzzed_strings():
    pieces = ["a", "cannot", "it", "'s", "n't", "'", "''", '"', "``", ".", "..", ",", ":", ";",
              "(", ")", "[", "]", "{", "<", "!", "?", "--", "—", "3", "2.5", "1,000", " ", " ",
              "  ", "\n", "\t", "\r\n", "\u00a0", "«", "»", "“", "”", "’", "'t", "is", "wanna",
              "$", "%", "&", "*", "é", "±"]
    rng = random.Random(3)
    tokenizer = NLTKWordTokenizer()
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert sentence_word_spans(text) == list(tokenizer.span_tokenize(text)), repr(text)


@pytest.mark.parametrize("word", ["cannot", "Cannot", "GONNA", "gotta", "lemme", "wanna",
                                  "gimme", "whatcha", "whaddya", "mg", "p53", "T2", "²", "½",
                                  "naïve", "αβ", "IL6", "x"])
def test_words_of_letters_and_digits_tokenize_as_nltk_does(word):
    """Such words skip NLTK (one token each) unless a contraction rule splits them."""
    tokenizer = NLTKWordTokenizer()
    for text in (f"a {word} b.", f"{word} b", f"({word} {word}) {word}\n{word}."):
        assert sentence_word_spans(text) == list(tokenizer.span_tokenize(text)), text


def test_word_spans_split_final_periods_of_every_sentence():
    text = "It lasted 12 weeks. Then it stopped."
    assert word_tokens(text) == ["It", "lasted", "12", "weeks", ".", "Then", "it", "stopped", "."]


def test_a_one_megabyte_text_splits_into_trimmed_sentences_and_words():
    """How fast is benchmarks/bench_text_split.py's to measure (docs/benchmarks.md)."""
    rng = random.Random(0)
    words = (
        "the patients received 2.5 mg/kg i.v. vs. placebo ( n = 42 ) et al. Fig. 2 . , ;".split()
    )
    text = " ".join(rng.choice(words) for _ in range(260_000))
    assert len(text) > 1_000_000
    sentences = split_sentences(text)
    tokens = word_spans(text)
    assert len(sentences) > 1000 and len(tokens) > 200_000
    assert all(text[s:e].strip() == text[s:e] for s, e in sentences[:500])
