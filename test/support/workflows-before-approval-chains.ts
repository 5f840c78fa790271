/**
 * Workflow code as a worker from before approval chains ran it: `heldAuthorization` takes the
 * single-approval path, as every run without the `approval-chains` patch marker does. Bundled by
 * test/workflows/held-authorization.paths.server.test.ts to drive that path live (its Update
 * validator and signal guards still run for holds started before the change).
 */
import { singleApproval } from '../../workflows/held-authorization.js';
import type { HeldAuthorizationInput, ResolutionSummary } from '../../workflows/held-authorization.types.js';

export async function heldAuthorization(input: HeldAuthorizationInput): Promise<ResolutionSummary> {
  return singleApproval(input);
}
