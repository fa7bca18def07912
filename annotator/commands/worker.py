"""`annotator worker`: run the background jobs queued in the database (pre-highlighting
imported documents, refits, adjudication queue refreshes, releases)."""

from __future__ import annotations

import logging
import signal

import click

from annotator.commands import open_database
from annotator.core.vocabulary import JOB_KINDS
from annotator.operations.worker import DEFAULT_LEASE_SECONDS, DEFAULT_POLL_SECONDS, Worker


@click.command()
@click.option("--once", is_flag=True, help="Run the jobs that are ready now, then exit.")
@click.option("--poll", "poll_seconds", default=DEFAULT_POLL_SECONDS, show_default=True,
              type=click.FloatRange(0.1, 3600), metavar="S",
              help="Seconds between looks at the queue when it is empty.")
@click.option("--lease", "lease_seconds", default=DEFAULT_LEASE_SECONDS, show_default=True,
              type=click.FloatRange(2, 86400), metavar="S",
              help="How long a claim on a job holds without a heartbeat: a job of a worker "
              "that died is claimed again this long after its last heartbeat.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(JOB_KINDS),
              help="Run only jobs of this kind (repeat for several; default: every kind), "
              "e.g. a worker on a larger machine for pre-highlighting.")
def worker(once, poll_seconds, lease_seconds, kinds):
    """Run background jobs: pre-highlighting, refits, queue refreshes, releases.

    Any number of workers may run, on any machines sharing the database: each job is
    claimed by one of them. `annotator serve` runs one itself unless started with
    --no-worker. SIGTERM or Ctrl+C hands the running job back to the queue.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    database = open_database()
    runner = Worker(database, lease_seconds=lease_seconds, poll_seconds=poll_seconds,
                    kinds=kinds or None)

    def stop(_signum, _frame):
        runner.stop()

    before = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGINT)}
    click.echo(f"worker {runner.id} started" + (" (until the queue is empty)" if once else ""))
    try:
        ran = runner.run(once=once)
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
    click.echo(f"worker {runner.id} stopped after {ran} job{'' if ran == 1 else 's'}")
    database.dispose()
