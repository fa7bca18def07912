"""Migrations and the start-up queue refresh run once per `annotator serve`: serve runs them
itself, then tells its gunicorn workers (MIGRATED_ENV) not to run them again; gunicorn
started by hand still brings the database up to date in each worker."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from annotator.commands.serve import MIGRATED_ENV, gunicorn_argv


def _tables_after_loading_wsgi(tmp_path, **extra_env) -> set[str]:
    path = tmp_path / "fresh.sqlite"
    env = {key: value for key, value in os.environ.items() if key != MIGRATED_ENV}
    env.update(ANNOTATOR_DATABASE_URL=f"sqlite:///{path}",
               ANNOTATOR_INSTANCE_PATH=str(tmp_path / "instance"), **extra_env)
    subprocess.run([sys.executable, "-c", "import annotator.wsgi"], env=env, check=True,
                   timeout=120)
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_worker_started_by_serve_does_not_migrate(tmp_path):
    assert _tables_after_loading_wsgi(tmp_path, **{MIGRATED_ENV: "1"}) == set()


def test_a_worker_started_by_hand_migrates(tmp_path):
    assert {"documents", "alembic_version"} <= _tables_after_loading_wsgi(tmp_path)


def test_serve_passes_the_flag_and_the_load_test_does_not():
    assert ["--env", f"{MIGRATED_ENV}=1"] == [
        a for a in gunicorn_argv(2, "127.0.0.1:1", migrated=True)
        if a in ("--env", f"{MIGRATED_ENV}=1")]
    assert f"{MIGRATED_ENV}=1" not in gunicorn_argv(2, "127.0.0.1:1")
