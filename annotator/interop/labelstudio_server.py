"""Optional push/pull to a running Label Studio server through the SDK client
(``label_studio_sdk.client.LabelStudio``, REST API at labelstud.io/api).

``push`` creates a Label Studio project with the labeling config generated from the
schema and imports the tasks (with annotations and pre-highlights as predictions);
``pull`` downloads the server's JSON export (``GET /api/projects/{id}/export``) to a file
that ``annotator import PROJECT FILE --format labelstudio`` reads. Used only when a URL and
an API token are configured (``LABEL_STUDIO_URL``, ``LABEL_STUDIO_API_KEY``). No server runs
in this project's tests: they check the requests at the HTTP boundary with a mock
transport.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
from label_studio_sdk.client import LabelStudio


def client(url: str | None = None, token: str | None = None,
           http: httpx.Client | None = None) -> LabelStudio:
    url = url or os.environ.get("LABEL_STUDIO_URL")
    token = token or os.environ.get("LABEL_STUDIO_API_KEY")
    if not url or not token:
        raise RuntimeError("set LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (or pass url and "
                           "token) to talk to a Label Studio server")
    return LabelStudio(base_url=url, api_key=token, httpx_client=http)


def push(ls: LabelStudio, title: str, config_xml: str, tasks: list[dict]) -> int:
    """Create a project and import the tasks; returns the Label Studio project id."""
    project = ls.projects.create(title=title, label_config=config_xml)
    ls.projects.import_tasks(id=project.id, request=tasks)
    return project.id


def pull(ls: LabelStudio, project_id: int, out: Path) -> Path:
    """Download the full JSON export of a Label Studio project to ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:
        for chunk in ls.projects.exports.download_sync(project_id, export_type="JSON",
                                                        download_all_tasks=True):
            handle.write(chunk)
    return out
