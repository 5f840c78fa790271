#!/usr/bin/env bash
# A new user's first minutes, timed: a fresh clone of this repository (a branch or commit), an
# empty HOME (no npm, pip or Temporal CLI cache), `npm ci`, `npm start`, and bench/first-approval.ts
# driving agent held → reviewer approves → token over HTTP. Prints each phase's seconds.
#
#   bench/first-approval.sh [REF]      default: HEAD
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REF=${1:-HEAD}
WORK=$(mktemp -d)
PORT=${PORT:-3917}
child=
cleanup() {
  # npm does not pass SIGTERM on to the service: stop the whole group, as Ctrl-C at a terminal does.
  if [ -n "$child" ]; then
    kill -INT -- "-$child" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 -- "-$child" 2>/dev/null || break; sleep 0.5; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

git clone -q --no-checkout "$ROOT" "$WORK/repo"
git -C "$WORK/repo" checkout -q "$(git -C "$ROOT" rev-parse "$REF")"
mkdir "$WORK/home"
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/home/.cache
unset TEMPORAL_CLI_PATH TEMPORAL_ADDRESS DATABASE_URL DATA_DIR
cd "$WORK/repo"

t0=$(now)
npm ci --no-audit --no-fund --loglevel=error > "$WORK/npm-ci.log" 2>&1
t1=$(now)
PORT=$PORT LOG_FORMAT=json setsid npm start > "$WORK/start.log" 2>&1 &
child=$!
key=
for _ in $(seq 1 600); do
  key=$(grep -o 'gc_test_[A-Za-z0-9]*' "$WORK/start.log" | head -n 1 || true)
  [ -n "$key" ] && break
  kill -0 "$child" 2>/dev/null || { cat "$WORK/start.log"; exit 1; }
  sleep 0.5
done
[ -n "$key" ] || { echo "npm start printed no key"; exit 1; }
t2=$(now)
result=$(npx --no-install tsx bench/first-approval.ts "http://127.0.0.1:$PORT" "$key")
t3=$(now)
echo "steps of getting the CLI (from npm start's log):"
grep -o '"msg":"temporal CLI[^"]*"' "$WORK/start.log" | sed 's/^"msg":"/  /; s/"$//'
echo "npm ci:                         $(secs "$t0" "$t1") s"
echo "npm start until its key:        $(secs "$t1" "$t2") s"
echo "first approved hold (HTTP):     $(secs "$t2" "$t3") s   $result"
echo "npm install → first approval:   $(secs "$t0" "$t3") s"
