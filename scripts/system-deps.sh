#!/usr/bin/env bash
# Installs what the test suite needs outside Python: Debian's Chromium (driven by Playwright)
# and a PostgreSQL server. Idempotent; does nothing when both are present.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium fonts-liberation)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing system packages: ${need[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
