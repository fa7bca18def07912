#!/usr/bin/env bash
# Runs one long set-up step so that it never stays silent (issue 47): says what it does and
# how long it usually takes, prints a line with the elapsed time every HEARTBEAT_SECONDS
# (default 20) while the command runs, and how long it took at the end. The command's own
# output passes through; its exit status is this script's.
#   scripts/heartbeat.sh "installing torch (CPU build)" "about 4 min" -- pip install torch
set -uo pipefail
if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  echo "usage: $0 WHAT USUALLY -- COMMAND [ARG...]" >&2
  exit 2
fi
WHAT=$1
USUALLY=$2
shift 3
INTERVAL=${HEARTBEAT_SECONDS:-20}
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }

echo "==> $WHAT (usually $USUALLY)"
# The beat runs beside the command, which keeps the foreground (its stdin, Ctrl-C).
(
  next=$INTERVAL
  while sleep 1; do
    if [ "$(elapsed)" -ge "$next" ]; then
      echo "    ... still $WHAT: $(elapsed) s so far (usually $USUALLY)"
      next=$(( next + INTERVAL ))
    fi
  done
) &
BEAT=$!
trap 'kill "$BEAT" 2>/dev/null' EXIT
"$@"
STATUS=$?
kill "$BEAT" 2>/dev/null
wait "$BEAT" 2>/dev/null
if [ "$STATUS" -eq 0 ]; then
  echo "==> done in $(elapsed) s: $WHAT"
else
  echo "==> failed after $(elapsed) s (exit $STATUS): $WHAT" >&2
fi
exit "$STATUS"
