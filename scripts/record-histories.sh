#!/usr/bin/env bash
# Re-records the workflow histories in test/histories/recorded-*.json from a real Temporal server:
# runs the server scenarios with RECORD_HISTORIES=1 against the CLI's dev server (built or reused
# by scripts/temporal-cli.sh). The offline replay tests (test/workflows/replay.test.ts) replay them.
#
# Only for a new fixture set: the histories recorded for a release are frozen, and a workflow
# change must keep replaying them (see docs/operations.md, "Changing a workflow safely").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TEMPORAL_CLI_PATH=${TEMPORAL_CLI_PATH:-$(bash scripts/temporal-cli.sh)}
export TEMPORAL_CLI_PATH
RECORD_HISTORIES=1 npx vitest run test/workflows/held-approvals.server.test.ts test/workflows/webhooks-and-billing.server.test.ts
ls -1 test/histories/recorded-*.json
