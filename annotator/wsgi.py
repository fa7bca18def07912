"""WSGI entry point for gunicorn: ``gunicorn 'annotator.wsgi:app'``."""

from annotator.app import create_app

app = create_app()
