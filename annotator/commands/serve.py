"""Serving the web app, and the ready-made demo."""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click

from annotator.commands import adopt_release_folders, fail, open_database, progress_bar
from annotator.config import current

# Imports inside functions: each command loads only what it runs, so `annotator --help`
# and the light commands start fast (benchmarks/bench_cli_startup.py measures it).

MIN_SECRET_KEY_LENGTH = 32


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Each gunicorn process serves several requests at once (a save mostly waits on the
# database), and keeps a browser's idle connection open longer than people pause between
# actions: a server closing it first races the next request on it (a reset connection).
GUNICORN_THREADS = 4
KEEP_ALIVE_SECONDS = 75
# Set by `annotator serve` for its gunicorn workers: it ran the migrations and the start-up
# queue refresh once itself, so no worker runs them again (annotator/wsgi.py).
MIGRATED_ENV = "ANNOTATOR_SERVE_MIGRATED"
# How long a stopping `serve` waits for its job worker to hand its job back.
STOP_WAIT_SECONDS = 10


# A Unix socket path is at most 107 bytes (sun_path); a longer instance path gets none.
MAX_SOCKET_PATH = 100


def auto_workers(cores: int | None = None) -> int:
    """gunicorn's own sizing advice, 2 x cores + 1 processes, at most 9: each of
    ``GUNICORN_THREADS`` threads mostly waits on the database, and every process holds its
    own copy of the app (about 150 MB)."""
    return min(2 * (cores or os.cpu_count() or 1) + 1, 9)


def control_socket(instance_path: Path, port: int) -> list[str]:
    """gunicorn's control socket for this server: one per port under the instance folder
    (gunicorn's default, ~/.gunicorn/gunicorn.ctl, would be shared by every server of the
    machine), or none when that path is too long for a Unix socket."""
    path = instance_path / f"gunicorn-{port}.ctl"
    if len(str(path)) > MAX_SOCKET_PATH:
        return ["--no-control-socket"]
    return ["--control-socket", str(path)]


def gunicorn_argv(workers: int, bind: str, *, access_log: bool = True,
                  migrated: bool = False, socket: list[str] | None = None) -> list[str]:
    """The gunicorn command line `annotator serve` runs (the load test too).

    ``migrated``: the caller has run the migrations and the start-up queue refresh already,
    so the workers skip them (``MIGRATED_ENV``); otherwise each worker runs them on start.
    ``socket``: the control-socket options (:func:`control_socket`)."""
    gunicorn = shutil.which("gunicorn") or os.path.join(os.path.dirname(sys.executable),
                                                        "gunicorn")
    return [gunicorn, "--workers", str(workers), "--threads", str(GUNICORN_THREADS),
            "--keep-alive", str(KEEP_ALIVE_SECONDS), "--bind", bind,
            *(socket if socket is not None else ["--no-control-socket"]),
            *(["--access-logfile", "-"] if access_log else []),
            *(["--env", f"{MIGRATED_ENV}=1"] if migrated else []), "annotator.wsgi:app"]


# A random key of 32 characters uses many distinct ones (token_hex: about 14 of 16); a key
# of one repeated letter, or "abab...", has the length but not the randomness.
MIN_SECRET_KEY_DISTINCT = 8


def secret_key_problem(key: str | None) -> str | None:
    """Why ``key`` cannot sign sessions on a shared network, or None."""
    key = key or ""
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return f"at least {MIN_SECRET_KEY_LENGTH} characters (got {len(key)})"
    if len(set(key)) < MIN_SECRET_KEY_DISTINCT:
        return (f"a random value (got {len(set(key))} distinct characters, at least "
                f"{MIN_SECRET_KEY_DISTINCT} expected)")
    return None


def run_server(host: str, port: int, workers: int, *, background: bool = True,
               dev: bool = False) -> None:
    """Serve on ``host:port`` under gunicorn with ``workers`` processes (``dev``: Werkzeug's
    development server, one process); ``background``: run a job worker in a thread of this
    process too (one per `serve`, whatever ``workers`` is)."""
    config = current()
    problem = None if is_loopback(host) else secret_key_problem(config.secret_key)
    if problem:
        fail(f"refusing to serve on {host}: set ANNOTATOR_SECRET_KEY to a random value first: "
             f"{problem}; e.g. python -c 'import secrets; print(secrets.token_hex(32))'; "
             "sessions on a shared network must not depend on a guessable or local key")
    child = None
    if not dev:
        # gunicorn starts before the job worker's thread exists: the child is forked from a
        # process with one thread (see _start_gunicorn).
        click.echo(f"serving with gunicorn, {workers} worker process(es) of "
                   f"{GUNICORN_THREADS} threads, on http://{host}:{port}/")
        child = _start_gunicorn(gunicorn_argv(workers, f"{host}:{port}", migrated=True,
                                              socket=control_socket(config.instance_path,
                                                                    port)))
    background_worker = None
    if background:
        from annotator.db import Database
        from annotator.operations.worker import start_in_thread

        # Its own engine: the job worker's connections are not the app's.
        background_worker = start_in_thread(Database(config.database_url))
        click.echo(f"background jobs: worker {background_worker[0].id} in this process "
                   "(--no-worker: run `annotator worker` elsewhere)")
    try:
        if child is not None:
            raise SystemExit(child.wait())
        from werkzeug.serving import run_simple

        from annotator.app import create_app
        from annotator.web.server_header import RequestHandler

        app = create_app(config, migrate=False)  # `serve` migrated before calling
        click.echo(f"development server on http://{host}:{port}/  (one process; Ctrl+C to "
                   "stop)")
        run_simple(host, port, app, threaded=True, use_reloader=False,
                   request_handler=RequestHandler)
    finally:
        if background_worker is not None:
            # Hand a running job back to the queue (at its next progress report) rather
            # than leave it to its lease.
            background_worker[0].stop()
            background_worker[1].join(STOP_WAIT_SECONDS)


def _die_with_parent() -> None:
    """In the gunicorn child, before it runs: Linux sends it SIGTERM when `annotator serve`
    dies, even by SIGKILL (prctl PR_SET_PDEATHSIG), so no orphaned server keeps the port."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the signal forwarding below still stops the child


def _start_gunicorn(argv: list[str]):
    """gunicorn as this process's child: SIGTERM, SIGINT and SIGHUP sent to `annotator
    serve` (a supervisor stopping or reloading it) are passed on, and the child dies with
    its parent, so the one process a supervisor knows is the whole server."""
    import signal

    child = subprocess.Popen(argv, preexec_fn=_die_with_parent)

    def forward(signum, _frame):
        child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    return child


class WorkerCount(click.ParamType):
    """``auto`` (sized to the machine, :func:`auto_workers`) or a number from 1 to 64."""

    name = "N|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        if str(value).strip().lower() == "auto":
            return auto_workers()
        try:
            number = int(value)
        except ValueError:
            self.fail(f"{value!r} is not a number or 'auto'", param, ctx)
        if not 1 <= number <= 64:
            self.fail(f"{number} is not in the range 1 to 64", param, ctx)
        return number


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs ANNOTATOR_SECRET_KEY.")
@click.option("--port", default=5000, show_default=True, type=int,
              help="Port to listen on.")
@click.option("--workers", default="auto", show_default=True, type=WorkerCount(),
              help="gunicorn worker processes (auto: 2 x cores + 1, at most 9).")
@click.option("--dev", is_flag=True,
              help="Werkzeug's development server in one process instead of gunicorn.")
@click.option("--no-worker", is_flag=True,
              help="Run no background job worker in this process (run `annotator worker` "
              "instead, e.g. on another machine).")
def serve(host, port, workers, dev, no_worker):
    """Serve the web app (login, annotation, project pages) under gunicorn.

    Also runs a worker for background jobs (pre-highlighting imported documents, refits)
    in a thread, unless --no-worker.
    """
    adopt_release_folders(open_database())  # migrate once here, not in every worker
    run_server(host, port, workers, background=not no_worker, dev=dev)


@click.command()
@click.option("--port", default=5000, show_default=True, type=int,
              help="Port to listen on.")
@click.option("--no-serve", is_flag=True, help="Only create the demo data, then exit.")
def demo(port, no_serve):
    """Create the demo projects, two with a study under way, and serve them.

    The demo holds plain-language rewrites of invented trial abstracts with planted
    problems (deleted dosages, vague rewordings, a leaked instruction, an invented claim,
    a repeated sentence), a lead and three annotators. demo-infoloss and
    demo-overgeneration carry the annotators' finished work, the automatic adjudication
    rules' decisions and a first release (v0.1). Running it again reuses what exists.
    """
    from annotator.align.store import prehighlight_project
    from annotator.operations import work
    from annotator.operations.demo import DEMO_USERS, create_demo
    from annotator.study.projects import get_project

    database = open_database()
    with work.session(database) as session:
        created = create_demo(session)
    with database.sessions() as session:
        for name in created:
            with progress_bar(f"pre-highlighting {name}") as progress:
                prehighlight_project(session, get_project(session, name),
                                     workers=os.cpu_count() or 1, progress=progress)
    click.echo("demo projects: " + ", ".join(created))
    click.echo("log in as:")
    for username, role, password in DEMO_USERS:
        click.echo(f"  {role:<9}  user {username:<5}  password {password}")
    if not no_serve:
        run_server("127.0.0.1", port, auto_workers())
