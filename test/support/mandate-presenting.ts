/**
 * Closing an issued mandate as its agent does and presenting it to `POST /v1/mandates/verify`,
 * with defaults a test overrides: 1,000 USD to the default payee, a fresh transaction id and nonce,
 * the service's issuer as `aud`.
 */
import { randomBytes } from 'node:crypto';
import { closeMandate, type CloseMandateOptions } from '../../src/client/mandate-close.js';
import type { Client, TestContext } from './context.js';
import { DEFAULT_PAYEE, type mandateFixture } from './mandates.js';

export type MandateFixture = Awaited<ReturnType<typeof mandateFixture>>;

export function presenting(ctx: TestContext, clock: () => Date = () => new Date()) {
  const close = (fx: MandateFixture, over: Partial<CloseMandateOptions> = {}, credential: string = fx.mandate.credential) =>
    closeMandate(credential, {
      agentJwk: fx.privateJwk,
      transaction_id: randomBytes(16).toString('base64url'),
      payee: DEFAULT_PAYEE,
      payment_amount: { amount: 1_000, currency: 'USD' },
      payment_instrument: { id: 'card-1', type: 'card' },
      aud: ctx.signer.issuer,
      nonce: randomBytes(12).toString('base64url'),
      now: clock,
      ...over,
    });
  const verify = (client: Client, fx: MandateFixture, presentation: string, body: Record<string, unknown> = {}) =>
    client.post('/v1/mandates/verify', { presentation, open_checkout_hash: fx.openCheckoutHash, ...body });
  return { close, verify };
}

/** How many decisions the agent has: steps 1, 2, 4 and 5 must leave none. */
export async function decisionCount(ctx: TestContext, agentId: string): Promise<number> {
  const row = await ctx.database.db.selectFrom('decisions').select((eb) => eb.fn.countAll<number>().as('n')).where('agent_id', '=', agentId).executeTakeFirstOrThrow();
  return Number(row.n);
}
