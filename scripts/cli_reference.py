"""Write (or check) docs/cli.md, every option of every command, from the CLI's own help.

The README's command table (scripts/command_table.py) lists each command with its usage;
this page says what each option means: one section per command, one row per option (its
usage as in the table, and the help `annotator COMMAND --help` shows, default included).
`python scripts/cli_reference.py` rewrites docs/cli.md; `--check` exits 1 when the page
differs from the help, or when an option has no help text (tests/test_docs_registries.py
runs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

# Run as a script, this folder is on sys.path: the command table's walk of the command tree
# and its spelling of an option are the ones this page uses.
from command_table import leaf_commands, option_usage

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli.md"
HEADER = """# Command-line options

Every option of every `annotator` command, with the help the command itself shows
(`annotator COMMAND --help`). Written by `scripts/cli_reference.py` from that help; a test
checks it. The commands and what each does: the command table in the README.
"""


def sections() -> list[tuple[str, list[tuple[str, str]]]]:
    """(command path, [(option usage, help)]) of every command, in the CLI's own order."""
    from annotator.cli import main as cli  # the project installed in this environment

    root = click.Context(cli, info_name="annotator")
    found = []
    for path, command, ctx in leaf_commands(cli, [], root):
        options = [(option_usage(param), (param.get_help_record(ctx) or ("", ""))[1])
                   for param in command.get_params(ctx)
                   if isinstance(param, click.Option) and not param.hidden
                   and "--help" not in param.opts]
        found.append((" ".join(path), options))
    return found


def render() -> str:
    lines = [HEADER]
    for path, options in sections():
        lines += [f"## annotator {path}", ""]
        if not options:
            lines += ["No options.", ""]
            continue
        lines += ["| option | meaning |", "|---|---|"]
        for shown, meaning in options:
            # A pipe inside a table cell ends the cell, also inside backticks (GFM).
            cells = [text.replace("|", "\\|").replace("\n", " ") for text in (shown, meaning)]
            lines.append(f"| `{cells[0].strip('[]')}` | {cells[1]} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if "--check" in argv:
        bare = [f"annotator {path} {shown}" for path, options in sections()
                for shown, meaning in options if not meaning.strip()]
        if bare:
            print("options without help text: " + "; ".join(bare), file=sys.stderr)
            return 1
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != render():
            print(f"{PAGE}: differs from the CLI's help; run `python scripts/cli_reference.py`",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
