"""Write (or check) the module list of docs/architecture.md from the code itself.

Every package and module under annotator/ gets one row: its path and the first sentence
of its docstring. `python scripts/module_list.py` rewrites the list between the markers;
`--check` exits 1 when the document and the tree disagree (the test suite runs it).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "annotator"
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- module list: written by scripts/module_list.py from the code; a test checks it -->"
END = "<!-- end of module list -->"


def first_sentence(docstring: str) -> str:
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z`(])", paragraph)
    return paragraph[:match.start()] if match else paragraph


def rows() -> list[tuple[str, str]]:
    """(path, summary) for every package and module; a module without a docstring is
    listed with an empty summary, which the check reports."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "migrations" and "versions" in relative.parts:
            continue  # one file per schema revision, listed by Alembic itself
        shown = (f"{relative.parent.as_posix()}/" if path.name == "__init__.py"
                 else relative.as_posix())
        if shown == "./":
            shown = "annotator/"
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out.append((shown, first_sentence(docstring)))
    return out


def render() -> str:
    lines = [BEGIN, "", "| module | what it is |", "|---|---|"]
    for path, summary in rows():
        escaped = summary.replace("|", "\\|")
        lines.append(f"| `{path}` | {escaped} |")
    return "\n".join(lines + ["", END])


def current() -> str:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main(argv: list[str]) -> int:
    undocumented = [path for path, summary in rows() if not summary]
    if undocumented:
        print(f"modules without a docstring: {', '.join(undocumented)}", file=sys.stderr)
        return 1
    if "--check" in argv:
        if current() != render():
            print(f"{DOC}: the module list differs from the tree; run "
                  "`python scripts/module_list.py`", file=sys.stderr)
            return 1
        return 0
    text = DOC.read_text(encoding="utf-8")
    DOC.write_text(text.replace(current(), render()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
