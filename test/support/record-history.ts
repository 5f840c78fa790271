/**
 * Saves a workflow's history as recorded by the server into test/histories/recorded-<name>.json,
 * when RECORD_HISTORIES=1 (scripts/record-histories.sh). The offline replay tests replay them.
 * An existing file is a frozen fixture of a release and is kept; RECORD_HISTORIES=overwrite
 * replaces it (only for a scenario that never shipped). Otherwise it only checks that the history
 * can be fetched and converted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../histories');
const MODE = process.env.RECORD_HISTORIES;
export const RECORDING = MODE === '1' || MODE === 'overwrite';

/** The JSON of the workflow's history (proto3 JSON, as `temporal workflow show --output json` writes). */
export async function recordHistory(client: Client, workflowId: string, name: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const json = `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`;
  const file = path.join(HISTORIES_DIR, `recorded-${name}.json`);
  if (RECORDING && (MODE === 'overwrite' || !fs.existsSync(file))) fs.writeFileSync(file, json);
  return json;
}
