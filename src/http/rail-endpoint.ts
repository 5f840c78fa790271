import { invalid } from '../kernel/errors.js';
import type { RailEndpoint } from '../rail-connections/rail-endpoint.js';
import { SENT, type Call } from './route.js';

/**
 * `POST /rails/<rail>/:id`: the rail's own authentication (connection, signature, mode), the
 * connection's rate limit, then the rail's answer. A rail this process was not given answers as an
 * unknown connection does.
 */
export async function answerRail(rail: RailEndpoint | undefined, { deps, req, res }: Call<unknown, unknown, string>): Promise<typeof SENT> {
  if (!rail) throw invalid('No such rail connection.', 'id');
  const arrivedAt = (res.locals.arrivedAt as number | undefined) ?? Date.now();
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const verified = await rail.authenticate(String(req.params.id), body, req.get(rail.signatureHeader));
  const { connection } = verified;
  await deps.rails.limit(req, res, { connectionId: connection.id, livemode: connection.livemode, plan: connection.plan, rateLimit: connection.rateLimit, deadline: rail.deadlineOf(arrivedAt) });
  const answer = await rail.answer(verified, arrivedAt);
  res.status(200).set(answer.headers).json(answer.body);
  return SENT;
}
