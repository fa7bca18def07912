"""Annotation page speed on loopback: page render, JSON payload and one edit save.

A 600-token original/simplification pair with 50 suggestions and 20 edits, served by the
real app in-process (werkzeug's make_server in a thread, SQLite in a temporary folder).

    .venv/bin/python benchmarks/bench_annotate_page.py [--rounds 200]

Prints p50/p95 in milliseconds, measured by the client (the full HTTP round trip).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
from werkzeug.serving import make_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotator.annotate.assignment import assign_documents  # noqa: E402
from annotator.app import create_app  # noqa: E402
from annotator.config import Config  # noqa: E402
from annotator.db import Database  # noqa: E402
from annotator.ingest import import_file  # noqa: E402
from annotator.models import Assignment, Edit, Span, Suggestion  # noqa: E402
from annotator.study.accounts import create_user  # noqa: E402
from annotator.study.projects import create_project  # noqa: E402

PASSWORD = "benchmark-password-1"
SENTENCE_SRC = ("In this double-blind trial, {n} adults received ketamine 0.5 mg/kg i.v. "
                "and pain was measured with the NRS (0-10) at 2, 24 and 48 h (p = 0.0{n}).")
SENTENCE_TGT = ("In this study, {n} adults got the drug ketamine during surgery, and their "
                "pain was checked with a score at 2, 24 and 48 hours.")


def build(tmp: Path) -> tuple[object, int, int]:
    url = f"sqlite:///{tmp / 'bench.sqlite3'}"
    db = Database(url)
    db.upgrade()
    source = " ".join(SENTENCE_SRC.format(n=i + 10) for i in range(22))   # ~600 tokens
    target = " ".join(SENTENCE_TGT.format(n=i + 10) for i in range(25))
    records = tmp / "bench.jsonl"
    records.write_text(json.dumps({"id": "bench-1", "source": source, "target": target}) + "\n")
    with db.session() as session:
        lead = create_user(session, "lead", PASSWORD, "lead")
        create_user(session, "ann", PASSWORD, "annotator")
        project = create_project(session, "bench", "infolossqa", leads=[lead])
        import_file(session, project, records)
        assign_documents(session, project, ["ann"], per_document=1)
        assignment = session.query(Assignment).one()
        doc = assignment.document
        src_words = [m.span() for m in re.finditer(r"\S+", source)]
        tgt_words = [m.span() for m in re.finditer(r"\S+", target)]
        for i in range(50):
            a, b = (
                src_words[(i * 11) % len(src_words)][0],
                src_words[(i * 11 + 2) % len(src_words)][1],
            )
            t = tgt_words[(i * 7) % len(tgt_words)]
            session.add(
                Suggestion(
                    document_id=doc.id,
                    kind=("deletion", "oversimplification")[i % 2],
                    method="bench",
                    score=0.5 + i / 100,
                    explanation="benchmark",
                    source_spans=[[a, b]] if b > a else [[a, a + 3]],
                    target_spans=[list(t)] if i % 2 else [],
                )
            )
        for i in range(20):
            a, b = src_words[i * 20][0], src_words[i * 20 + 3][1]
            session.add(
                Edit(
                    assignment=assignment,
                    edit_type="oversimplification",
                    fields={
                        "question": f"What exactly was measured ({i})?",
                        "answer": "Pain on a 0-10 scale.",
                        "severity": 2,
                    },
                    spans=[
                        Span(side="source", start=a, end=b),
                        Span(side="target", start=tgt_words[i][0], end=tgt_words[i][1]),
                    ],
                )
            )
        session.commit()
        edit_id = session.query(Edit).order_by(Edit.id).first().id
        print(f"source {len(src_words)} tokens, target {len(tgt_words)} tokens, "
              f"50 suggestions, 20 edits")
        aid = assignment.id
    db.dispose()
    config = Config.from_env({}, instance_path=tmp / "instance", database_url=url,
                             secret_key="bench", exports_path=tmp / "exports")
    return create_app(config), aid, edit_id


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"p50 {p50:6.1f} ms   p95 {p95:6.1f} ms   (n={len(ms)})"


def timed(fn, rounds: int) -> list[float]:
    for _ in range(5):
        fn()  # warm up
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        app, aid, edit_id = build(Path(folder))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        s = requests.Session()
        login = s.get(f"{base}/login").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', login).group(1)
        s.post(f"{base}/login", data={"username": "ann", "password": PASSWORD, "csrf_token": token})
        page = s.get(f"{base}/assignments/{aid}")
        assert page.status_code == 200 and 'id="annotate"' in page.text
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)
        print(f"page HTML {len(page.content) / 1024:.1f} KiB, JSON "
              f"{len(s.get(f'{base}/api/assignments/{aid}').content) / 1024:.1f} KiB")

        def render():
            assert s.get(f"{base}/assignments/{aid}").status_code == 200

        def payload():
            assert s.get(f"{base}/api/assignments/{aid}").status_code == 200

        state = {"version": s.get(f"{base}/api/assignments/{aid}").json()["edits"][0]["version"]}

        def save():
            r = s.put(f"{base}/api/edits/{edit_id}", headers={"X-CSRFToken": csrf}, json={
                "version": state["version"],
                "fields": {"question": f"What exactly was measured? {state['version']}",
                           "answer": "Pain on a 0-10 scale.", "severity": 2}})
            assert r.status_code == 200, r.text
            state["version"] = r.json()["edit"]["version"]

        print(f"page render (GET /assignments/{aid})     {percentiles(timed(render, args.rounds))}")
        print(
            f"page data   (GET /api/assignments/{aid}) {percentiles(timed(payload, args.rounds))}"
        )
        print(
            f"edit save   (PUT /api/edits/{edit_id})        {percentiles(timed(save, args.rounds))}"
        )
        server.shutdown()


if __name__ == "__main__":
    main()
