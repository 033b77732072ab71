#!/usr/bin/env bash
# Provision PostgreSQL with pgvector for the integration tests of the shared team
# store (issue 23), from a registry package: the PyPI wheel pgserver==0.1.4 ships
# PostgreSQL 16.2 with pgvector 0.6.2 built in (and pg_config and the server
# headers). Installed into a venv; prints the folder holding initdb, pg_ctl, psql.
#
# Usage: scripts/provision-postgres.sh [venv]
#   venv = $1, else $AGENTOS_PG_VENV, else /tmp/agentos-pgserver-venv
#
# The venv is outside the user's home on purpose: initdb and postgres refuse to run
# as root, so the tests run them as `nobody` (test/helpers/postgres.ts), who must be
# able to read the binaries. Idempotent: a venv that already has it is reused.
set -euo pipefail
VENV="${1:-${AGENTOS_PG_VENV:-/tmp/agentos-pgserver-venv}}"
# A fixed path under /tmp could be planted by another user: reuse it only when it is ours alone.
if [ -e "$VENV" ]; then
  owner="$(stat -c %u "$VENV")"
  mode="$(stat -c %a "$VENV")"
  if [ "$owner" != "$(id -u)" ] || [ $(( 8#$mode & 8#022 )) -ne 0 ]; then
    echo "provision-postgres: $VENV is not yours alone (owner uid $owner, mode $mode); remove it or set AGENTOS_PG_VENV" >&2
    exit 1
  fi
fi
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" >&2
fi
# find_spec: where the package is, without importing it (its import wants a runtime folder).
FIND='import importlib.util as u; s = u.find_spec("pgserver"); print(s.submodule_search_locations[0] if s else "")'
if [ -z "$("$VENV/bin/python" -c "$FIND")" ]; then
  "$VENV/bin/pip" install -q --disable-pip-version-check pgserver==0.1.4 >&2
fi
echo "$("$VENV/bin/python" -c "$FIND")/pginstall/bin"
