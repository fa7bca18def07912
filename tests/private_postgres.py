"""A throw-away PostgreSQL server a test can stop and start (Debian's binaries, as in
scripts/with-postgres.sh): the ``postgres`` fixture, for tests of a database restart
(tests/test_database_outage.py: requests; tests/test_jobs_database_restart.py: jobs;
tests/test_restart_under_load.py: both, on `annotator serve`), and for
benchmarks/load_test.py --restart-postgres-at."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert found, "PostgreSQL is not installed: run scripts/system-deps.sh"
    return Path(found[-1]).parent


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary folder on a free loopback port."""

    def __init__(self):
        # Not under pytest's tmp_path: its parent folders are root's alone (mode 700) and
        # the server runs as the postgres user.
        folder = Path(tempfile.mkdtemp(prefix="annotator-pg-"))
        self.folder, self.bin, self.data = folder, _pg_bin(), folder / "pgdata"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.data.mkdir(parents=True)
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if self.run_as:
            shutil.chown(folder, "postgres")
            shutil.chown(self.data, "postgres")
        self._pg("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, tool: str, *args: str) -> None:
        subprocess.run([*self.run_as, str(self.bin / tool), *args], check=True,
                       capture_output=True)

    def start(self) -> None:
        self._pg("pg_ctl", "-D", str(self.data), "-l", str(self.data / "server.log"), "-w",
                 "-o", f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 "
                 "-c fsync=off", "start")

    def stop(self, mode: str = "immediate") -> None:
        """``immediate``: a crash (no clean shut-down); ``fast``: an administrator's restart
        (every client is sent AdminShutdown, as benchmarks/load_test.py does)."""
        self._pg("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
def postgres():
    server = PrivatePostgres()
    server.start()
    yield server
    try:
        server.stop()
    except subprocess.CalledProcessError:
        pass  # already stopped
    shutil.rmtree(server.folder, ignore_errors=True)
