"""Background work as rows of the ``jobs`` table: enqueue, claim under a lease, heartbeat,
finish; a job whose worker died (its lease expired) is claimed again by another worker.

Why a table and not a task library (procrastinate, RQ, Celery): the work is a handful of
job kinds per study, the database is already the one thing every server shares, and the
same code must run on the embedded SQLite (one machine, no extra server) and on
PostgreSQL (several servers). RQ and Celery need a Redis or a broker; procrastinate is
PostgreSQL-only. A row also makes progress and failures plain data for the project page.

Claiming (:func:`claim`) selects the oldest ready job ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL (two workers never wait on, nor take, the same row) and then takes it with a
compare-and-set ``UPDATE ... WHERE state = <as read>``; SQLite ignores ``FOR UPDATE`` and
serialises writers, so the compare-and-set alone keeps one winner there. Jobs of one
project run one at a time (a refit and a pre-highlighting run both rewrite suggestions).

A job's payload and result are JSON this tool wrote, but a row may have been changed by
hand, restored from elsewhere or written by another version. Nothing here loads them
through the ORM's JSON type (one unreadable row would raise wherever it is loaded: in the
worker as it claims, on every page listing jobs): :func:`stored_json` reads the stored text
and parses it with the strict, bounded parser; a claimed job whose payload cannot be read
is failed with the reason, and the worker claims the next (issue 41, finding 7).

Times are UTC from each process's clock: servers of one deployment keep their clocks in
step (NTP), and leases are tens of seconds, far above any sane skew.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import Text, and_, cast, delete, exists, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, aliased, defer
from sqlalchemy.orm.attributes import set_committed_value

from annotator.core import strict_json
from annotator.core.vocabulary import JOB_KINDS
from annotator.models import Job, WorkerBeat

# A job whose worker died this many times is failed instead of claimed again (work that
# kills its worker, e.g. by running out of memory, must not loop forever).
MAX_ATTEMPTS = 5
# A worker whose newest heartbeat is older than this counts as gone (/healthz). Workers
# beat at least every 5 s (annotator.operations.worker), so this allows several missed.
WORKER_ALIVE_SECONDS = 30.0
# Error text kept on the row (the full traceback goes to the worker's log).
MAX_ERROR_CHARS = 2000
# A payload or result is a few small fields; a larger stored text is not one this tool
# wrote, and is not parsed.
MAX_STORED_JSON_CHARS = 100_000
# Load a Job without its JSON columns (read them with :func:`stored_json`).
WITHOUT_JSON = (defer(Job.payload), defer(Job.result))


class JobError(ValueError):
    """An unknown job kind."""


class JobRefused(Exception):
    """The work was refused for a reason its user reads (a taken release version): the job
    fails with this message alone, no traceback."""


class UnreadableJSON(ValueError):
    """A job's stored payload or result that is not a JSON object this tool can read."""


def parse_stored(raw: str | bytes | None) -> dict:
    """The JSON object stored as ``raw`` (None: empty), or :class:`UnreadableJSON` saying
    why not, in a bounded message (the strict parser: no 5,000-digit numbers, no NaN, no
    hostile nesting)."""
    if raw is None:
        return {}
    if isinstance(raw, bytes):
        try:
            raw = strict_json.decode_bytes(raw)
        except strict_json.StrictJSONError as exc:
            raise UnreadableJSON(str(exc)) from None
    if len(raw) > MAX_STORED_JSON_CHARS:
        raise UnreadableJSON(f"{len(raw):,} characters, more than the "
                             f"{MAX_STORED_JSON_CHARS:,} a job stores")
    try:
        value = strict_json.loads(raw)
    except strict_json.StrictJSONError as exc:
        raise UnreadableJSON(str(exc)) from None
    problem = strict_json.value_problem(value)
    if problem:
        raise UnreadableJSON(f"{problem[0]}: {problem[1]}"[:300])
    if not isinstance(value, dict):
        kind = {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
            type(value), "number")
        raise UnreadableJSON(f"a JSON {kind}, not an object")
    return value


def stored_json(session: Session | Connection, column,
                job_ids) -> dict[int, dict | UnreadableJSON]:
    """``column`` (``Job.payload`` or ``Job.result``) of each job: the object, or the
    :class:`UnreadableJSON` saying why it cannot be read. Read as stored text (on
    PostgreSQL the json value cast to text), so no row can make the read itself fail."""
    ids = sorted(set(job_ids))
    if not ids:
        return {}
    found: dict[int, dict | UnreadableJSON] = {}
    for job_id, raw in session.execute(select(Job.id, cast(column, Text)).where(
            Job.id.in_(ids))):
        try:
            found[job_id] = parse_stored(raw)
        except UnreadableJSON as exc:
            found[job_id] = exc
    return found


