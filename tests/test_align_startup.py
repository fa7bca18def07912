"""What `annotator align` loads before its workers start (issue #29: 36 abstracts in
under 10 s, start-up included). Each check runs in a fresh interpreter, since what a
process has imported cannot be undone inside the test process."""

from __future__ import annotations

import json
import subprocess
import sys

WORDS = "Mice got 5 mg."
SPANS = [[0, 4], [5, 8], [9, 10], [11, 13], [13, 14]]


def _run(script: str) -> dict:
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_the_align_command_imports_no_database_web_or_torch_stack():
    found = _run(
        "import json, sys\n"
        "import annotator.cli, annotator.commands.align, annotator.align.pipeline\n"
        "heavy = ('sqlalchemy', 'flask', 'pandas', 'torch', 'sentence_transformers',\n"
        "         'annotator.db', 'annotator.models', 'scipy', 'sklearn', 'nltk')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n")
    assert found == []


def test_the_word_tokenizer_loads_without_scipy_and_scipy_still_loads_after():
    found = _run(
        "import json, sys\n"
        "from annotator.align.text import _tokenizer, word_spans\n"
        "_tokenizer()\n"
        "loaded = [m for m in ('scipy', 'sklearn') if m in sys.modules]\n"
        "spans = word_spans('" + WORDS + "')\n"
        "import scipy.stats\n"
        "print(json.dumps({'loaded': loaded, 'spans': spans,\n"
        "                  'cdf': float(scipy.stats.norm.cdf(0.0)),\n"
        "                  'hidden_left': [m for m in ('scipy', 'sklearn')\n"
        "                                  if m in sys.modules and sys.modules[m] is None]}))\n")
    assert found == {"loaded": [], "spans": SPANS, "cdf": 0.5, "hidden_left": []}


def test_an_nltk_that_needs_a_hidden_module_is_imported_with_everything():
    """nltk.redos imports ``regex`` unguarded: hiding it stands for a future NLTK release
    that needs scipy; the tokenizer must still load (the plain way) and tokenize."""
    found = _run(
        "import json, sys\n"
        "from annotator.align import text\n"
        "text._NLTK_OPTIONAL = ('scipy', 'regex')\n"
        "spans = text.word_spans('" + WORDS + "')\n"
        "print(json.dumps({'spans': spans, 'regex': sys.modules['regex'] is not None,\n"
        "                  'scipy': 'scipy' in sys.modules}))\n")
    assert found == {"spans": SPANS, "regex": True, "scipy": True}


def test_when_nltk_is_already_loaded_nothing_is_hidden():
    found = _run(
        "import json, sys\n"
        "import nltk\n"
        "from annotator.align.text import word_spans\n"
        "print(json.dumps({'spans': word_spans('" + WORDS + "'),\n"
        "                  'scipy': 'scipy' in sys.modules}))\n")
    assert found == {"spans": SPANS, "scipy": True}


def test_the_align_command_uses_a_worker_per_core_for_many_pairs_and_one_for_a_few(monkeypatch):
    """One process would leave numpy's BLAS a spinning thread per core on a busy machine."""
    from annotator.align import pipeline

    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert [pipeline.auto_workers(n) for n in (0, 1, 7, 8, 36, 1000)] == [1, 1, 1, 2, 2, 2]
    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda pid: set(range(8)),
                        raising=False)
    assert [pipeline.auto_workers(n) for n in (4, 12, 36)] == [1, 3, 8]
