"""Push to and pull from a running Label Studio server through the SDK client
(``label_studio_sdk.client.LabelStudio``, REST API at labelstud.io/api).

``push`` creates a Label Studio project with the project's labeling config (the study's own
config for a project made from one, else the one generated from the schema) and imports the
tasks with every annotator's work and the pre-highlights as predictions. Label Studio files
work under a member's e-mail and refuses unknown ones, so :func:`check_people` runs first and
nothing is created on the server unless every annotator is a member there.

``pull`` downloads the server's full JSON export (``GET /api/projects/{id}/export``) to a
file that ``annotator import PROJECT FILE --format labelstudio`` reads, and returns the
server's user ids -> e-mails, so the work lands on the accounts that carry those e-mails.
Used with a URL and an API token (the command passes ``LABEL_STUDIO_URL`` and
``LABEL_STUDIO_API_KEY`` from the settings object, ``annotator.config``); the tests
run against a real server started by ``scripts/with-labelstudio.sh``.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import httpx
from label_studio_sdk.client import LabelStudio
from label_studio_sdk.core.api_error import ApiError


class PushRefused(RuntimeError):
    """The push would fail half-way on the server; nothing was created."""


class ServerUnreachable(RuntimeError):
    """The server could not be reached, or answered an error: one line for the user."""


@contextmanager
def talking_to(url: str | None):
    """Turn the HTTP client's and the SDK's exceptions into :class:`ServerUnreachable`
    naming the server, so a command prints one line instead of a traceback."""
    try:
        yield
    except httpx.HTTPError as exc:
        raise ServerUnreachable(f"cannot reach Label Studio at {url}: "
                                f"{type(exc).__name__}: {exc}") from exc
    except ApiError as exc:
        body = str(exc.body)[:200] if exc.body is not None else ""
        raise ServerUnreachable(f"Label Studio at {url} answered {exc.status_code}"
                                + (f": {body}" if body else "")) from exc


def client(url: str | None = None, token: str | None = None,
           http: httpx.Client | None = None) -> LabelStudio:
    if not url or not token:
        raise RuntimeError("set LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (or pass url and "
                           "token) to talk to a Label Studio server")
    return LabelStudio(base_url=url, api_key=token, httpx_client=http)


def server_users(ls: LabelStudio) -> dict[int, str]:
    """Label Studio user id -> e-mail, for every member the server lists."""
    return {u.id: u.email for u in ls.users.list() if u.email}


def check_people(ls: LabelStudio, emails: dict[str, str]) -> None:
    """``emails``: annotator -> e-mail. Raises PushRefused naming whoever the server does
    not know."""
    known = set(server_users(ls).values())
    missing = sorted(f"{name} ({email})" for name, email in emails.items()
                     if email not in known)
    if missing:
        raise PushRefused("Label Studio has no member with the e-mail of: "
                          + ", ".join(missing) + ". Invite them there (or give their "
                          "accounts the e-mail they use there) and push again; nothing was "
                          "created on the server.")


def push(ls: LabelStudio, title: str, config_xml: str, tasks: list[dict]) -> int:
    """Create a project and import the tasks; returns the Label Studio project id. If the
    import fails, the new project is deleted again."""
    project = ls.projects.create(title=title, label_config=config_xml)
    try:
        ls.projects.import_tasks(id=project.id, request=tasks)
    except Exception:
        ls.projects.delete(id=project.id)
        raise
    return project.id


def pull(ls: LabelStudio, project_id: int, out: Path) -> Path:
    """Download the full JSON export of a Label Studio project to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:
        for chunk in ls.projects.exports.download_sync(project_id, export_type="JSON",
                                                        download_all_tasks=True):
            handle.write(chunk)
    return out