def readable_or_empty(value: dict | UnreadableJSON) -> dict:
    """For pages: an unreadable object shows as empty (its job states the reason)."""
    return {} if isinstance(value, UnreadableJSON) else value


class LeaseLost(RuntimeError):
    """The worker's claim on its job expired and another worker took the job over."""


def now() -> datetime:
    return datetime.now(timezone.utc)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive datetimes (stored as UTC): make them comparable."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


def _dedupe_key(kind: str, project_id: int | None, key: str | None = None) -> str:
    base = f"{kind}:{project_id if project_id is not None else '*'}"
    return base if key is None else f"{base}:{key}"


def enqueue(session: Session, kind: str, project_id: int | None = None,
            payload: dict | None = None, *, key: str | None = None) -> Job:
    """Queue ``kind`` of work for the project (None: the whole installation) in the
    caller's transaction (an import's job commits with the import, or not at all). The
    same kind already queued for the project is that job: queued work runs over whatever
    is there when it starts, so one queued copy is enough. Work that is one of several of
    its kind (a release's version) names itself with ``key``: queued once per key."""
    if kind not in JOB_KINDS:
        raise JobError(f"job kind: expected one of {', '.join(JOB_KINDS)}, got {kind!r}")
    key = _dedupe_key(kind, project_id, key)
    connection = session.connection()
    insert = _dialect_insert(connection.dialect.name)
    for _ in range(3):
        # ON CONFLICT DO NOTHING: of two servers queueing the same work at once, one row
        # stays and neither transaction fails.
        connection.execute(insert(Job.__table__).values(
            kind=kind, project_id=project_id, payload=dict(payload or {}), dedupe_key=key,
            state="queued", progress_done=0, progress_total=0, error="", result={},
            attempts=0, created_at=now()).on_conflict_do_nothing(index_elements=["dedupe_key"]))
        job = session.scalars(select(Job).where(Job.dedupe_key == key).options(*WITHOUT_JSON)
                              .execution_options(populate_existing=True)).first()
        if job is not None:  # (None: the queued copy was claimed just now; queue again)
            return job
    raise RuntimeError(f"could not queue {key}")


def _dialect_insert(dialect: str):
    """The INSERT with ON CONFLICT of the database in use. Imported here: a command on
    SQLite (every document import queues a job) never loads the PostgreSQL dialect
    (tests/test_cli_startup.py)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert  # only on PostgreSQL (docstring)
    else:
        from sqlalchemy.dialects.sqlite import insert  # only on SQLite (docstring)
    return insert


def _ready(moment: datetime):
    """Queued jobs, and running ones whose lease expired (their worker died), of a project
    with no other job running under a live lease, nor an older one waiting to be taken
    over (so a dead worker's job resumes before the project's next job starts)."""
    other = aliased(Job)
    busy = exists().where(other.project_id == Job.project_id, other.id != Job.id,
                          other.state == "running",
                          or_(other.lease_expires_at >= moment, other.id < Job.id))
    expired = and_(Job.state == "running", Job.lease_expires_at < moment)
    return and_(or_(Job.state == "queued", expired),
                or_(Job.project_id.is_(None), ~busy))


def claim(session: Session, worker_id: str, lease_seconds: float, *,
          kinds: tuple[str, ...] | None = None) -> Job | None:
    """Take the oldest ready job (of ``kinds``, None: any) for ``worker_id`` until
    ``lease_seconds`` from now and commit; None when nothing is ready. A job claimed
    :data:`MAX_ATTEMPTS` times already whose lease expired again is failed here instead, and
    so is a job whose payload cannot be read (:func:`stored_json`), with the reason.

    The returned job's ``payload`` is the parsed object; its ``result`` is not loaded."""
    races = 0
    while races < 20:  # lost compare-and-set races (SQLite) retry with the next job
        moment = now()
        ready = _ready(moment) if kinds is None else and_(_ready(moment), Job.kind.in_(kinds))
        job = session.scalar(select(Job).where(ready).order_by(Job.id).limit(1)
                             .options(*WITHOUT_JSON).with_for_update(skip_locked=True))
        if job is None:
            session.commit()
            return None
        state, attempts = job.state, job.attempts
        if state == "running" and attempts >= MAX_ATTEMPTS:
            _finish_expired(session, job, moment)
            continue
        taken = session.execute(update(Job).where(Job.id == job.id, Job.state == state,
                                                  Job.attempts == attempts).values(
            state="running", dedupe_key=None, lease_owner=worker_id,
            lease_expires_at=moment + timedelta(seconds=lease_seconds),
            attempts=attempts + 1, started_at=job.started_at or moment, error="")
            .execution_options(synchronize_session=False)).rowcount
        session.commit()
        if taken == 1:
            job = session.scalars(select(Job).where(Job.id == job.id).options(*WITHOUT_JSON)
                                  .execution_options(populate_existing=True)).one()
            payload = stored_json(session, Job.payload, [job.id])[job.id]
            if isinstance(payload, UnreadableJSON):
                finish(session, job.id, worker_id,
                       error=f"payload unreadable, job not run: {payload}")
                continue
            set_committed_value(job, "payload", payload)
            return job
        races += 1
    return None


