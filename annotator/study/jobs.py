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
serialises writers, so the compare-and-set alone keeps one winner there.

Lanes (issue 44): releases and queue refreshes are claimed before refits, and refits before
pre-highlighting chunks (:data:`LANES`), so a release never waits behind a queue of chunks,
only for a worker to finish the chunk it runs. Of one project, jobs that rewrite
suggestions (pre-highlighting, refit) run one at a time, except pre-highlighting chunks,
which run side by side (each document is written once, under a row lock:
:mod:`annotator.align.store`); releases and queue refreshes, which read no suggestions, run
one at a time among themselves, whatever else runs.

A transient database error (the server restarting: :func:`is_transient`) is no failure of
the job: :func:`retry_later` hands it back with a back-off and keeps the reason; it fails
after :data:`MAX_ATTEMPTS` attempts with every reason.

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

from sqlalchemy import Text, and_, case, cast, delete, exists, func, not_, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, aliased, defer
from sqlalchemy.orm.attributes import set_committed_value

from annotator.core import strict_json
from annotator.core.vocabulary import JOB_KINDS
from annotator.models import Job, WorkerBeat
from annotator.study.job_rows import dedupe_key, new_job_row

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
# Claim order: a lower lane first, then the oldest. Kinds not named (a newer version's) go
# with the refits.
LANES = {"release": 0, "queue-refresh": 0, "refit": 1, "prehighlight": 2}
# Kinds that rewrite a project's suggestions: one at a time per project (chunks aside).
SUGGESTION_WRITERS = ("prehighlight", "refit")
# Back-off after a transient database error: 2, 4, 8, 16... seconds, at most this many.
MAX_BACKOFF_SECONDS = 60.0


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


def enqueue(session: Session, kind: str, project_id: int | None = None,
            payload: dict | None = None, *, key: str | None = None) -> Job:
    """Queue ``kind`` of work for the project (None: the whole installation) in the
    caller's transaction (an import's job commits with the import, or not at all). The
    same kind already queued for the project is that job: queued work runs over whatever
    is there when it starts, so one queued copy is enough. Work that is one of several of
    its kind (a release's version) names itself with ``key``: queued once per key."""
    if kind not in JOB_KINDS:
        raise JobError(f"job kind: expected one of {', '.join(JOB_KINDS)}, got {kind!r}")
    connection = session.connection()
    insert = _dialect_insert(connection.dialect.name)
    for _ in range(3):
        row = new_job_row(kind, project_id, payload, key=key, created_at=now())
        # ON CONFLICT DO NOTHING: of two servers queueing the same work at once, one row
        # stays and neither transaction fails.
        connection.execute(insert(Job.__table__).values(**row).on_conflict_do_nothing(
            index_elements=["dedupe_key"]))
        job = session.scalars(select(Job).where(Job.dedupe_key == row["dedupe_key"])
                              .options(*WITHOUT_JSON)
                              .execution_options(populate_existing=True)).first()
        if job is not None:  # (None: the queued copy was claimed just now; queue again)
            return job
    raise RuntimeError(f"could not queue {dedupe_key(kind, project_id, key)}")


