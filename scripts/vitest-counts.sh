#!/usr/bin/env bash
# Prints "PASSED FAILED SKIPPED" from a vitest run's log: its closing `Tests` line (the last run's,
# colour codes stripped). Todo tests count as skipped. FAILED also counts what failed outside a
# test, which the `Tests` line does not: each failed suite (a file that did not load, a `beforeAll`
# that threw: its tests are counted skipped) and each unhandled error, so a run that exits non-zero
# never closes on "0 failed". Exits 1, printing nothing, when the log has no `Tests` line: the
# suite stopped before its summary, and that must never read as zero tests run.
#
#   scripts/vitest-counts.sh LOG
set -euo pipefail
log=${1:?usage: scripts/vitest-counts.sh LOG}
# "      Tests  1 failed | 18 passed | 2 skipped | 1 todo (22)"
# "⎯⎯⎯ Failed Suites 2 ⎯⎯⎯" (before the summary), "     Errors  1 error" (after the Tests line)
sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '
  function keep() { if (seen) { P = passed; F = failed + suites + errors; K = skipped; found = 1 } }
  /^ *RUN +v[0-9]/ { keep(); seen = 0; suites = 0; errors = 0 }
  /Failed Suites [0-9]+/ { for (i = 1; i <= NF; i++) if ($i == "Suites") suites = $(i + 1) + 0 }
  /^ *Errors +[0-9]+ errors?/ { errors = $2 + 0 }
  /^ *Tests +[0-9]/ {
    passed = 0; failed = 0; skipped = 0; seen = 1
    for (i = 2; i < NF; i++) {
      n = $i + 0; w = $(i + 1); gsub(/[^a-z]/, "", w)
      if (w == "passed") passed += n
      else if (w == "failed") failed += n
      else if (w == "skipped" || w == "todo") skipped += n
    }
  }
  END { keep(); if (!found) exit 1; print P, F, K }
'
