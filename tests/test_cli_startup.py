"""`annotator --help` starts fast because the listing imports no command module: the
summaries live in annotator.cli.COMMANDS (speed itself: benchmarks/bench_cli_startup.py)."""

from __future__ import annotations

import importlib
import json
import os
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


def test_a_document_import_loads_no_reader_sdk_migration_tool_or_adjudication(tmp_path):
    """`annotator import PROJECT docs.jsonl` on a migrated database (issue 32: its start-up
    was 0.59 s of 0.99 s for 1,000 documents; benchmarks/bench_import_labelstudio.py):
    label-studio-sdk (the annotation readers), Alembic (the database is at the head) and
    the adjudication computation with numpy (nothing to recompute) stay unloaded; and
    (issue 44) the schema reader with PyYAML (the project is only looked up) and the
    assignment module (`annotator assign`'s)."""
    database = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    (tmp_path / "docs.jsonl").write_text(
        '{"id": "d1", "source": "Mice got 5 mg.", "target": "Mice got a drug."}\n')
    env = {"ANNOTATOR_DATABASE_URL": database, "ANNOTATOR_INSTANCE_PATH": str(tmp_path)}
    assert CliRunner().invoke(main, ["project", "create", "p", "--schema", "infolossqa"],
                              env=env).exit_code == 0
    script = ("import sys, json\n"
              "from annotator.cli import main\n"
              "try:\n"
              f"    main(['import', 'p', {str(tmp_path / 'docs.jsonl')!r}])\n"
              "except SystemExit as exc:\n"
              "    assert not exc.code, exc.code\n"
              "print(json.dumps([m for m in ('label_studio_sdk', 'alembic', 'numpy',\n"
              "    'annotator.adjudication.overview', 'sqlalchemy.dialects.postgresql',\n"
              "    'yaml', 'annotator.schemas', 'annotator.annotate.assignment')\n"
              "    if m in sys.modules]))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, env={**os.environ, **env})
    assert "imported 1 new" in result.stdout
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
