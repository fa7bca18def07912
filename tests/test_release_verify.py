"""Tamper evidence: `annotator release verify`, the release page and downloads compare every
file with the manifest's sha256."""

from __future__ import annotations

import os

from click.testing import CliRunner

from annotator.cli import main
from annotator.releases import verify_release
from tests.adjudication_fixtures import release
from tests.conftest import login


def _tamper(path, data: bytes) -> None:
    os.chmod(path.parent, 0o755)
    os.chmod(path, 0o644)
    path.write_bytes(data)


def test_verify_passes_then_names_a_changed_missing_and_extra_file(
        database, adjudicated, config, env):
    release(database, adjudicated, config.exports_path)
    folder = config.exports_path / "qa" / "v1"
    ok = CliRunner().invoke(main, ["release", "verify", "qa", "v1"])
    assert ok.exit_code == 0, ok.output
    assert "8 file(s) match the manifest" in ok.output

    gold = folder / "gold.jsonl"
    _tamper(gold, gold.read_bytes().replace(b'"q1"', b'"qX"'))  # same size, other bytes
    (folder / "extra.txt").write_text("planted")
    os.chmod(folder / "annotations", 0o755)
    (folder / "annotations" / "ben.jsonl").unlink()
    bad = CliRunner().invoke(main, ["release", "verify", "qa", "v1"])
    assert bad.exit_code == 1
    assert "MISMATCH gold.jsonl: sha256" in bad.output
    assert "MISMATCH annotations/ben.jsonl: missing" in bad.output
    assert "MISMATCH extra.txt: not in the manifest" in bad.output
    assert not verify_release(config.exports_path, "qa", "v1").ok


def test_cutting_still_works_without_the_subcommand(database, adjudicated, env):
    result = CliRunner().invoke(main, ["release", "qa", "--version", "v2", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    assert "release v2 of qa" in result.output


def test_release_page_shows_the_mismatch_and_download_is_refused(
        app, client, database, adjudicated, config):
    release(database, adjudicated, config.exports_path)
    login(client, "lee")
    pid = adjudicated["project_id"]
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert "All 8 files match" in page
    assert client.get(f"/projects/{pid}/releases/v1/gold.csv").status_code == 200

    gold = config.exports_path / "qa" / "v1" / "gold.csv"
    _tamper(gold, gold.read_bytes() + b"forged,row\n")
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert "no longer matches its manifest" in page and "gold.csv:" in page
    refused = client.get(f"/projects/{pid}/releases/v1/gold.csv")
    assert refused.status_code == 409 and b"download refused" in refused.data
    assert client.get(f"/projects/{pid}/releases/v1/gold.jsonl").status_code == 200
