#!/usr/bin/env bash
# Prints the path of the Temporal CLI (dev server with the Web UI), building it from the Go module
# proxy with `go install` when no cached build of the pinned version exists. The binary lives in a
# cache outside the repository and is never committed.
#
#   scripts/temporal-cli.sh            build if needed, print the binary's path on stdout
#   TEMPORAL_CLI_VERSION=v1.5.1        the release to build (v1.5.1: the newest whose go.mod has no
#                                      `replace` directive, which `go install pkg@version` refuses)
#   TEMPORAL_CLI_CACHE=~/.cache/...    where builds are kept (one folder per version)
#
# Progress goes to stderr; only the path goes to stdout, so `export TEMPORAL_CLI_PATH=$(…)` works.
# Exits non-zero, saying why, when Go is missing or the build fails.
set -euo pipefail

VERSION=${TEMPORAL_CLI_VERSION:-v1.5.1}
CACHE=${TEMPORAL_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spend-auth/temporal-cli}
DIR="$CACHE/$VERSION"
BIN="$DIR/temporal"

say() { printf -- '--> %s\n' "$*" >&2; }
die() { printf -- '!!! temporal-cli: %s\n' "$*" >&2; exit 1; }

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  say "reusing $("$BIN" --version 2>/dev/null | head -n 1) at $BIN"
  printf '%s\n' "$BIN"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "Go is not installed: it is needed to build the Temporal CLI $VERSION (or set TEMPORAL_CLI_PATH to an existing binary)"

say "building the Temporal CLI $VERSION with $(go version) (the first build takes several minutes)"
mkdir -p "$DIR"
# Built into a scratch folder and moved into place, so an interrupted build never leaves a
# half-written binary where the next run would reuse it.
STAGE=$(mktemp -d "$DIR/.build.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
start=$SECONDS
if ! GOBIN="$STAGE" go install "github.com/temporalio/cli/cmd/temporal@$VERSION" >&2; then
  die "go install github.com/temporalio/cli/cmd/temporal@$VERSION failed (see above)"
fi
[ -x "$STAGE/temporal" ] || die "go install reported success but $STAGE/temporal is missing"
"$STAGE/temporal" --version >/dev/null 2>&1 || die "the built binary does not run: $STAGE/temporal --version failed"
mv -f "$STAGE/temporal" "$BIN"
say "built $("$BIN" --version | head -n 1) in $((SECONDS - start)) s: $BIN"
printf '%s\n' "$BIN"
