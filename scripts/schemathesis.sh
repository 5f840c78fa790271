#!/usr/bin/env bash
# Fuzzes the running service from its own OpenAPI document with Schemathesis: starts `spend-auth
# dev` on a fresh database with a fresh enterprise account, then runs every phase (examples,
# coverage, fuzzing, and stateful sequences that follow the document's links) with its checks.
#
#   scripts/schemathesis.sh                       embedded PGlite database in a temporary folder
#   DATABASE_URL=postgres://…/fresh_db scripts/schemathesis.sh    on PostgreSQL (an empty database)
#   scripts/schemathesis.sh --include-path-regex '^/v1/agents'     further arguments go to `st run`
#
# Settings (environment):
#   SCHEMATHESIS_VERSION=4.32.5        the release installed from PyPI into a virtualenv under
#   SCHEMATHESIS_HOME=~/.cache/…       $SCHEMATHESIS_HOME/<version> (reused across runs)
#   SCHEMATHESIS_MAX_EXAMPLES=40       test cases per operation and phase
#   SCHEMATHESIS_TIMEOUT_SECONDS=600   the whole run is stopped (and fails) past this
#   SCHEMATHESIS_SEED=…                replay a run (its seed is printed in the summary)
#   SCHEMATHESIS_CHECKS=…              other checks (`all` to explore; CI gates on the default list)
#   SCHEMATHESIS_INSTALL_ONLY=1        install the virtualenv and stop (CI does it early, in the background)
#   TEMPORAL_CLI_PATH=…                the dev server held requests and approvals run on
#
# The report goes to test-artifacts/schemathesis/: junit.xml, the HAR of every request (keys
# masked), output.txt (what is printed here), server.log and schemathesis.toml (the seeded ids the
# run drew from: scripts/schemathesis-seed.ts). Exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
VERSION=${SCHEMATHESIS_VERSION:-4.32.5}
HOME_DIR=${SCHEMATHESIS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/spend-auth/schemathesis}
VENV="$HOME_DIR/$VERSION"
MAX_EXAMPLES=${SCHEMATHESIS_MAX_EXAMPLES:-40}
TIMEOUT_SECONDS=${SCHEMATHESIS_TIMEOUT_SECONDS:-600}
REPORT_DIR="$ROOT/test-artifacts/schemathesis"
# The checks every response must pass: no 5xx; a documented status, content type and headers; a
# body that matches the document's response schema; a request the document calls invalid (400, or
# 413 past 64 KiB: schemathesis.toml) or one without the key, refused; a created object there to be
# read (stateful sequences). Left out, as the contract differs from what they assume:
# use_after_free (DELETE /v1/agents/{id} deactivates: the agent stays readable, status
# "deactivated"), unsupported_method (an unknown method answers 404 not_found, not 405) and
# positive_data_acceptance: the document's patterns say which cursors decode, which Idempotency-Keys
# and vendors are taken and that no string holds NUL, and its anyOf/oneOf/if the cross-field rules
# of velocity limits, simulations, API keys and escalations; what no schema can say still refuses
# schema-valid data: escalate_after_seconds above approval_timeout_seconds (no two fields compare),
# a capture above the approved amount, a webhook host that does not resolve to a public address, a
# vendor whose host no URL parser accepts, and unpaired UTF-16 surrogates (a pattern naming them
# is one Schemathesis drops).
CHECKS=${SCHEMATHESIS_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,missing_required_header,ignored_auth,ensure_resource_availability}

say() { printf -- '--> %s\n' "$*" >&2; }
die() { printf -- '!!! schemathesis: %s\n' "$*" >&2; exit 1; }

# --- Schemathesis, pinned, in its own virtualenv --------------------------------------------
if ! "$VENV/bin/st" --version 2>/dev/null | grep -qF "$VERSION"; then
  command -v python3 >/dev/null 2>&1 || die "python3 is needed to install Schemathesis"
  say "installing Schemathesis $VERSION into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
fi
say "$("$VENV/bin/st" --version)"
# SCHEMATHESIS_INSTALL_ONLY=1: the virtualenv alone (CI installs it in the background, early).
[ -z "${SCHEMATHESIS_INSTALL_ONLY:-}" ] || exit 0

