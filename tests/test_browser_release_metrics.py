"""A lead judges metrics against a release in the browser (Debian's Chromium through
Playwright): the releases page links to the release's "Judge metrics" page, a table is
uploaded, and the report shows the same figures as `annotator eval metrics` on the same
release and table; a bad table is refused with FILE:LINE: field and nothing is stored."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.models import Project
from tests.adjudication_fixtures import release
from tests.conftest import browser_login
from tests.helpers import row_counts

pytestmark = pytest.mark.browser


def test_a_lead_judges_a_metric_table_against_a_release(env, app, database, adjudicated,
                                                        live_server, page, tmp_path):
    release(database, adjudicated, exports=tmp_path / "exports")
    folder = next((tmp_path / "exports").glob("*/v1"))
    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    table = tmp_path / "scores.csv"
    table.write_text("document_id,length,noise\n" + "".join(
        f"{r['id']},{len(r['edits']) * 3 + i},{(7 * i) % 5}\n" for i, r in enumerate(gold)),
        encoding="utf-8")
    cli = CliRunner().invoke(main, ["eval", "metrics", str(folder), str(table), "--on",
                                    "document_id", "--human", "count:*", "--bootstrap", "200",
                                    "--json"])
    assert cli.exit_code == 0, cli.output
    expected = json.loads(cli.output)
    browser_login(page, live_server, "lee")
    with database.session() as session:  # after the login's own audit event
        project_id = session.query(Project).one().id
        before = row_counts(session)
    page.goto(f"{live_server}/projects/{project_id}/releases")
    page.click("article[data-version='v1'] a.release-metrics")
    page.wait_for_selector("#metrics-form")
    page.set_input_files("input[name=metrics]", str(table))
    page.fill("input[name=human]", "count:*")
    page.fill("input[name=bootstrap]", "200")
    page.click("#metrics-form button[type=submit]")
    page.wait_for_selector("#metrics-report")
    cells = page.locator("#metrics-report table").first.locator("tr")
    shown = {cells.nth(i).locator("td").first.inner_text(): cells.nth(i).locator("td").nth(1)
             .inner_text() for i in range(1, cells.count())}
    for row in expected["metrics"]:
        p = row["pearson"]
        value = "n/a" if p["value"] is None else f"{p['value']:.3f}"
        assert shown[row["metric"]].startswith(value), (shown, row)
        if p["low"] is not None:
            assert f"[{p['low']:.3f}, {p['high']:.3f}]" in shown[row["metric"]]
    assert page.locator("#metrics-report img").count() == 1 + len(expected["metrics"])
    for warning in expected["warnings"]:  # e.g. every released document has one gold edit
        assert warning in page.inner_text("#metrics-report")
    bad = tmp_path / "bad.csv"
    bad.write_text("document_id,length\nq1,3\nq1,4\n", encoding="utf-8")
    page.set_input_files("input[name=metrics]", str(bad))
    page.click("#metrics-form button[type=submit]")
    page.wait_for_selector("#metrics-problems")
    assert "bad.csv:3: field 'document_id': duplicate key" in page.inner_text(
        "#metrics-problems")
    with database.session() as session:
        assert row_counts(session) == before  # nothing stored
