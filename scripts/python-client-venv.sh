#!/usr/bin/env bash
# Creates (or refreshes) the Python client's virtual environment, clients/python/.venv, with the
# exact versions of clients/python/requirements-dev.txt: the generator (openapi-python-client), the
# package's dependencies and extras, pytest and build. A stamp (the requirements file's SHA-256)
# makes a second run a no-op. The package itself is not installed: the tests import it from
# clients/python (pytest's pythonpath), and one test installs the built wheel into a venv of its own.
#
#   bash scripts/python-client-venv.sh          prints the venv's path on stdout
#
# Settings (environment): PYTHON=python3 (3.11 or later: the generated code imports typing.Self), PYTHON_CLIENT_VENV=clients/python/.venv
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PKG=clients/python
VENV=${PYTHON_CLIENT_VENV:-$PKG/.venv}
REQ=$PKG/requirements-dev.txt
say() { printf -- '--> %s\n' "$*" >&2; }

want=$(sha256sum <"$REQ" | cut -c1-64)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.requirements-sha256" 2>/dev/null)" = "$want" ]; then
  printf '%s\n' "$VENV"
  exit 0
fi
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "!!! $PYTHON is needed for the Python client" >&2; exit 1; }
start=$SECONDS
[ -x "$VENV/bin/python" ] || { say "creating $VENV ($("$PYTHON" --version 2>&1))"; "$PYTHON" -m venv "$VENV"; }
say "installing $REQ into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
printf '%s\n' "$want" >"$VENV/.requirements-sha256"
say "$VENV ready in $((SECONDS - start)) s ($(du -sh "$VENV" | cut -f1))"
printf '%s\n' "$VENV"
