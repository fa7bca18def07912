"""Send one schema file to every page that reads an upload (new-project preview, project
creation, schema revision preview and apply) and to the commands that read a file
(``annotator schema show``, ``project create``), inside a process whose address space
is limited: run by tests/test_schema_upload_limits.py for the alias bomb, so a regression
fails with MemoryError instead of eating the machine's memory (issue 41).

``python -m tests.schema_upload_probe FOLDER SCHEMA_FILE MEMORY_BYTES`` prints, as JSON,
{what: [HTTP status or exit code, the answer's text (and an exception that escaped
a command)]}.
"""

from __future__ import annotations

import io
import json
import resource
import sys
from pathlib import Path

from click.testing import CliRunner


def _limit_memory(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def probe(folder: Path, schema_file: Path) -> dict[str, list]:
    from annotator.app import create_app
    from annotator.cli import main as cli
    from annotator.config import Config
    from annotator.models import User
    from annotator.study.accounts import create_user
    from annotator.study.projects import create_project
    from tests.conftest import PASSWORD, csrf_token, login

    database_url = f"sqlite:///{folder / 'probe.sqlite3'}"
    config = Config.from_env({}, instance_path=folder / "instance", database_url=database_url,
                             secret_key="probe-secret", exports_path=folder / "exports")
    app = create_app(config)
    with app.extensions["annotator_db"].session() as session:
        lead = create_user(session, "lee", PASSWORD, "lead")
        project_id = create_project(session, "trial", "infolossqa",
                                    leads=[session.get(User, lead.id)]).id
    client = app.test_client()
    assert login(client, "lee").status_code == 302
    token = csrf_token(client, "/my")
    content = schema_file.read_bytes()

    def send(url: str, **form) -> list:
        data = {"csrf_token": token, "schema_file": (io.BytesIO(content), schema_file.name),
                **form}
        answer = client.post(url, data=data, content_type="multipart/form-data")
        return [answer.status_code, answer.get_data(as_text=True)]

    results = {
        "preview": send("/projects/new/preview", schema_source="file"),
        "create": send("/projects/new", schema_source="file", name="bomb",
                       annotators_per_doc="2"),
        "revision preview": send(f"/projects/{project_id}/schema/preview"),
        "revision": send(f"/projects/{project_id}/schema"),
    }
    env = {"ANNOTATOR_DATABASE_URL": database_url}
    for what, args in (("schema show", ["schema", "show", str(schema_file)]),
                       ("project create", ["project", "create", "bomb", "--schema",
                                           str(schema_file)])):
        ran = CliRunner().invoke(cli, args, env=env)
        # SystemExit is a clean refusal; anything else escaped the command (a traceback).
        escaped = "" if isinstance(ran.exception, SystemExit) else repr(ran.exception)
        results[what] = [ran.exit_code, ran.output + escaped]
    return results


if __name__ == "__main__":
    _limit_memory(int(sys.argv[3]))
    print(json.dumps(probe(Path(sys.argv[1]), Path(sys.argv[2]))))
