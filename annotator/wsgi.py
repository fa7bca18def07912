"""WSGI entry point for gunicorn: ``gunicorn 'annotator.wsgi:app'``.

Under ``annotator serve --workers N`` the migrations and the start-up queue refresh have
run once before gunicorn started (``MIGRATED_ENV``), so the workers skip them; started by
hand, each worker brings the database up to date itself (idempotent, serialised by the
database). Under gunicorn, responses say ``Server: annotator`` (annotator.web.server_header)."""

import os
import sys

from annotator.app import create_app
from annotator.commands.serve import MIGRATED_ENV

app = create_app(migrate=os.environ.get(MIGRATED_ENV) != "1")
if "gunicorn" in sys.modules:
    from annotator.web.server_header import name_gunicorn

    name_gunicorn()
