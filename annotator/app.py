"""The Flask application factory."""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

from flask import Flask, current_app, g, jsonify, request
from flask.json.provider import DefaultJSONProvider
from flask_wtf.csrf import CSRFProtect

from annotator import __version__
from annotator.config import Config, current, use
from annotator.core import strict_json
from annotator.core.resources import static_dir, templates_dir
from annotator.db import Database
from annotator.evaluation import modes as _task_mode_hooks  # noqa: F401  (registers them)
from annotator.operations import work
from annotator.releases.adopt import adopt_release_folders
from annotator.web import (
    adjudicate,
    api,
    auth,
    dashboard,
    datamanager,
    documents,
    errors,
    evaluation,
    formatting,
    health,
    jobs_panel,
    manage,
    project_create,
    project_schema,
    project_settings,
    project_setup,
    release_metrics,
    releases,
    url_ids,
    validation,
)
from annotator.web.errors import render_error

csrf = CSRFProtect()


def create_app(config: Config | None = None, *, migrate: bool = True) -> Flask:
    """Build the app over one database; ``config`` defaults to the settings in effect (the
    environment's, read once). The app's settings become the process's (:func:`use`)."""
    config = use(config or current())
    app = StrictJSONFlask(
        "annotator",
        template_folder=str(templates_dir()),
        static_folder=str(static_dir()),
        instance_path=str(Path(config.instance_path).resolve()),
    )
    app.config.update(
        SECRET_KEY=config.secret_key or _instance_secret(Path(app.instance_path)),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=config.https,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=config.session_hours),
        WTF_CSRF_TIME_LIMIT=None,  # a token lives as long as the login session
        MAX_CONTENT_LENGTH=config.limits.max_request_bytes,
        ANNOTATOR=config,
    )
    if config.proxies:
        # Behind a reverse proxy every request comes from the proxy: take the client
        # address from X-Forwarded-For (set by that many trusted proxies), or the login
        # throttle's per-address lock would lock out everybody at once.
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.proxies, x_proto=config.proxies)
    database = Database(config.database_url)
    if migrate:
        work.upgrade(database)  # and the queue entries a migration left stale
        # Release folders cut before releases moved into the database: stored once here
        # (a start-up write, never one in a page view).
        with database.session() as session:
            adopt_release_folders(session, config.exports_path)
    app.extensions["annotator_db"] = database
    csrf.init_app(app)
    app.register_error_handler(413, _too_large)

    url_ids.install(app)  # before the blueprints add their <int:...> rules
    # A NUL in a form or query value is refused before anything (login included) reads it.
    app.before_request(validation.refuse_nul_characters)
    app.register_blueprint(auth.bp)  # first: its login check runs before any other hook
    app.register_blueprint(api.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(documents.bp)
    app.register_blueprint(dashboard.bp)
    app.register_blueprint(adjudicate.bp)
    app.register_blueprint(releases.bp)
    app.register_blueprint(release_metrics.bp)
    app.register_blueprint(evaluation.bp)
    app.register_blueprint(datamanager.bp)
    app.register_blueprint(manage.bp)
    app.register_blueprint(project_settings.bp)
    app.register_blueprint(project_create.bp)
    app.register_blueprint(project_setup.bp)
    app.register_blueprint(project_schema.bp)
    formatting.register(app)
    jobs_panel.register(app)
    errors.register(app)

    @app.teardown_appcontext
    def close_session(_exc):
        session = g.pop("db_session", None)
        if session is not None:
            session.close()

    @app.context_processor
    def globals_for_templates():
        return {"app_version": __version__}

    @app.after_request
    def security_headers(response):
        # Model output is untrusted text: besides escaping it, forbid inline script so a
        # payload that slipped through could still not run.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    return app


class StrictJSONProvider(DefaultJSONProvider):
    """JSON out never carries NaN or Infinity (browsers refuse such a page); JSON in
    refuses them (see :mod:`annotator.core.strict_json`)."""

    def dumps(self, obj, **kwargs):
        kwargs.setdefault("allow_nan", False)
        return super().dumps(obj, **kwargs)

    def loads(self, s, **kwargs):
        return strict_json.loads(strict_json.decode_bytes(s) if isinstance(s, bytes) else s)


class StrictJSONFlask(Flask):
    json_provider_class = StrictJSONProvider


def _too_large(exc):
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    message = (f"The request is larger than the limit of {limit:,} bytes "
               "(ANNOTATOR_MAX_REQUEST_BYTES).")
    if request.path.startswith("/api/"):
        return jsonify(error="too large", message=message), 413
    return render_error(413, message)


def _instance_secret(instance: Path) -> str:
    """A random per-installation key for local use (written once under instance/).

    Never a fixed default: a served instance without ANNOTATOR_SECRET_KEY still gets a key
    nobody else knows. `annotator serve` refuses non-loopback hosts without an explicit key.
    """
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key)
    path.chmod(0o600)
    return key
