"""`annotator serve` with no flags is a production server: gunicorn with workers sized to
the machine, one control socket per server (two servers on one machine no longer share
gunicorn's default ~/.gunicorn/gunicorn.ctl), Werkzeug only with --dev, and the gunicorn
child dies with `annotator serve`, even when that is killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from annotator.cli import main
from annotator.commands.serve import auto_workers, control_socket, gunicorn_argv
from tests.waiting import wait_until

ANNOTATOR = str(Path(sys.executable).with_name("annotator"))


def test_auto_workers_follow_gunicorns_advice_with_a_ceiling():
    assert auto_workers(1) == 3 and auto_workers(2) == 5 and auto_workers(16) == 9


def test_each_port_has_its_own_control_socket_under_the_instance_folder(tmp_path):
    assert control_socket(tmp_path, 5000) == ["--control-socket",
                                              str(tmp_path / "gunicorn-5000.ctl")]
    assert control_socket(tmp_path, 5000) != control_socket(tmp_path, 5001)
    assert control_socket(tmp_path / ("x" * 120), 5000) == ["--no-control-socket"]
    argv = gunicorn_argv(3, "127.0.0.1:5000", socket=control_socket(tmp_path, 5000))
    assert argv[argv.index("--control-socket") + 1] == str(tmp_path / "gunicorn-5000.ctl")
    assert "--no-control-socket" in gunicorn_argv(3, "127.0.0.1:5000")  # never the default


@pytest.mark.parametrize("value, message", [("0", "not in the range 1 to 64"),
                                            ("many", "'many' is not a number or 'auto'")])
def test_a_bad_worker_count_is_refused(value, message):
    result = CliRunner().invoke(main, ["serve", "--workers", value])
    assert result.exit_code == 2 and message in result.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/login", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _children(pid: int) -> list[tuple[int, bytes]]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) == pid:
                found.append((int(proc.name), (proc / "cmdline").read_bytes()))
        except (OSError, ValueError):
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return stat[0] != "Z"


def test_serve_runs_gunicorn_by_default_and_its_child_dies_with_it(database_url, tmp_path):
    env = {**os.environ, "ANNOTATOR_DATABASE_URL": database_url,
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance"),
           "ANNOTATOR_EXPORTS_PATH": str(tmp_path / "exports")}
    ports = [_free_port(), _free_port()]
    servers = []
    try:
        for port in ports:  # one after the other: the first creates the database
            log = tmp_path / f"serve-{port}.log"
            servers.append(subprocess.Popen(
                [ANNOTATOR, "serve", "--no-worker", "--workers", "2", "--port", str(port)],
                env=env, stderr=subprocess.STDOUT, stdout=log.open("w")))
            wait_until(lambda: _answers(port), 120,  # the log as it stands when time is up
                       lambda: f"the server on port {port}: {log.read_text()[-2000:]}", 0.1)
        masters = []
        for server, port in zip(servers, ports):
            (master,) = _children(server.pid)  # one child: gunicorn's master
            assert b"annotator.wsgi:app" in master[1]
            assert (str(tmp_path / "instance" / f"gunicorn-{port}.ctl").encode()
                    in master[1].split(b"\0"))
            assert len(_children(master[0])) == 2  # --workers 2
            masters.append(master[0])
        os.kill(servers[0].pid, signal.SIGKILL)  # a supervisor's last resort
        servers[0].wait(30)
        wait_until(lambda: not _alive(masters[0]), 60, "gunicorn to follow its parent", 0.1)
        wait_until(lambda: not _answers(ports[0]), 60, "the port to close", 0.1)
        assert _answers(ports[1])  # the other server is untouched
        servers[1].send_signal(signal.SIGTERM)  # a supervisor's stop: passed on
        assert servers[1].wait(60) == 0
        assert not _alive(masters[1])
    finally:
        for server in servers:
            if server.poll() is None:
                server.kill()
