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
