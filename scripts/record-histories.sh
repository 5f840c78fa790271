#!/usr/bin/env bash
# Re-records the workflow histories in test/histories/recorded-*.json from a real Temporal server:
# runs the server scenarios with RECORD_HISTORIES=1 against the CLI's dev server (got the way
# `npm start` gets it: scripts/temporal-cli.ts). The offline replay tests (test/workflows/replay.test.ts) replay them.
#
# Adds the histories of scenarios that have none yet; existing files are the frozen fixtures of a
# release and are kept (RECORD_HISTORIES=overwrite replaces them, only for scenarios that never
# shipped). A workflow change must keep replaying them (docs/operations.md, "Changing a workflow
# safely").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TEMPORAL_CLI_PATH=${TEMPORAL_CLI_PATH:-$(npx --no-install tsx scripts/temporal-cli.ts)}
export TEMPORAL_CLI_PATH
RECORD_HISTORIES=${RECORD_HISTORIES:-1} npx vitest run test/workflows/held-approvals.server.test.ts test/workflows/approval-chains.server.test.ts test/workflows/webhooks-and-billing.server.test.ts test/workflows/capture-expiry.server.test.ts test/workflows/audit-checkpoints.server.test.ts
ls -1 test/histories/recorded-*.json
