"""Releases live in the database (issue 31): a release cut through one app is listed,
verified and downloaded (one zip) through another on the same database, whose own disk
has nothing; release folders cut on disk before are adopted on first use."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest

from annotator.app import create_app
from annotator.config import Config
from annotator.db import Database
from annotator.models import Project, Release
from annotator.releases import verify_release
from annotator.releases.adopt import adopt_release_folders
from annotator.releases.store import VersionTaken, store_release
from annotator.study.projects import create_project
from tests.adjudication_fixtures import project_of, release
from tests.conftest import csrf_token, fresh_database_url, login, run_queued_jobs


def test_cut_through_one_app_served_by_another(app, client, database, adjudicated, config,
                                               tmp_path):
    login(client, "lee")
    pid = adjudicated["project_id"]
    client.post(f"/projects/{pid}/releases", data={
        "version": "v1", "notes": "web", "csrf_token": csrf_token(client,
                                                                 f"/projects/{pid}/releases")})
    run_queued_jobs(database)
    other_config = Config.from_env({}, instance_path=tmp_path / "other-instance",
                                   database_url=config.database_url, secret_key="other",
                                   exports_path=tmp_path / "other-exports")
    other = create_app(other_config)
    try:
        browser = other.test_client()
        login(browser, "lee")
        page = browser.get(f"/projects/{pid}/releases").get_data(as_text=True)
        assert 'data-version="v1"' in page and "All 8 files match" in page
        answer = browser.get(f"/projects/{pid}/releases/v1.zip")
        assert answer.status_code == 200 and answer.mimetype == "application/zip"
        assert 'filename="qa-v1.zip"' in answer.headers["Content-Disposition"]
        archive = zipfile.ZipFile(io.BytesIO(answer.data))
        assert archive.testzip() is None
        manifest = json.loads(archive.read("qa-v1/MANIFEST.json"))
        assert manifest["notes"] == "web"
        assert sorted(archive.namelist()) == sorted(
            ["qa-v1/MANIFEST.json", *(f"qa-v1/{name}" for name in manifest["files"])])
        for name, meta in manifest["files"].items():
            data = archive.read(f"qa-v1/{name}")
            assert len(data) == meta["bytes"]
            assert data == browser.get(f"/projects/{pid}/releases/v1/{name}").data
        # Byte-stable: the same release zips the same.
        assert browser.get(f"/projects/{pid}/releases/v1.zip").data == answer.data
        assert browser.get(f"/projects/{pid}/releases/v2.zip").status_code == 404
    finally:
        other.extensions["annotator_db"].dispose()
    assert not (tmp_path / "exports").exists() and not (tmp_path / "other-exports").exists()


def test_a_version_is_stored_once(database, adjudicated):
    release(database, adjudicated)
    with database.session() as session:
        project = project_of(session, adjudicated)
        with pytest.raises(VersionTaken):
            store_release(session, project, "v1", {"x.txt": b"x"}, b'{"files": {}}')
        assert session.query(Release).count() == 1
        assert verify_release(session, project, "v1").ok


@pytest.fixture
def second_database(tmp_path):
    with fresh_database_url(tmp_path / "second") as url:
        db = Database(url)
        db.upgrade()
        yield db
        db.dispose()


def test_release_folders_cut_on_disk_are_adopted_once_byte_for_byte(
        database, adjudicated, second_database, tmp_path):
    exports = tmp_path / "exports"
    release(database, adjudicated, exports)              # the folder of an older version
    release(database, adjudicated, exports, version="v2")
    shutil.copytree(exports / "qa" / "v2", exports / "qa" / "v3")  # tampered below
    (exports / "qa" / "v3" / "gold.csv").chmod(0o644)
    (exports / "qa" / "v3" / "gold.csv").write_bytes(b"forged\n")
    (exports / "qa" / "not a version").mkdir()
    with second_database.session() as session:
        create_project(session, "qa", "infolossqa")
    with second_database.session() as session:
        adopted = adopt_release_folders(session, exports)
    assert adopted == ["qa v1", "qa v2", "qa v3"]
    with second_database.session() as session:
        assert adopt_release_folders(session, exports) == []  # once
        assert {r.origin for r in session.query(Release)} == {"folder"}
    with second_database.session() as session, database.session() as first:
        project = session.query(Project).filter_by(name="qa").one()
        original = project_of(first, adjudicated)
        for version in ("v1", "v2"):
            adopted_check = verify_release(session, project, version)
            assert adopted_check.ok, adopted_check.problems
            assert adopted_check.manifest_sha256 == verify_release(
                first, original, version).manifest_sha256
        tampered = verify_release(session, project, "v3")
        assert [p.split(":")[0] for p in tampered.problems] == ["gold.csv"]
