"""The settings object (annotator/config.py): every variable read once into one frozen
Config, bad values refused naming the variable, the pure layers handed their part, and no
other module reading the environment."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotator import config as settings
from annotator.align.embeddings import default_model_path, uses_torch
from annotator.app import create_app
from annotator.cli import main
from annotator.config import VARIABLES, Config, SettingError
from annotator.core.limits import Limits, current_limits
from annotator.core.model_choice import current_model

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "annotator"
# Modules that may touch os.environ, and why: none of them reads a setting.
ENVIRONMENT_USERS = {
    "config.py": "the settings object itself",
    "operations/backup.py": "hands the environment (plus PGPASSWORD) to pg_dump / psql",
    "wsgi.py": "ANNOTATOR_SERVE_MIGRATED: `serve` tells its own gunicorn workers the "
               "migrations ran; not a setting anyone sets",
}


def test_every_variable_reaches_its_field():
    env = {"ANNOTATOR_INSTANCE_PATH": "/srv/inst", "ANNOTATOR_DATABASE_URL": "postgresql://x/y",
           "ANNOTATOR_SECRET_KEY": "k" * 40, "ANNOTATOR_HTTPS": "on",
           "ANNOTATOR_EXPORTS_PATH": "/srv/out", "ANNOTATOR_SESSION_HOURS": "2.5",
           "ANNOTATOR_PROXIES": "1", "ANNOTATOR_EMBEDDING_MODEL": "/models/mini",
           "ANNOTATOR_EMBEDDING_BACKEND": "sentence-transformers",
           "LABEL_STUDIO_URL": "http://ls:8080", "LABEL_STUDIO_API_KEY": "tok",
           **{f"ANNOTATOR_{f.name.upper()}": str(7 + i)
              for i, f in enumerate(dataclasses.fields(Limits))}}
    assert sorted(env) == sorted(v.name for v in VARIABLES)  # the test covers every one
    config = Config.from_env(env)
    assert config.instance_path == Path("/srv/inst") and config.database_url == "postgresql://x/y"
    assert config.secret_key == "k" * 40 and config.https is True
    assert config.exports_path == Path("/srv/out") and config.session_hours == 2.5
    assert config.proxies == 1
    assert (config.embedding.path, config.embedding.backend) == ("/models/mini",
                                                                 "sentence-transformers")
    assert (config.label_studio_url, config.label_studio_api_key) == ("http://ls:8080", "tok")
    assert [getattr(config.limits, f.name) for f in dataclasses.fields(Limits)] == \
        list(range(7, 7 + len(dataclasses.fields(Limits))))
    assert "k" * 40 not in repr(config) and "tok" not in repr(config)


def test_defaults_without_any_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = Config.from_env({})
    assert config.database_url == f"sqlite:///{tmp_path / 'instance' / 'annotator.sqlite3'}"
    assert config.limits == Limits() and config.embedding.backend == "numpy"
    assert config.exports_path == tmp_path / "exports" and config.https is False
    assert config.secret_key is None and config.label_studio_url is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.database_url = "sqlite://"


@pytest.mark.parametrize("name,value,why", [
    ("ANNOTATOR_MAX_TEXT_CHARS", "lots", "expected a whole number"),
    ("ANNOTATOR_MAX_SPANS_PER_EDIT", "0", "must be at least 1"),
    ("ANNOTATOR_PROXIES", "-1", "must be 0 or more"),
    ("ANNOTATOR_SESSION_HOURS", "nan", "expected a positive number of hours"),
    ("ANNOTATOR_SESSION_HOURS", "a day", "expected a number of hours"),
    ("ANNOTATOR_HTTPS", "maybe", "expected 1, true, yes or on"),
    ("ANNOTATOR_EMBEDDING_BACKEND", "torch", "expected one of numpy, sentence-transformers"),
])
def test_a_bad_value_is_refused_naming_variable_and_value(name, value, why):
    with pytest.raises(SettingError) as caught:
        Config.from_env({name: value})
    assert str(caught.value).startswith(f"{name}={value!r}: {why}")


def test_the_command_refuses_a_bad_value_before_it_runs(monkeypatch):
    monkeypatch.setenv("ANNOTATOR_MAX_SPANS_PER_EDIT", "many")
    result = CliRunner().invoke(main, ["project", "list"])
    assert result.exit_code == 2
    assert "ANNOTATOR_MAX_SPANS_PER_EDIT='many': expected a whole number" in result.output


def test_use_hands_the_pure_layers_their_part():
    config = Config.from_env({"ANNOTATOR_MAX_TEXT_CHARS": "123",
                              "ANNOTATOR_EMBEDDING_MODEL": "/no/such/model",
                              "ANNOTATOR_EMBEDDING_BACKEND": "sentence-transformers"})
    assert settings.use(config) is config and settings.current() is config
    assert current_limits().max_text_chars == 123
    assert current_model() == config.embedding
    assert default_model_path() == "/no/such/model" and uses_torch("/no/such/model")


def test_the_environment_is_read_once_per_command(monkeypatch):
    """The command installs the settings when it starts; a change of the environment
    afterwards reaches nothing until the next start."""
    monkeypatch.setenv("ANNOTATOR_MAX_TEXT_CHARS", "4321")
    assert CliRunner().invoke(main, ["schema", "show", "infolossqa"]).exit_code == 0
    monkeypatch.setenv("ANNOTATOR_MAX_TEXT_CHARS", "99")
    assert current_limits().max_text_chars == 4321
    assert settings.current().limits.max_text_chars == 4321


def test_no_other_module_reads_the_environment():
    readers = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
                    and isinstance(node.value, ast.Name) and node.value.id == "os"):
                readers.add(path.relative_to(PACKAGE).as_posix())
    assert readers == set(ENVIRONMENT_USERS)


def test_the_settings_object_is_cheap_to_import():
    """Every command imports it: it loads no numpy, SQLAlchemy or Flask."""
    script = ("import sys, annotator.config\n"
              "print(sorted({'numpy', 'sqlalchemy', 'flask'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"


def test_the_app_takes_its_request_limit_from_its_settings(config, database):
    app = create_app(dataclasses.replace(config, limits=Limits(max_request_bytes=2048)))
    assert app.config["MAX_CONTENT_LENGTH"] == 2048
    answer = app.test_client().post("/login", data={"username": "x" * 5000})
    assert answer.status_code == 413
    assert "larger than the limit of 2,048 bytes" in answer.get_data(as_text=True)
