"""The settings object: every ``ANNOTATOR_*`` (and Label Studio) environment variable, read
once into one frozen :class:`Config`.

Every command and the web app read the same settings, so a lead can point the whole tool at
PostgreSQL with one variable (``ANNOTATOR_DATABASE_URL``). The entry points read the
environment once and install the result with :func:`use`: the ``annotator`` command when it
starts (``annotator.cli``), :func:`annotator.app.create_app` (and so gunicorn's workers). The
pure layers never read the environment: :func:`use` hands them their part (the size limits
to ``core.limits``, the embedding model to ``core.model_choice``). Anything else asks
:func:`current`. ``VARIABLES`` is the one list of what is read; docs/configuration.md has a
row for each (tests/test_docs_registries.py checks it).

Cheap to import (standard library and two small pure modules): every command imports it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Callable, Mapping

from annotator.core.limits import Limits, use_limits
from annotator.core.model_choice import BACKENDS, ModelChoice, use_model


class SettingError(ValueError):
    """An environment variable holds a value the tool cannot use (names it and the value)."""


@dataclass(frozen=True)
class Config:
    instance_path: Path
    database_url: str
    # repr=False: a settings object printed in a log or traceback shows no secret.
    secret_key: str | None = field(default=None, repr=False)
    https: bool = False
    exports_path: Path = field(default_factory=lambda: Path.cwd() / "exports")
    # How long a login lasts (ANNOTATOR_SESSION_HOURS, default 8: a working day).
    session_hours: float = 8.0
    # Reverse proxies in front of the app that set X-Forwarded-For (ANNOTATOR_PROXIES).
    proxies: int = 0
    limits: Limits = field(default_factory=Limits)
    embedding: ModelChoice = field(default_factory=ModelChoice)
    label_studio_url: str | None = None
    label_studio_api_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> "Config":
        """The settings in ``environ`` (default: the process environment); ``overrides``
        replace fields by name (tests and scripts pass a folder or a database URL).
        Raises :class:`SettingError` naming the variable and its value."""
        env = os.environ if environ is None else environ
        values: dict = {}
        groups: dict[str, dict] = {"limits": {}, "embedding": {}}
        for variable in VARIABLES:
            raw = env.get(variable.name)
            if raw not in (None, ""):
                target = groups[variable.group] if variable.group else values
                target[variable.field] = variable.parse(variable.name, raw)
        instance = values.setdefault("instance_path", Path.cwd() / "instance")
        values.setdefault("database_url",
                          f"sqlite:///{(instance / 'annotator.sqlite3').resolve()}")
        values["limits"] = Limits(**groups["limits"])
        values["embedding"] = ModelChoice(**groups["embedding"])
        values.update(overrides)
        return cls(**values)


def _text(name: str, raw: str) -> str:
    return raw


def _path(name: str, raw: str) -> Path:
    return Path(raw)


def _switch(name: str, raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise SettingError(f"{name}={raw!r}: expected 1, true, yes or on (or 0, false, no, off)")


def _count(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise SettingError(f"{name}={raw!r}: expected a whole number") from None


def _positive_count(name: str, raw: str) -> int:
    value = _count(name, raw)
    if value < 1:
        raise SettingError(f"{name}={raw!r}: must be at least 1")
    return value


def _non_negative_count(name: str, raw: str) -> int:
    value = _count(name, raw)
    if value < 0:
        raise SettingError(f"{name}={raw!r}: must be 0 or more")
    return value


def _hours(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise SettingError(f"{name}={raw!r}: expected a number of hours") from None
    if not value > 0 or value == float("inf"):
        raise SettingError(f"{name}={raw!r}: expected a positive number of hours")
    return value


def _backend(name: str, raw: str) -> str:
    if raw not in BACKENDS:
        raise SettingError(f"{name}={raw!r}: expected one of {', '.join(BACKENDS)}")
    return raw


@dataclass(frozen=True)
class Variable:
    """One environment variable of the settings object: ``field`` of :class:`Config` (or of
    its ``limits`` / ``embedding`` group), and the parser that checks the raw text."""

    name: str
    field: str
    parse: Callable[[str, str], object]
    group: str = ""


VARIABLES: tuple[Variable, ...] = (
    Variable("ANNOTATOR_DATABASE_URL", "database_url", _text),
    Variable("ANNOTATOR_INSTANCE_PATH", "instance_path", _path),  # the database's default
    Variable("ANNOTATOR_SECRET_KEY", "secret_key", _text),
    Variable("ANNOTATOR_HTTPS", "https", _switch),
    Variable("ANNOTATOR_EXPORTS_PATH", "exports_path", _path),
    Variable("ANNOTATOR_SESSION_HOURS", "session_hours", _hours),
    Variable("ANNOTATOR_PROXIES", "proxies", _non_negative_count),
    Variable("ANNOTATOR_EMBEDDING_MODEL", "path", _text, "embedding"),
    Variable("ANNOTATOR_EMBEDDING_BACKEND", "backend", _backend, "embedding"),
    Variable("LABEL_STUDIO_URL", "label_studio_url", _text),
    Variable("LABEL_STUDIO_API_KEY", "label_studio_api_key", _text),
    *(Variable(f"ANNOTATOR_{limit.name.upper()}", limit.name, _positive_count, "limits")
      for limit in fields(Limits)),
)

_in_effect: Config | None = None


def use(config: Config) -> Config:
    """Make ``config`` the settings of this process, and hand the pure layers their part."""
    global _in_effect
    _in_effect = config
    use_limits(config.limits)
    use_model(config.embedding)
    return config


def current() -> Config:
    """The settings in effect: those installed by :func:`use`, else the environment's, read
    once on first use."""
    return _in_effect if _in_effect is not None else use(Config.from_env())
