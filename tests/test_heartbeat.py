"""scripts/heartbeat.sh: a long set-up step says what it does, how long it usually takes,
that it is still running while it runs, and how it ended (issue 47: set-up that talks).
The step here waits on a pipe the test holds, so it ends when the test has seen a beat."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "heartbeat.sh"


def start(*command: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(["bash", str(SCRIPT), *command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})})


def test_a_step_says_what_it_does_beats_while_it_runs_and_says_how_it_ended():
    step = start("waiting for the test", "a moment", "--", "bash", "-c",
                 "read answer; echo \"step read: $answer\"", env={"HEARTBEAT_SECONDS": "1"})
    assert step.stdout.readline() == "==> waiting for the test (usually a moment)\n"
    beat = step.stdout.readline()
    assert beat.startswith("    ... still waiting for the test: ")
    assert beat.endswith(" s so far (usually a moment)\n")
    assert int(beat.split(": ")[1].split(" s")[0]) >= 1
    step.stdin.write("go\n")
    step.stdin.close()
    rest = step.stdout.read().split("\n")
    assert step.wait() == 0
    assert "step read: go" in rest  # the command keeps the foreground: its stdin, its output
    assert rest[-2].startswith("==> done in ") and rest[-2].endswith(" s: waiting for the test")


def test_a_failing_step_keeps_its_exit_status_and_says_so():
    step = start("failing on purpose", "no time", "--", "bash", "-c", "echo trying; exit 3")
    output, _ = step.communicate()
    assert step.returncode == 3
    lines = output.split("\n")
    assert lines[0] == "==> failing on purpose (usually no time)" and "trying" in lines
    assert lines[-2].startswith("==> failed after ")
    assert lines[-2].endswith(" (exit 3): failing on purpose")


def test_a_call_without_what_and_usually_is_refused():
    step = start("only-a-command")
    output, _ = step.communicate()
    assert step.returncode == 2
    assert output == f"usage: {SCRIPT} WHAT USUALLY -- COMMAND [ARG...]\n"


def test_every_long_set_up_step_goes_through_the_heartbeat():
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").split("\n")
    installs = [n for n, line in enumerate(lines) if "pip install" in line]
    assert len(installs) == 3  # pip, torch, the project
    for n in installs:  # each one the command of a heartbeat line (continued with \\)
        assert "$(BEAT) " in lines[n] or (
            lines[n - 1].startswith("\t@$(BEAT) ") and lines[n - 1].endswith("-- \\")), lines[n]
    labelstudio = (ROOT / "scripts" / "with-labelstudio.sh").read_text(encoding="utf-8")
    assert labelstudio.count('bash "$BEAT" ') == 3  # its venv, pip, label-studio
    assert "waiting for Label Studio to answer" in labelstudio
