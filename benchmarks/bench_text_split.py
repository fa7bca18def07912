"""Benchmark: splitting a long text into sentences and word spans (align/text.py).

Run:  .venv/bin/python benchmarks/bench_text_split.py [--megabytes 1] [--repeat 3]

A text of ``megabytes`` million characters drawn from the abbreviations, numbers and
punctuation that make sentence splitting hard in abstracts ("2.5 mg/kg i.v. vs. placebo
( n = 42 ) et al. Fig. 2"); ``split_sentences`` and ``word_spans`` on it, best of
``repeat``. The test suite checks the split is right on a megabyte
(tests/test_align_text.py); how fast it runs is measured here, not asserted there.
"""

from __future__ import annotations

import argparse
import random
import time

from annotator.align.text import split_sentences, word_spans

WORDS = "the patients received 2.5 mg/kg i.v. vs. placebo ( n = 42 ) et al. Fig. 2 . , ;".split()


def long_text(characters: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < characters:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = long_text(int(args.megabytes * 1_000_000))
    for name, split in (("split_sentences", split_sentences), ("word_spans", word_spans)):
        best, found = float("inf"), []
        for _ in range(args.repeat):
            start = time.perf_counter()
            found = split(text)
            best = min(best, time.perf_counter() - start)
        print(f"{name}: {len(text):,} characters -> {len(found):,} spans in {best:.2f} s "
              f"(best of {args.repeat})")

if __name__ == "__main__":
    main()
