#!/usr/bin/env bash
# Runs a command with a throw-away Label Studio server on loopback, and
# ANNOTATOR_TEST_LABELSTUDIO_URL / ANNOTATOR_TEST_LABELSTUDIO_TOKEN (plus the login of its
# one user: ANNOTATOR_TEST_LABELSTUDIO_EMAIL / ..._PASSWORD) pointing at it. The server's
# data folder is removed after.
#   scripts/with-labelstudio.sh .venv/bin/python -m pytest -m labelstudio
#
# Label Studio is installed from PyPI into its own virtual environment (LABELSTUDIO_VENV,
# default .venv-labelstudio next to this repository's .venv), kept between runs: its Django
# pins must not meet the project's dependencies. A first install takes about 3 minutes.
# Analytics, error reporting and version checks are off; the server binds 127.0.0.1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=${LABELSTUDIO_VERSION:-1.23.2}
LSVENV=${LABELSTUDIO_VENV:-$ROOT/.venv-labelstudio}
PORT=${ANNOTATOR_TEST_LABELSTUDIO_PORT:-54380}
PYTHON=${PYTHON:-python3}

# Long steps go through scripts/heartbeat.sh: never silent for more than 20 s (issue 47).
# Usual times: measured on a 2-core machine, 2026-11-27 (docs/benchmarks.md, "How long things take").
BEAT="$ROOT/scripts/heartbeat.sh"
if [ ! -f "$LSVENV/.installed-$VERSION" ]; then
  echo "==> installing label-studio $VERSION into $LSVENV (once; about 3 min)"
  bash "$BEAT" "creating $LSVENV" "about 30 s" -- "$PYTHON" -m venv "$LSVENV"
  bash "$BEAT" "upgrading pip in $LSVENV" "about 5 s" -- \
    "$LSVENV/bin/python" -m pip install --quiet --upgrade pip
  bash "$BEAT" "installing label-studio $VERSION" "about 2.5 min" -- \
    "$LSVENV/bin/python" -m pip install --quiet "label-studio==$VERSION"
  touch "$LSVENV/.installed-$VERSION"
fi

DATA=$(mktemp -d "${TMPDIR:-/tmp}/annotator-ls.XXXXXX")
EMAIL=lead@annotator.test
PASSWORD=annotator-test-password
TOKEN=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
SERVER_PID=
stop() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$DATA"
}
trap stop EXIT

export LABEL_STUDIO_BASE_DATA_DIR="$DATA" \
  COLLECT_ANALYTICS=false LATEST_VERSION_CHECK=false SENTRY_DSN= FRONTEND_SENTRY_DSN= \
  LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK=true LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true \
  DJANGO_DB=sqlite LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=false
"$LSVENV/bin/label-studio" start --no-browser --internal-host 127.0.0.1 --port "$PORT" \
  --data-dir "$DATA" --username "$EMAIL" --password "$PASSWORD" --user-token "$TOKEN" \
  --enable-legacy-api-token --log-level WARNING >"$DATA/server.log" 2>&1 &
SERVER_PID=$!

URL="http://127.0.0.1:$PORT"
ready() {
  "$LSVENV/bin/python" - "$URL/api/current-user/whoami" "$TOKEN" <<'PY' 2>/dev/null
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], headers={"Authorization": f"Token {sys.argv[2]}"})
urllib.request.urlopen(request, timeout=5).read()
PY
}
# The first start runs Django's migrations: allow several minutes on a busy small machine.
STARTED=$(date +%s)
SAID=$STARTED
echo "==> starting Label Studio $VERSION on $URL: a fresh data folder, so Django's migrations run first (usually about 3.5 min)"
until ready; do
  if [ $(( $(date +%s) - SAID )) -ge 15 ]; then  # a check takes a few s: beat at least every 20 s
    SAID=$(date +%s)
    echo "    ... waiting for Label Studio to answer on $URL (Django migrations): $(( SAID - STARTED )) s so far"
  fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "Label Studio did not start:" >&2
    tail -n 40 "$DATA/server.log" >&2
    exit 1
  fi
  if [ $(( $(date +%s) - STARTED )) -gt 900 ]; then
    echo "Label Studio did not answer on $URL within 900 s" >&2
    tail -n 40 "$DATA/server.log" >&2
    exit 1
  fi
  sleep 2
done
export ANNOTATOR_TEST_LABELSTUDIO_URL="$URL" ANNOTATOR_TEST_LABELSTUDIO_TOKEN="$TOKEN" \
  ANNOTATOR_TEST_LABELSTUDIO_EMAIL="$EMAIL" ANNOTATOR_TEST_LABELSTUDIO_PASSWORD="$PASSWORD"
echo "Label Studio $VERSION on $URL (ready after $(( $(date +%s) - STARTED )) s)"
"$@"