# --- The service on a fresh database ----------------------------------------------------------
WORK=$(mktemp -d)
SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  [ -f "$WORK/server.log" ] && cp "$WORK/server.log" "$REPORT_DIR/server.log" 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop_server EXIT
rm -rf "$REPORT_DIR"
mkdir -p "$REPORT_DIR"

export DATA_DIR="$WORK/data"
export LOG_LEVEL=${LOG_LEVEL:-warn}
PORT=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
BASE="http://127.0.0.1:$PORT"

say "database: ${DATABASE_URL:+PostgreSQL (DATABASE_URL)}${DATABASE_URL:-embedded, in $DATA_DIR}"
node bin/spend-auth.js migrate >&2
# Enterprise, so the live key's per-minute limit can be set far above what the run sends.
node bin/spend-auth.js accounts create --name Schemathesis --plan enterprise --rate-limit 1000000 --json >"$WORK/account.json"
KEY=$(node -p "require('$WORK/account.json').keys.live")

# Private webhook URLs allowed: no public name resolves on CI machines, so the seeded endpoint
# points at a closed local port (the SSRF guard has its own tests under test/security/).
# The fuzzer is one client address sending thousands of keyless requests a minute (every "no key"
# check): at the default per-address limit they would answer 429 where it asks for 401
# (rate-limit.test.ts covers the limit itself).
PORT=$PORT HOST=127.0.0.1 WEBHOOK_ALLOW_PRIVATE_URLS=true UNAUTHENTICATED_RATE_LIMIT=1000000000 node bin/spend-auth.js dev >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
ready=
for _ in $(seq 1 90); do
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "the service exited during start-up"; }
  if curl -sf "$BASE/readyz" -o "$WORK/readyz.json" && grep -q '"workflow_engine":"up"' "$WORK/readyz.json"; then ready=1; break; fi
  sleep 1
done
[ -n "$ready" ] || say "the workflow engine is not up ($(cat "$WORK/readyz.json" 2>/dev/null)): approvals will answer 503"
curl -sf "$BASE/readyz" >/dev/null || die "the service does not answer on $BASE"
KEY_ID=$(curl -sf -H "Authorization: Bearer $KEY" "$BASE/v1/api-keys/self" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).id))")
say "service on $BASE, fuzzing with the live admin key $KEY_ID"
# Objects of every kind, whose ids the configuration offers to the generated requests.
SPEND_AUTH_BASE_URL=$BASE SPEND_AUTH_API_KEY=$KEY npx tsx scripts/schemathesis-seed.ts >"$REPORT_DIR/schemathesis.toml"

# --- The run ----------------------------------------------------------------------------------
# One worker: CPython 3.11.7's ast module miscounts its recursion depth when threads parse at once
# (cpython#106905, fixed in 3.11.8), which Hypothesis does while describing its strategies.
start=$SECONDS
set +e
SCHEMATHESIS_HOOKS="$ROOT/scripts/schemathesis_hooks.py" SPEND_AUTH_FUZZ_KEY_ID="$KEY_ID" \
  timeout --signal=INT --kill-after=30 "$TIMEOUT_SECONDS" \
  "$VENV/bin/st" --config-file "$REPORT_DIR/schemathesis.toml" run "$BASE/v1/openapi.json" \
    --header "Authorization: Bearer $KEY" \
    --checks "$CHECKS" \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$MAX_EXAMPLES" \
    --workers 1 \
    --request-timeout 30 \
    --suppress-health-check too_slow,filter_too_much \
    ${SCHEMATHESIS_SEED:+--seed "$SCHEMATHESIS_SEED"} \
    --report junit,har \
    --report-junit-path "$REPORT_DIR/junit.xml" \
    --report-har-path "$REPORT_DIR/requests.har" \
    --no-color "$@" >"$REPORT_DIR/output.txt" 2>&1
status=$?
# Shown with its pytest-style rules ("=== 2 warnings in 33s ===") turned into plain headings: that
# closing line counts no test, and tools reading CI's output take it for a test run that ran none.
sed -E -e 's/^=+ (.*) in ([0-9.]+s) =+$/Schemathesis: \1 (\2)/' -e 's/^=+ (.*[^=]) =+$/--- \1 ---/' \
  "$REPORT_DIR/output.txt"
set -e
say "Schemathesis finished in $((SECONDS - start))s with exit code $status (report: test-artifacts/schemathesis/)"
exit "$status"
