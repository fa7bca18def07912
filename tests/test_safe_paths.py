"""Paths built from data: one function makes every name safe (exports, releases), and
release folders belong to exactly one project."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from annotator.core.safe_paths import UnsafePathError, child_path, file_component, project_slug
from annotator.interop.exporting import export_project
from annotator.models import Project, User
from annotator.study.projects import ProjectError, create_project
from tests.adjudication_fixtures import release

HOSTILE = "../../../../outside/x"


@settings(max_examples=400, deadline=None)
@given(st.text(min_size=1, max_size=16))  # at most 12 bytes a character once encoded
def test_any_name_becomes_one_component_inside_the_root(tmp_path_factory, name):
    component = file_component(name)
    assert "/" not in component and "\\" not in component and "\x00" not in component
    assert component not in (".", "..") and not component.startswith(".")
    assert all(c.isprintable() for c in component)
    assert component.split(".")[0].upper() not in ("CON", "NUL", "AUX", "PRN", "COM1")
    root = tmp_path_factory.getbasetemp() / "root"
    assert child_path(root, name, suffix=".json").parent == root


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=20))
def test_distinct_names_never_share_a_file(a, b):
    if a != b:
        assert file_component(a) != file_component(b)


def test_known_encodings():
    assert file_component("ana") == "ana"
    assert file_component("../x") == "%2E.%2Fx"
    assert file_component("a b") == "a%20b" and file_component("a_b") == "a_b"
    assert file_component("con") == "%63on"
    assert file_component("Zoë") == "Zoë"
    with pytest.raises(UnsafePathError):
        file_component("")
    long_a, long_b = file_component("x" * 300), file_component("x" * 301)
    assert long_a != long_b  # shortened with a hash, never truncated into a collision
    assert max(len(long_a.encode()), len(long_b.encode())) <= 200


def test_a_symlink_planted_in_the_folder_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "ana.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(UnsafePathError, match="outside"):
        child_path(tmp_path / "out", "ana", suffix=".json")


def _rename(database, old, new):
    with database.session() as session:
        session.execute(update(User).where(User.username == old).values(username=new))


@pytest.mark.parametrize("fmt", ["thresh"])
def test_thresh_export_with_a_hostile_annotator_name_stays_in_its_folder(
        database, adjudicated, tmp_path, fmt):
    _rename(database, "ana", HOSTILE)
    out = tmp_path / "deep" / "a" / "b" / "out"
    with database.session() as session:
        project = session.scalar(select(Project))
        result = export_project(session, project, fmt, out)
    assert not (tmp_path / "outside").exists() and not (tmp_path / "deep" / "outside").exists()
    assert all(p.resolve().parent == out.resolve() for p in result.written)
    assert sorted(p.name for p in out.iterdir()) == [
        "%2E.%2F..%2F..%2F..%2Foutside%2Fx.json", "ben.json"]


def test_release_with_a_hostile_annotator_name_stays_in_its_folder(
        database, adjudicated, tmp_path):
    _rename(database, "ana", HOSTILE)
    manifest = release(database, adjudicated, tmp_path / "exports")
    assert "annotations/%2E.%2F..%2F..%2F..%2Foutside%2Fx.jsonl" in manifest["files"]
    assert not (tmp_path / "outside").exists()
    written = [p for p in (tmp_path / "exports").rglob("*") if p.is_file()]
    assert written and all(p.resolve().is_relative_to((tmp_path / "exports" / "qa").resolve())
                           for p in written)


@pytest.mark.parametrize("first, second", [("trial", "trial."), ("Trial 2", "Trial_2"),
                                           ("trial", "TRIAL"), ("a/b", "a_b")])
def test_projects_whose_names_share_a_release_folder_are_refused(database, first, second):
    with database.session() as session:
        create_project(session, first, "infolossqa")
        with pytest.raises(ProjectError, match="release folder"):
            create_project(session, second, "infolossqa")
        assert session.scalars(select(Project.name)).all() == [first]


def test_release_folder_is_the_stored_slug(database, adjudicated, tmp_path):
    release(database, adjudicated, tmp_path / "exports")
    with database.session() as session:
        assert session.scalar(select(Project.slug)) == "qa"
    assert (tmp_path / "exports" / "qa" / "v1" / "MANIFEST.json").is_file()
    assert project_slug("../x") == "x"
