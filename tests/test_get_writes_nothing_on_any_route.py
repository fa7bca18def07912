"""Issue 30: a GET never writes. Every GET route of the app, filled with each project's
objects as in the role walk, is requested by every person while the engine's SQL is
recorded; no INSERT, UPDATE or DELETE may appear (docs/architecture.md, "Reads and
writes"). Runs on SQLite and, in CI, on PostgreSQL."""

from __future__ import annotations

import re

from sqlalchemy import event

from tests.test_role_route_walk import PEOPLE, _instances, _rules, _send, world  # noqa: F401

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|UPSERT|MERGE)\b", re.IGNORECASE)


def test_no_get_route_writes_for_anyone(app, world):  # noqa: F811
    statements: list[tuple[str, str]] = []
    where = {"now": ""}

    def record(_conn, _cursor, statement, _params, _context, _many):
        statements.append((where["now"], statement))

    engine = app.extensions["annotator_db"].engine  # the app's own engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        requested = 0
        for rule in _rules(app):
            if "GET" not in rule.methods:
                continue
            for path, _project, _owner, _target in _instances(world, rule):
                for viewer in PEOPLE:
                    where["now"] = f"{viewer} GET {path}"
                    assert _send(world, viewer, "GET", path).status_code < 500, where["now"]
                    requested += 1
    finally:
        event.remove(engine, "before_cursor_execute", record)
    writes = [(who, sql.split("\n")[0][:120]) for who, sql in statements if WRITE.match(sql)]
    assert requested > 100 and len(statements) > requested  # the recorder saw the reads
    assert writes == []
