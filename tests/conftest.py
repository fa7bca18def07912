"""Shared fixtures: a real database file (or a real PostgreSQL database), the real app."""

from __future__ import annotations

import os
import re
import shutil
import uuid
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from annotator import config as config_module
from annotator.app import create_app
from annotator.config import Config
from annotator.db import Database
from annotator.operations import work
from annotator.study.accounts import create_user

if os.environ.get("PYTEST_XDIST_WORKER"):
    # One test process per core (make test): each gets one BLAS / OpenMP thread, set before
    # numpy loads (none of the imports above loads it). Otherwise every process starts a
    # thread per core for each matrix product and the spinning threads of two processes
    # fight over the same cores (the SQLite pass spent 36 s more CPU that way).
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

# Set ANNOTATOR_TEST_POSTGRES_URL (e.g. postgresql://postgres@127.0.0.1:5433/postgres) to
# run every database test against a fresh PostgreSQL database instead of a SQLite file.
POSTGRES_ADMIN_URL = os.environ.get("ANNOTATOR_TEST_POSTGRES_URL")
# Shared fixtures kept in their own modules (requested by name, never imported).
# tests.outside_reads: no test reads outside the repository or writes into tests/data;
# tests.private_postgres: a PostgreSQL server of a test's own, to stop and start.
pytest_plugins = ["tests.adjudication_fixtures", "tests.api_helpers", "tests.outside_reads",
                  "tests.private_postgres"]
PASSWORD = "correct-horse-battery"


# Fixtures that hand out a database: on the PostgreSQL pass only tests using one run.
DATABASE_FIXTURES = {"database_url", "module_database_url"}


def pytest_collection_modifyitems(config, items):
    """On the PostgreSQL pass, run only the tests that touch a database: the pure ones
    (alignment, statistics) already ran on the SQLite pass and know no database."""
    if not POSTGRES_ADMIN_URL:
        return
    selected = [item for item in items
                if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))]
    deselected = [item for item in items if item not in selected]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@contextmanager
def fresh_database_url(folder):
    """A new empty database: a SQLite file in ``folder``, or a fresh PostgreSQL database
    (dropped afterwards) when ANNOTATOR_TEST_POSTGRES_URL is set."""
    if not POSTGRES_ADMIN_URL:
        yield f"sqlite:///{folder / 'test.sqlite3'}"
        return
    name = f"annotator_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(
            hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def database_url(tmp_path):
    with fresh_database_url(tmp_path) as url:
        yield url


@pytest.fixture(scope="module")
def module_database_url(tmp_path_factory):
    """One database for a whole module, for read-only tests of an expensive set-up."""
    with fresh_database_url(tmp_path_factory.mktemp("module-db")) as url:
        yield url


