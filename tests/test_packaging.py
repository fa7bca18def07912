"""A plain (non-editable) install gives a working app: templates, guidelines, schemas,
migrations and static files all travel inside the wheel."""

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "annotator").rglob("__init__.py")
    }
    assert found <= listed, f"add to pyproject.toml packages: {sorted(found - listed)}"


def test_wheel_contains_app_resources_and_runs_installed(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("annotator-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("annotator/templates/base.html", "annotator/templates/login.html",
                     "annotator/guidelines/infolossqa.md", "annotator/schemas/infolossqa.yaml",
                     "annotator/migrations/versions/0001_initial_schema.py",
                     "annotator/static/css/app.css", "annotator/demo_data/infolossqa_demo.jsonl"):
        assert required in names, required

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
        "from annotator.resources import guidelines_dir\n"
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
