"""The browser's ES modules (annotator/static/js) hold together without a build step: every
relative import names a file that exists and a name that file exports, no module imports
itself back through others (a cycle makes module evaluation order depend on which page
loads first), and each shared helper is defined in one module (docs/architecture.md,
"One place per concept"). Pure Python over the source text: no browser needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[1] / "annotator" / "static" / "js"

# `import {a, b as c} from "./x.js";`, `import * as m from "./x.js";`, `import "./x.js";`
# and `export {a} from "./x.js";`, possibly over several lines.
STATIC_IMPORT = re.compile(
    r"^\s*(?:import|export)\s*(?P<what>[^;\"']*?)\s*(?:from\s*)?[\"']\./(?P<file>[\w.-]+\.js)[\"']",
    re.MULTILINE)
EXPORT_DECLARED = re.compile(
    r"^\s*export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+(?P<name>[\w$]+)",
    re.MULTILINE)
EXPORT_LIST = re.compile(r"^\s*export\s*\{(?P<names>[^}]*)\}", re.MULTILINE)


def _source(name: str) -> str:
    return (JS / name).read_text(encoding="utf-8")


def _imports(source: str) -> list[tuple[str, list[str]]]:
    """[(file, imported names)] of the module's static relative imports."""
    found = []
    for m in STATIC_IMPORT.finditer(source):
        names = []
        braces = re.search(r"\{([^}]*)\}", m.group("what"))
        if braces:
            names = [n.split(" as ")[0].strip() for n in braces.group(1).split(",") if n.strip()]
        found.append((m.group("file"), names))
    return found


def _exports(source: str) -> set[str]:
    names = {m.group("name") for m in EXPORT_DECLARED.finditer(source)}
    for m in EXPORT_LIST.finditer(source):
        names |= {n.split(" as ")[-1].strip() for n in m.group("names").split(",") if n.strip()}
    return names


def _graph() -> dict[str, list[str]]:
    return {path.name: [file for file, _ in _imports(_source(path.name))]
            for path in sorted(JS.glob("*.js"))}


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle as a path [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in graph:
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_parser_reads_every_import_form():
    source = ('import { a, b as c } from "./x.js";\nimport {\n  d,\n  e,\n} from "./y.js";\n'
              'import * as m from "./z.js";\nimport "./w.js";\nexport { f } from "./v.js";\n'
              'const u = "import { q } from \'./nope.js\'";\n')
    assert _imports(source) == [("x.js", ["a", "b"]), ("y.js", ["d", "e"]), ("z.js", []),
                                ("w.js", []), ("v.js", ["f"])]
    assert _exports("export function a() {}\nexport async function b() {}\nexport const c = 1;\n"
                    "export class D {}\nexport { e, f as g };\n") == {"a", "b", "c", "D", "e", "g"}


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    assert find_cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}) == [
        "a.js", "b.js", "c.js", "a.js"]
    assert find_cycle({"edits.js": ["undo.js"], "undo.js": ["edits.js"]}) == [
        "edits.js", "undo.js", "edits.js"]
    assert find_cycle({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}) is None


def test_the_modules_import_no_cycle():
    graph = _graph()
    assert len(graph) > 20 and sum(map(len, graph.values())) > 40  # the parser found them
    assert find_cycle(graph) is None


@pytest.mark.parametrize("module", sorted(p.name for p in JS.glob("*.js")))
def test_every_imported_name_is_exported_by_its_file(module):
    missing = []
    for file, names in _imports(_source(module)):
        assert (JS / file).is_file(), f"{module} imports ./{file}, which does not exist"
        exported = _exports(_source(file))
        missing += [f"{name} from ./{file}" for name in names if name not in exported]
    assert missing == [], f"{module} imports names its modules do not export"


@pytest.mark.parametrize(("helper", "home"), [
    ("el", "dom.js"), ("fill", "dom.js"), ("typing", "dom.js"),
    ("sortSpans", "spans.js"), ("suggestionSpans", "spans.js"), ("cutSegments", "marks.js"),
    ("renderMarkedText", "marks.js"), ("cpLength", "offsets.js"),
])
def test_each_shared_helper_is_defined_once(helper, home):
    # function helper(...), const helper = (...) => / x =>, or a re-export of the name
    definition = re.compile(
        rf"^\s*(?:export\s+)?(?:async\s+)?function\s+{helper}\s*\("
        rf"|\b(?:const|let|var)\s+{helper}\s*=\s*(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>"
        rf"|^\s*export\s*\{{[^}}]*\b{helper}\b", re.MULTILINE)
    homes = sorted(p.name for p in JS.glob("*.js")
                   if definition.search(p.read_text(encoding="utf-8")))
    assert homes == [home]


def test_only_the_segmentation_makes_text_segments():
    """A segment (`.seg` with its code-point range in data-a / data-b) is made in marks.js
    only; the pages draw texts through it."""
    makers = sorted(p.name for p in JS.glob("*.js")
                    if re.search(r"dataset\.a\s*=", p.read_text(encoding="utf-8")))
    assert makers == ["marks.js"]