def _dialect_insert(dialect: str):
    """The INSERT with ON CONFLICT of the database in use. Imported here: a command on
    SQLite (every document import queues a job) never loads the PostgreSQL dialect
    (tests/test_cli_startup.py)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert  # only on PostgreSQL (docstring)
    else:
        from sqlalchemy.dialects.sqlite import insert  # only on SQLite (docstring)
    return insert


def _conflicts(other, job):
    """Whether ``other`` running keeps ``job`` (of the same project) waiting: both rewrite
    suggestions (two pre-highlighting chunks aside), or neither does."""
    writes, other_writes = job.kind.in_(SUGGESTION_WRITERS), other.kind.in_(SUGGESTION_WRITERS)
    return or_(and_(writes, other_writes,
                    not_(and_(job.kind == "prehighlight", other.kind == "prehighlight"))),
               and_(not_(writes), not_(other_writes)))


def _busy(job, moment: datetime):
    """A job of ``job``'s project that keeps it waiting: running under a live lease, or an
    older one waiting to be taken over (a dead worker's job resumes before the next)."""
    other = aliased(Job)
    return exists().where(other.project_id == job.project_id, other.id != job.id,
                          other.state == "running", _conflicts(other, job),
                          or_(other.lease_expires_at >= moment, other.id < job.id))


def _ready(moment: datetime):
    """Queued jobs past their back-off, and running ones whose lease expired (their worker
    died), of a project with no conflicting job (:func:`_busy`)."""
    expired = and_(Job.state == "running", Job.lease_expires_at < moment)
    queued = and_(Job.state == "queued",
                  or_(Job.not_before.is_(None), Job.not_before <= moment))
    return and_(or_(queued, expired),
                or_(Job.project_id.is_(None), ~_busy(Job, moment)))


def _lane(job=Job):
    return case(*((job.kind == kind, lane) for kind, lane in LANES.items()),
                else_=LANES["refit"])


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
        # populate_existing: a row this session loaded before (a job it handed back) is
        # read as stored now, or the compare-and-set below would use stale values.
        job = session.scalar(select(Job).where(ready).order_by(_lane(), Job.id).limit(1)
                             .options(*WITHOUT_JSON).with_for_update(skip_locked=True)
                             .execution_options(populate_existing=True))
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
            attempts=attempts + 1, started_at=job.started_at or moment, error="",
            not_before=None)
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
    error = (f"its worker stopped {job.attempts} times while running it (killed, or out of "
             "memory?); not tried again")
    if job.retry_reasons:
        error += "\n" + job.retry_reasons
    session.execute(update(Job).where(Job.id == job.id, Job.state == "running").values(
        state="failed", finished_at=moment, lease_owner=None, lease_expires_at=None,
        error=error[:MAX_ERROR_CHARS]).execution_options(synchronize_session=False))
    session.commit()


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is the database being away (restarting, a dropped connection) rather
    than the job's own fault: worth running the job again once the database is back."""
    if isinstance(exc, (OperationalError, InterfaceError, DisconnectionError)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def backoff_seconds(attempts: int) -> float:
    """The wait before attempt ``attempts + 1``: 2^attempts seconds, at most
    :data:`MAX_BACKOFF_SECONDS`."""
    return min(2.0 ** max(attempts, 1), MAX_BACKOFF_SECONDS)


def retry_later(session: Session, job_id: int, worker_id: str, reason: str) -> bool:
    """After a transient database error: the job held by ``worker_id`` goes back to the
    queue, claimable after :func:`backoff_seconds`, with ``reason`` added to its
    ``retry_reasons``; after :data:`MAX_ATTEMPTS` attempts it fails instead, its error
    naming every reason. False if ``worker_id`` no longer holds the job."""
    row = session.execute(select(Job.attempts, Job.retry_reasons).where(
        Job.id == job_id, Job.lease_owner == worker_id, Job.state == "running")).first()
    if row is None:
        session.commit()
        return False
    attempts, reasons = row
    moment = now()
    line = f"attempt {attempts} at {moment.isoformat(timespec='seconds')}: " + \
        " ".join(reason.split())[:300]
    reasons = f"{reasons}\n{line}" if reasons else line
    if attempts >= MAX_ATTEMPTS:
        values = {"state": "failed", "finished_at": moment, "lease_owner": None,
                  "lease_expires_at": None, "retry_reasons": reasons,
                  "error": (f"the database failed {attempts} attempts in a row; not tried "
                            f"again:\n{reasons}")[:MAX_ERROR_CHARS]}
    else:
        values = {"state": "queued", "lease_owner": None, "lease_expires_at": None,
                  "retry_reasons": reasons,
                  "not_before": moment + timedelta(seconds=backoff_seconds(attempts))}
    return _update_held(session, job_id, worker_id, values)


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


# How a waiting page names jobs ahead: (one, several).
KIND_NAMES = {"prehighlight": ("pre-highlighting chunk", "pre-highlighting chunks"),
              "refit": ("refit", "refits"), "queue-refresh": ("queue refresh", "queue refreshes"),
              "release": ("release", "releases")}


def _counted(count: int, kind: str) -> str:
    one, several = KIND_NAMES.get(kind, (f"{kind} job", f"{kind} jobs"))
    return f"{count} {one if count == 1 else several}"


def waiting_for(session: Session, job_id: int) -> str:
    """What a queued job waits for, from the queue as it is: its back-off after a database
    error, the jobs a worker will claim before it (:data:`LANES`, then age), a job of its
    project it may not run beside, and how many live workers are busy; "" when the job is
    not queued. E.g. "waiting: 3 pre-highlighting chunks ahead, 1 of 1 worker busy"."""
    job = session.scalars(select(Job).where(Job.id == job_id).options(*WITHOUT_JSON)).first()
    if job is None or job.state != "queued":
        return ""
    moment, parts = now(), []
    if job.not_before is not None and aware(job.not_before) > moment:
        parts.append(f"retry after a database error at "
                     f"{aware(job.not_before).isoformat(timespec='seconds')}")
    lane = LANES.get(job.kind, LANES["refit"])
    ahead = or_(_lane() < lane, and_(_lane() == lane, Job.id < job.id))
    for kind, count in session.execute(
            select(Job.kind, func.count()).where(Job.state == "queued", Job.id != job.id, ahead)
            .group_by(Job.kind).order_by(_lane(), Job.kind)):
        parts.append(f"{_counted(count, kind)} ahead")
    if job.project_id is not None:
        other, this = aliased(Job), aliased(Job)
        blocking = session.execute(select(other.kind, func.count()).where(
            this.id == job.id, other.project_id == this.project_id, other.id != this.id,
            other.state == "running", _conflicts(other, this))
            .group_by(other.kind).order_by(other.kind)).all()
        for kind, count in blocking:
            parts.append(f"{_counted(count, kind)} of this project running")
    since = moment - timedelta(seconds=WORKER_ALIVE_SECONDS)
    alive, busy = session.execute(select(func.count(), func.count(WorkerBeat.job_id)).where(
        WorkerBeat.seen_at >= since)).one()
    parts.append(f"{busy} of {alive} worker{'' if alive == 1 else 's'} busy" if alive
                 else "no worker running")
    return "waiting: " + ", ".join(parts)


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
    waiting: str = ""  # what a queued job waits for (:func:`waiting_for`)

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def recent_jobs(session: Session, project_id: int, limit: int = 10) -> list[JobView]:
    """The project's newest jobs, newest first (reads only)."""
    rows = session.scalars(select(Job).where(Job.project_id == project_id)
                           .options(*WITHOUT_JSON).order_by(Job.id.desc()).limit(limit)).all()
    return [JobView(j.id, j.kind, j.state, j.progress_done, j.progress_total,
                    j.error or j.retry_reasons, j.attempts, aware(j.created_at),
                    aware(j.finished_at), waiting_for(session, j.id) if j.state == "queued"
                    else "") for j in rows]
