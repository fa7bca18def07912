"""Configuration from ``ANNOTATOR_*`` environment variables.

Every command and the web app read the same settings, so a lead can point the whole tool at
PostgreSQL with one variable (``ANNOTATOR_DATABASE_URL``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Config:
    instance_path: Path
    database_url: str
    secret_key: str | None
    embedding_model: str | None
    https: bool
    exports_path: Path
    # How long a login lasts (ANNOTATOR_SESSION_HOURS, default 8: a working day).
    session_hours: float = 8.0
    # Reverse proxies in front of the app that set X-Forwarded-For (ANNOTATOR_PROXIES).
    proxies: int = 0

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides) -> "Config":
        env = os.environ if environ is None else environ
        instance = Path(env.get("ANNOTATOR_INSTANCE_PATH") or Path.cwd() / "instance")
        values = dict(
            instance_path=instance,
            database_url=env.get("ANNOTATOR_DATABASE_URL")
            or f"sqlite:///{(instance / 'annotator.sqlite3').resolve()}",
            secret_key=env.get("ANNOTATOR_SECRET_KEY") or None,
            embedding_model=env.get("ANNOTATOR_EMBEDDING_MODEL") or None,
            https=env.get("ANNOTATOR_HTTPS", "").lower() in ("1", "true", "yes"),
            exports_path=Path(env.get("ANNOTATOR_EXPORTS_PATH") or Path.cwd() / "exports"),
            session_hours=float(env.get("ANNOTATOR_SESSION_HOURS") or 8.0),
            proxies=int(env.get("ANNOTATOR_PROXIES") or 0),
        )
        values.update(overrides)
        return cls(**values)

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