def _finish_expired(session: Session, job: Job, moment: datetime) -> None:
    session.execute(update(Job).where(Job.id == job.id, Job.state == "running").values(
        state="failed", finished_at=moment, lease_owner=None, lease_expires_at=None,
        error=f"its worker stopped {job.attempts} times while running it (killed, or out of "
              "memory?); not tried again").execution_options(synchronize_session=False))
    session.commit()


def extend(session: Session, job_id: int, worker_id: str, lease_seconds: float,
           progress: tuple[int, int] | None = None) -> None:
    """The running worker's heartbeat: hold the lease ``lease_seconds`` longer and store
    the progress; raises :class:`LeaseLost` if another worker holds the job now."""
    values = {"lease_expires_at": now() + timedelta(seconds=lease_seconds)}
    if progress is not None:
        values.update(progress_done=progress[0], progress_total=progress[1])
    if not _update_held(session, job_id, worker_id, values):
        raise LeaseLost(f"job {job_id}: the lease of {worker_id} expired and the job was "
                        "taken over")


def finish(session: Session, job_id: int, worker_id: str, *, error: str | None = None,
           result: dict | None = None, progress: tuple[int, int] | None = None) -> bool:
    """Mark the job done (or failed with ``error``) if ``worker_id`` still holds it; False
    if another worker took it over meanwhile (that worker finishes it)."""
    values = {"state": "failed" if error is not None else "done", "finished_at": now(),
              "lease_owner": None, "lease_expires_at": None, "error": (error or "")[
                  :MAX_ERROR_CHARS], "result": dict(result or {})}
    if progress is not None:
        values.update(progress_done=progress[0], progress_total=progress[1])
    return _update_held(session, job_id, worker_id, values)


def hand_back(session: Session, job_id: int, worker_id: str) -> None:
    """A stopping worker puts its running job back in the queue for another worker."""
    _update_held(session, job_id, worker_id,
                 {"state": "queued", "lease_owner": None, "lease_expires_at": None})


def _update_held(session: Session, job_id: int, worker_id: str, values: dict) -> bool:
    """Apply ``values`` to the job if ``worker_id`` still holds it running, and commit;
    whether it did (the one compare-and-set every change of a held job goes through)."""
    held = session.execute(update(Job).where(
        Job.id == job_id, Job.lease_owner == worker_id, Job.state == "running")
        .values(**values).execution_options(synchronize_session=False)).rowcount
    session.commit()
    return held == 1


def beat(session: Session, worker_id: str, job_id: int | None = None) -> None:
    """Record that ``worker_id`` is alive (and which job it runs)."""
    moment = now()
    seen = session.execute(update(WorkerBeat).where(WorkerBeat.worker_id == worker_id)
                           .values(seen_at=moment, job_id=job_id)
                           .execution_options(synchronize_session=False)).rowcount
    if not seen:
        session.add(WorkerBeat(worker_id=worker_id, started_at=moment, seen_at=moment,
                               job_id=job_id))
    session.commit()


def forget_worker(session: Session, worker_id: str) -> None:
    """A worker that stops cleanly removes its heartbeat row."""
    session.execute(delete(WorkerBeat).where(WorkerBeat.worker_id == worker_id))
    session.commit()


def forget_silent_workers(session: Session, seconds: float = 3600) -> int:
    """Remove the heartbeat rows of workers silent for ``seconds`` (killed ones never
    remove their own); returns how many."""
    gone = session.execute(delete(WorkerBeat).where(
        WorkerBeat.seen_at < now() - timedelta(seconds=seconds))).rowcount
    session.commit()
    return gone


def newest_beat(session: Session | Connection) -> datetime | None:
    """When a worker last showed a sign of life (None: never)."""
    return aware(session.scalar(select(WorkerBeat.seen_at).order_by(
        WorkerBeat.seen_at.desc()).limit(1)))


@dataclass
class JobView:
    """A job as the project page shows it."""

    id: int
    kind: str
    state: str
    done: int
    total: int
    error: str
    attempts: int
    created_at: datetime | None
    finished_at: datetime | None

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def recent_jobs(session: Session, project_id: int, limit: int = 10) -> list[JobView]:
    """The project's newest jobs, newest first (reads only)."""
    rows = session.scalars(select(Job).where(Job.project_id == project_id)
                           .options(*WITHOUT_JSON).order_by(Job.id.desc()).limit(limit)).all()
    return [JobView(j.id, j.kind, j.state, j.progress_done, j.progress_total, j.error,
                    j.attempts, aware(j.created_at), aware(j.finished_at)) for j in rows]
