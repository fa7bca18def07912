"""Write (or check) the README's command table from the `annotator` command's own help.

Every command the CLI has, subcommands of groups included, gets one row: its usage (its
arguments and options, choices spelt out) and the short help click shows for it.
`python scripts/command_table.py` rewrites the table between the markers in README.md;
`--check` exits 1 naming each command missing from the table, or when the table differs
from the help (the test suite runs it); `--paths` prints the command paths, one a line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BEGIN = ("<!-- command table: written by scripts/command_table.py from the CLI's own help; "
         "a test checks it -->")
END = "<!-- end of command table -->"


def leaf_commands(command: click.Command, path: list[str], ctx: click.Context):
    """(path, command, context) of every runnable command under ``command``."""
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            yield from leaf_commands(sub, [*path, name],
                                     click.Context(sub, info_name=name, parent=ctx))
    else:
        yield path, command, ctx


def metavar(option: click.Option) -> str:
    """The option's own metavar, else N for a number, else its name (``--out OUT``), which
    reads better than click's type names (TEXT, INTEGER RANGE)."""
    if option.metavar:
        return option.metavar
    if isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType)):
        return "N"
    return max(option.opts, key=len).lstrip("-").upper()


def option_usage(option: click.Option) -> str:
    longest = max(option.opts, key=len)
    if option.is_flag:
        shown = "|".join([longest, *option.secondary_opts])
    elif isinstance(option.type, click.Choice):
        shown = f"{longest} {'|'.join(str(c) for c in option.type.choices)}"
    else:
        shown = f"{longest} {metavar(option)}"
    if option.multiple:
        shown += " ..."
    return shown if option.required else f"[{shown}]"


def usage(path: list[str], command: click.Command, ctx: click.Context) -> str:
    pieces = ["annotator", *path]
    if type(command).collect_usage_pieces is not click.Command.collect_usage_pieces:
        # a command that writes its own usage line (e.g. two exclusive forms) is shown by it
        return " ".join([*pieces, *command.collect_usage_pieces(ctx)])
    for param in command.get_params(ctx):
        if isinstance(param, click.Argument):
            pieces.append(param.make_metavar(ctx))
        elif isinstance(param, click.Option) and not param.hidden and \
                "--help" not in param.opts:
            pieces.append(option_usage(param))
    return " ".join(pieces)


def rows() -> list[tuple[str, str, str]]:
    """(path, usage, summary) of every command, in the CLI's own order."""
    from annotator.cli import main as cli  # the project installed in this environment

    root = click.Context(cli, info_name="annotator")
    return [(" ".join(path), usage(path, command, ctx),
             command.get_short_help_str(limit=200))
            for path, command, ctx in leaf_commands(cli, [], root)]


def render() -> str:
    lines = [BEGIN, "", "| command | what it does |", "|---|---|"]
    for _, shown, summary in rows():
        # A pipe inside a table cell ends the cell, also inside backticks (GFM): escaped.
        cells = [text.replace("|", "\\|") for text in (shown, summary)]
        lines.append(f"| `{cells[0]}` | {cells[1]} |")
    return "\n".join(lines + ["", END])


def current() -> str:
    text = README.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        return ""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: list[str]) -> int:
    if "--paths" in argv:
        for path, _, _ in rows():
            print(path)
        return 0
    if "--check" in argv:
        table = current()
        missing = [path for path, _, _ in rows() if f"`annotator {path} " not in table
                   and f"`annotator {path}`" not in table]
        if missing:
            print(f"{README}: commands missing from the command table: {', '.join(missing)}; "
                  "run `python scripts/command_table.py`", file=sys.stderr)
            return 1
        if table != render():
            print(f"{README}: the command table differs from the CLI's help; run "
                  "`python scripts/command_table.py`", file=sys.stderr)
            return 1
        return 0
    text = README.read_text(encoding="utf-8")
    if not current():
        print(f"{README}: no markers {BEGIN!r} ... {END!r}", file=sys.stderr)
        return 1
    README.write_text(text.replace(current(), render()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
