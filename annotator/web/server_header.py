"""The ``Server:`` response header says ``annotator`` only (issue 41, finding 9).

Never the server software's name and version nor Python's (Werkzeug's development server
sent ``Werkzeug/3.1.3 Python/3.11.2``, gunicorn ``gunicorn``): they only help someone
choose an exploit. Both servers write the header themselves, after the app answered, so each is
told here: :class:`RequestHandler` for the development server (``annotator serve``),
:func:`name_gunicorn` for gunicorn (``annotator serve --workers N``, annotator.wsgi).
"""

from __future__ import annotations

from werkzeug.serving import WSGIRequestHandler

SERVER_HEADER = "annotator"


class RequestHandler(WSGIRequestHandler):
    def version_string(self) -> str:
        return SERVER_HEADER


def name_gunicorn() -> None:
    """Make gunicorn's responses say ``Server: annotator``: gunicorn has no setting for it
    and writes its module constant into every response (gunicorn.http.wsgi.Response)."""
    from gunicorn.http import wsgi  # gunicorn is there only when it serves the app

    wsgi.SERVER = SERVER_HEADER
