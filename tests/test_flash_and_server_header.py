"""Issue 41, finding 9: what a request sends is echoed into a flash message only as a
bounded prefix (a 5,000-character release version grew the session cookie past the 4,096
bytes browsers keep), and the ``Server:`` header names neither the framework nor Python,
on the development server and under gunicorn (real servers, real sockets)."""

from __future__ import annotations

import ast
import os
import random
import signal
import socket
import string
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from annotator.web.flash_messages import MAX_FLASH_CHARS
from tests.test_lead_study_web import Lead

ROOT = Path(__file__).resolve().parent.parent
ANNOTATOR = str(Path(sys.executable).with_name("annotator"))
SECRET = "c4e1f9a27b3d50e8a6f2d9c1b7e04a38f5d2c6b9e1a07f34"
COOKIE_BYTES_BROWSERS_KEEP = 4096


def _session_cookie(response) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]
    assert cookies, "the response sets no session cookie"
    return cookies[-1]


def test_a_huge_release_version_is_flashed_as_a_bounded_prefix(app, study):
    lead = Lead(app, "lee")
    # Random letters: the session cookie is compressed, and "v999..." would compress away.
    version = "".join(random.Random(41).choices(string.ascii_letters, k=5000))
    answer = lead.post(f"/projects/{study['project_id']}/releases",
                       data={"version": version, "notes": ""})
    assert answer.status_code == 302
    assert len(_session_cookie(answer)) < COOKIE_BYTES_BROWSERS_KEEP
    page = lead.get(answer.headers["Location"]).get_data(as_text=True)
    assert version[:300] in page and version[:MAX_FLASH_CHARS] not in page
    assert "(cut: " in page  # the message says it was cut, and from how long


def test_every_page_flashes_through_the_bounded_helper():
    web = ROOT / "annotator" / "web"
    for module in web.glob("*.py"):
        if module.name == "flash_messages.py":
            continue  # the helper itself
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "flask":
                assert "flash" not in {a.name for a in node.names}, module.name


def _serve(tmp_path: Path, port: int, how: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANNOTATOR_SECRET_KEY": SECRET,
           "ANNOTATOR_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance")}
    return subprocess.Popen([ANNOTATOR, "serve", "--port", str(port), "--no-worker", *how],
                            env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("how, ready", [(["--dev"], "Running on"),
                                        (["--workers", "2"], "Booting worker")],
                         ids=["development server", "gunicorn"])
def test_the_server_header_names_only_the_tool(tmp_path, how, ready):
    port = _free_port()
    server = _serve(tmp_path, port, how)
    # A server that never says it listens is stopped, which ends the read below.
    watchdog = threading.Timer(120, lambda: os.killpg(server.pid, signal.SIGKILL))
    watchdog.start()
    try:
        output = []
        for line in server.stdout:  # until the server listens (or the process ends)
            output.append(line)
            if ready in line:
                break
        assert ready in "".join(output), "".join(output)
        answer = httpx.get(f"http://127.0.0.1:{port}/login", timeout=60)
        assert answer.status_code == 200
        assert answer.headers.get_list("server") == ["annotator"]
    finally:
        watchdog.cancel()
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
