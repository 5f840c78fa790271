import type { Caller } from '../kernel/caller.js';
import type { MandateDeps } from './mandate-deps.js';
import type { VerifyMandateInput } from './verify.schemas.js';

/**
 * `POST /v1/mandates/verify` (DECISIONS §20 steps 1–9). Answers the exact bytes to send (a replay
 * of a reference decided before gets its first answer's bytes, `replayed: true`).
 */
export async function verifyPresentation(_deps: MandateDeps, _caller: Caller, _input: VerifyMandateInput, _requestId: string): Promise<{ body: string; replayed: boolean }> {
  throw new Error('verifyPresentation: not built yet');
}
