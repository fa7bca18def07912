#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL server on loopback and
# ANNOTATOR_TEST_POSTGRES_URL pointing at it; the server and its files are removed after.
#   scripts/with-postgres.sh .venv/bin/python -m pytest
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PGBIN/initdb" ] || { echo "PostgreSQL is not installed: run scripts/system-deps.sh" >&2; exit 1; }
PORT=${ANNOTATOR_TEST_POSTGRES_PORT:-54329}
DATA=$(mktemp -d /tmp/annotator-pg.XXXXXX)
AS=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$DATA"
  AS=(runuser -u postgres --)
fi
stop() {
  "${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$DATA"
}
trap stop EXIT
echo "==> starting a throw-away PostgreSQL server on 127.0.0.1:$PORT (a few seconds)"
"${AS[@]}" "$PGBIN/initdb" -D "$DATA" -A trust -U postgres -E UTF8 >/dev/null
"${AS[@]}" "$PGBIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
  "-p $PORT -k $DATA -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
export ANNOTATOR_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:$PORT/postgres"
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT"
"$@"
