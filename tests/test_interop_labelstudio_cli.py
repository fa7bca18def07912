"""`annotator labelstudio push|pull` against a stand-in Label Studio server on loopback
(the three REST endpoints the SDK client calls), so the whole path runs over real HTTP."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotator.cli import main
from tests.helpers import write_jsonl

DATA = Path(__file__).parent / "data" / "interop" / "labelstudio"


@pytest.fixture
def fake_label_studio():
    export = json.loads((DATA / "full_export.json").read_text())
    seen = {"requests": [], "tasks": None, "config": None}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, payload):
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            seen["requests"].append(("POST", self.path, self.headers.get("Authorization")))
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path.rstrip("/") == "/api/projects":
                seen["config"] = body["label_config"]
                return self.reply(201, {"id": 12, "title": body["title"]})
            if self.path.startswith("/api/projects/12/import"):
                seen["tasks"] = body
                return self.reply(201, {"task_count": len(body)})
            self.reply(404, {})

        def do_GET(self):
            seen["requests"].append(("GET", self.path, self.headers.get("Authorization")))
            if self.path.startswith("/api/projects/12/export"):
                return self.reply(200, json.dumps(export).encode())
            self.reply(404, {})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()


def test_push_then_pull_and_import(env, tmp_path, fake_label_studio):
    url, seen = fake_label_studio
    runner = CliRunner()
    runner.invoke(main, ["project", "create", "loss", "--schema", "infolossqa"])
    export = json.loads((DATA / "full_export.json").read_text())
    documents = [{"id": t["data"]["document_id"], "source": t["data"]["source"],
                  "target": t["data"]["target"]} for t in export]
    runner.invoke(main, ["import", "loss", str(write_jsonl(tmp_path / "p.jsonl", documents))])
    pushed = runner.invoke(main, ["labelstudio", "push", "loss", "--url", url,
                                  "--token", "secret-token"])
    assert pushed.exit_code == 0, pushed.output
    assert f"pushed {len(documents)} tasks to Label Studio project 12" in pushed.output
    assert seen["config"].startswith("<View>")
    assert [t["data"]["document_id"] for t in seen["tasks"]] == [d["id"] for d in documents]

    pulled = runner.invoke(main, ["labelstudio", "pull", "loss", "12", "--import", "--url", url,
                                  "--token", "secret-token", "--out", str(tmp_path / "ls.json")])
    assert pulled.exit_code == 0, pulled.output
    assert "imported 2 annotations" in pulled.output
    assert json.loads((tmp_path / "ls.json").read_text())[0]["data"]["document_id"] == "d1"
    assert all("secret-token" in (auth or "") for _, _, auth in seen["requests"])


def test_missing_server_settings_are_a_clear_error(env, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    result = CliRunner().invoke(main, ["labelstudio", "push", "loss"])
    assert result.exit_code == 1 and "LABEL_STUDIO_URL" in result.output
