"""`annotator --help` starts fast because the listing imports no command module: the
summaries live in annotator.cli.COMMANDS (speed itself: benchmarks/bench_cli_startup.py)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

from click.testing import CliRunner

from annotator.cli import COMMANDS, main

HEAVY = ("sqlalchemy", "numpy", "torch", "flask", "nltk", "sentence_transformers",
         "matplotlib", "label_studio_sdk", "annotator.db", "annotator.models")


def test_each_listed_summary_opens_its_commands_own_help():
    for name, (module, attribute, summary) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert " ".join((command.help or "").split()).startswith(summary), name


def test_help_lists_every_command_without_importing_the_heavy_stack():
    script = ("import sys, json\n"
              "from annotator.cli import main\n"
              "try:\n"
              "    main(['--help'])\n"
              "except SystemExit:\n"
              "    pass\n"
              f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    listing, _, loaded = result.stdout.rpartition("\n[")
    assert json.loads("[" + loaded) == []
    for name in COMMANDS:
        assert f"\n  {name} " in listing


def test_a_command_still_loads_on_demand():
    result = CliRunner().invoke(main, ["iaa", "--help"])
    assert result.exit_code == 0 and "--metric" in result.output


def test_importing_documents_and_serving_the_app_leave_nltk_unloaded():
    """nltk costs ~2 s to import (it loads scipy.stats); `annotator import` and the web app
    split sentences with the project's own rules and never tokenize words."""
    script = ("import sys\n"
              "import annotator.app, annotator.ingest.store, annotator.commands.data\n"
              "from annotator.align.text import split_sentences\n"
              "assert split_sentences('One. Two.') == [(0, 4), (5, 9)]\n"
              "print('nltk' in sys.modules, 'scipy' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["False", "False"]
    from annotator.align.text import word_spans

    assert word_spans("Mice got 5 mg.") == [(0, 4), (5, 8), (9, 10), (11, 13), (13, 14)]
