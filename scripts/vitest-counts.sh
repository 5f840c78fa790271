#!/usr/bin/env bash
# Prints "PASSED FAILED SKIPPED" from a vitest run's log: its closing `Tests` line (the last one,
# colour codes stripped). Todo tests count as skipped. Exits 1, printing nothing, when the log has
# no such line: the suite stopped before its summary, and that must never read as zero tests run.
#
#   scripts/vitest-counts.sh LOG
set -euo pipefail
log=${1:?usage: scripts/vitest-counts.sh LOG}
line=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *Tests +[0-9]' | tail -n 1 || true)
[ -n "$line" ] || exit 1
# "      Tests  1 failed | 18 passed | 2 skipped | 1 todo (22)"
printf '%s\n' "$line" | awk '{
  passed = 0; failed = 0; skipped = 0
  for (i = 2; i < NF; i++) {
    n = $i + 0; w = $(i + 1); gsub(/[^a-z]/, "", w)
    if (w == "passed") passed += n
    else if (w == "failed") failed += n
    else if (w == "skipped" || w == "todo") skipped += n
  }
  print passed, failed, skipped
}'
