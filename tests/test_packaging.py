"""A plain (non-editable) install gives a working app: templates, guidelines, schemas,
migrations and static files all travel inside the wheel."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _shipped_files() -> set[str]:
    """Every file the wheel must hold: the package (found automatically, no hand list) plus
    the top-level templates/ and guidelines/ shipped inside it."""
    files = {f"annotator/{p.relative_to(ROOT / 'annotator').as_posix()}"
             for p in (ROOT / "annotator").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    for folder in ("templates", "guidelines"):
        files |= {f"annotator/{folder}/{p.relative_to(ROOT / folder).as_posix()}"
                  for p in (ROOT / folder).rglob("*") if p.is_file()}
    return files


def test_build_is_warning_free_and_the_wheel_runs_installed(tmp_path):
    # Byte-compiling is skipped (with a warning) when the environment disables it.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",
                                                            "PYTHONPATH")}
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "-o",
         str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    output = built.stdout + built.stderr
    warnings = [line for line in output.splitlines()
                if re.search(r"(?i)^\s*warning\b|warning:|Warning\b", line)]
    assert not warnings, warnings
    wheel = next((tmp_path / "dist").glob("annotator-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = _shipped_files() - names
    assert not missing, f"not in the wheel: {sorted(missing)[:20]}"
    assert "annotator/templates/base.html" in names and "annotator/static/js/keys.js" in names
    metadata = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    script = (
        "import annotator, sys\n"
        f"assert annotator.__file__.startswith({str(target)!r}), annotator.__file__\n"
        "from annotator.app import create_app\n"
        "from annotator.config import Config\n"
        "app = create_app(Config.from_env())\n"
        "page = app.test_client().get('/login').get_data(as_text=True)\n"
        "assert 'Log in' in page, page[:200]\n"
        "from annotator.core.resources import guidelines_dir\n"
        "assert (guidelines_dir() / 'infolossqa.md').is_file()\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target),
           "ANNOTATOR_INSTANCE_PATH": str(tmp_path / "instance"),
           "ANNOTATOR_DATABASE_URL": f"sqlite:///{tmp_path / 'w.sqlite3'}"}
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().endswith("ok")
