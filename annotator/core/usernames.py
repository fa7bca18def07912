"""The one rule for a username: the web form, the command line and every importer (which
must refuse such a name with FILE:LINE before anything is stored) ask it here. Pure, so a
file reader can check names without loading the database layer."""

from __future__ import annotations

from annotator.core.shown import got

MAX_USERNAME_LENGTH = 80


def username_problem(username: str) -> str | None:
    """Why ``username`` cannot name an account, or None. Control characters (NUL, ESC) are
    refused: a name is shown in terminals and file names."""
    if (not username or len(username) > MAX_USERNAME_LENGTH
            or any(c.isspace() or not c.isprintable() for c in username)):
        return (f"username: 1-{MAX_USERNAME_LENGTH} characters, no spaces or control "
                f"characters" + got(username))
    return None
