"""The JSON examples of the README and docs/*.md are JSON: a code fence left open swallows
the prose after it (it did once, under the Label Studio JSON-MIN example). The README is a
front door, under 300 lines (issue 45): details live in docs/."""

import json
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
DOCUMENTS = [README, *sorted((README.parent / "docs").glob("*.md"))]


def json_blocks(text: str, name: str = "README.md") -> list[tuple[int, str]]:
    """(line number, body) of every ```json block."""
    blocks, lines = [], text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```json":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"{name}:{start}: a ```json block is never closed"
            blocks.append((start, "\n".join(body)))
        i += 1
    return blocks


def parses(body: str) -> bool:
    """One JSON value, or JSON lines (one value per non-blank line)."""
    try:
        json.loads(body)
        return True
    except ValueError:
        pass
    try:
        for line in body.split("\n"):
            if line.strip():
                json.loads(line)
        return True
    except ValueError:
        return False


def test_every_json_example_in_the_readme_and_docs_is_json():
    found = 0
    for document in DOCUMENTS:
        blocks = json_blocks(document.read_text(encoding="utf-8"), document.name)
        found += len(blocks)
        bad = [line for line, body in blocks if not parses(body)]
        assert bad == [], f"{document.name} lines {bad}: a ```json block that is not JSON"
    assert found >= 10, "the docs have JSON examples"


def test_the_readme_stays_under_300_lines():
    lines = README.read_text(encoding="utf-8").split("\n")
    assert 100 < len(lines) < 300, f"README.md has {len(lines)} lines; move details to docs/"


def test_fences_balance():
    fences = [n for n, line in enumerate(README.read_text(encoding="utf-8").split("\n"), 1)
              if re.match(r"^\s*```", line)]
    assert len(fences) % 2 == 0, f"an unclosed code fence among README lines {fences}"


def test_fences_balance_in_every_doc():
    for doc in sorted((README.parent / "docs").glob("*.md")):
        fences = [n for n, line in enumerate(doc.read_text(encoding="utf-8").split("\n"), 1)
                  if re.match(r"^\s*```", line)]
        assert len(fences) % 2 == 0, f"{doc.name}: an unclosed code fence among lines {fences}"


def test_every_key_of_the_agreement_report_is_in_the_readme():
    """DESIGN.md section 6: the keys of `annotator agreement --json` are documented in the
    README (its section *Every key of `annotator agreement --json`*), not moved to docs/."""
    from annotator.agreement.report import build_report
    from annotator.agreement.synthetic import hash_embed, make_input

    report = build_report(make_input(n_docs=4, embed=hash_embed), bootstrap=0)
    text = README.read_text(encoding="utf-8")
    section = text.split("## Every key of `annotator agreement --json`\n", 1)[1].split("\n## ")[0]
    listed = set(re.findall(r"^- `([\w-]+)`", section, flags=re.MULTILINE))
    assert len(report) >= 10
    assert set(report) - listed == set()
    assert {"project", "prehighlighters", "prehighlights_as_annotator"} <= listed