@pytest.fixture
def env(tmp_path, database_url, monkeypatch):
    """Environment for commands: every command honours ANNOTATOR_DATABASE_URL."""
    monkeypatch.setenv("ANNOTATOR_DATABASE_URL", database_url)
    monkeypatch.setenv("ANNOTATOR_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.setenv("ANNOTATOR_EXPORTS_PATH", str(tmp_path / "exports"))
    return {"ANNOTATOR_DATABASE_URL": database_url}


@pytest.fixture
def config(tmp_path, database_url):
    return Config.from_env({}, instance_path=tmp_path / "instance", database_url=database_url,
                           secret_key="test-secret", exports_path=tmp_path / "exports")


@pytest.fixture(autouse=True)
def settings_of_the_environment():
    """Each test starts with the settings of the environment in effect (annotator.config):
    a command run in-process or an app built with a config installs its own for the whole
    process, and that must not reach the next test."""
    config_module.use(Config.from_env())


@pytest.fixture(scope="session", autouse=True)
def password_hashes_computed_once():
    """Each distinct password is hashed, and each (hash, password) pair checked, once per run.

    Werkzeug's scrypt costs ~0.1 s a call, on purpose, and most tests create four users and
    log in: that was a minute of the suite. The functions and their results are Werkzeug's
    own; only repeated calls with the same arguments are answered from memory. Servers
    started in their own process (tests of ``annotator serve``) hash for real every time.
    """
    from annotator.study import accounts

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(accounts, "generate_password_hash",
                      lru_cache(maxsize=None)(accounts.generate_password_hash))
        patch.setattr(accounts, "check_password_hash",
                      lru_cache(maxsize=None)(accounts.check_password_hash))
        yield


@pytest.fixture(scope="session")
def migrated_sqlite_file(tmp_path_factory) -> Path:
    """A SQLite file brought to the newest migration once per run. Migrating a new file
    costs ~0.3 s and most tests want a migrated database: they start from a copy of this
    one (the migration tests start from empty files of their own)."""
    path = tmp_path_factory.mktemp("migrated") / "newest.sqlite3"
    db = Database(f"sqlite:///{path}")
    db.upgrade()
    db.dispose()
    return path


@pytest.fixture
def database(config, request):
    if not POSTGRES_ADMIN_URL:
        target = Path(make_url(config.database_url).database)
        if not target.exists():
            shutil.copyfile(request.getfixturevalue("migrated_sqlite_file"), target)
    db = Database(config.database_url)
    db.upgrade()   # a no-op on the copy; still the path every start-up takes
    yield db
    db.dispose()


@pytest.fixture
def app(config, database):
    app = create_app(config)
    yield app
    app.extensions["annotator_db"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def users(database):
    """A lead, two annotators and an admin, all with the same password."""
    with database.session() as session:
        made = {name: create_user(session, name, PASSWORD, role) for name, role in (
            ("lee", "lead"), ("ana", "annotator"), ("ben", "annotator"), ("root", "admin"))}
        return {name: user.id for name, user in made.items()}


def csrf_token(client, path="/login") -> str:
    page = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def run_queued_jobs(database) -> int:
    """What a worker does with the queued jobs (a release cut on the web page, an import's
    pre-highlighting): run them all, in this process; how many ran."""
    from annotator.operations.worker import Worker

    return Worker(database, poll_seconds=0.1).run(once=True)


@pytest.fixture
def release_worker(database):
    """A worker thread of the test process that builds the releases a browser test cuts on
    the web page, as `annotator serve`'s own worker would; only releases, so an import's
    pre-highlighting stays as the test's fixtures left it."""
    from annotator.operations.worker import start_in_thread

    worker, thread = start_in_thread(database, poll_seconds=0.1, kinds=("release",))
    yield worker
    worker.stop()
    thread.join(timeout=60)


def login(client, username, password=PASSWORD):
    token = csrf_token(client)
    return client.post("/login", data={"username": username, "password": password,
                                       "csrf_token": token})


@pytest.fixture
def study(database, users, tmp_path):
    """Project 'trial' (lead lee) with 3 documents, each assigned to ana and ben; one
    document's simplification carries a script payload."""
    from annotator.annotate.assignment import assign_documents
    from annotator.ingest import import_file
    from annotator.models import Assignment, User
    from annotator.study.projects import create_project
    from tests.helpers import pairs, write_jsonl

    records = pairs(3)
    records[2]["target"] = "Fine. <script>window.__pwned = 1</script><img src=x onerror=alert(1)>"
    with work.session(database) as session:
        project = create_project(session, "trial", "infolossqa",
                                 leads=[session.get(User, users["lee"])])
        import_file(session, project, write_jsonl(tmp_path / "trial.jsonl", records))
        assign_documents(session, project, ["ana", "ben"])
        by_user = {}
        for a in session.query(Assignment).order_by(Assignment.id):
            by_user.setdefault(a.user.username, []).append(a.id)
        return {"project_id": project.id, "assignments": by_user, "users": users}


CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = __import__("pathlib").Path(__file__).resolve().parent.parent / "test-artifacts"
# `UPDATE_SCREENSHOTS=1 make test` also refreshes the README's screenshots in docs/.
UPDATE_SCREENSHOTS = bool(os.environ.get("UPDATE_SCREENSHOTS"))


@pytest.fixture
def live_server(app):
    """The real app served over HTTP on a free loopback port, in a thread."""
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    # A short poll interval: shutdown() waits up to one interval (0.5 s by default, half a
    # second of every browser test).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright. Missing Chromium fails the run: it is
    installed by `make test` (scripts/system-deps.sh), never skipped."""
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: run `make system-deps`"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def login_with_form(page, base_url, username, password=PASSWORD):
    """Log in the way a person does: the login page, its form, the page it leads to."""
    page.goto(f"{base_url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    # The page the login redirects to, loaded ("networkidle" waited 0.5 s more each time).
    with page.expect_navigation():
        page.click("button[type=submit]")


def browser_login(page, base_url, username, password=PASSWORD):
    """Log the page's browser context in with the real login form's request (its CSRF
    token, the session cookie), sent by the context's own HTTP client, which shares the
    page's cookies. Tests of other pages start where they need to be without rendering
    the login page and the page it redirects to first (about a second of CPU per test);
    ``login_with_form`` is the person's way, for tests about logging in."""
    form = page.request.get(f"{base_url}/login").text()
    token = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert token, "no CSRF token on the login page"
    answer = page.request.post(f"{base_url}/login", max_redirects=0, form={
        "username": username, "password": password, "csrf_token": token.group(1)})
    assert answer.status == 302, f"login as {username} refused: {answer.status}"
