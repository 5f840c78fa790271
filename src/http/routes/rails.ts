import { railAnswerSchema, stripeEventSchema } from '../../rail-connections/rail-endpoint.view.js';
import { answerRail } from '../rail-endpoint.js';
import { route } from '../route.js';

/**
 * The endpoints of the rails that ask first, without a key: the rail's signature authenticates.
 * Each is implemented by its rail's adapter (src/rails/<rail>/), handed to the app by the process
 * (`AppDeps.rails`); this file only declares and mounts it (docs/architecture.md, "A new rail").
 */
export const railsRoutes = [
  route({
    method: 'post',
    path: '/rails/stripe-issuing/:id',
    tag: 'Rails',
    roles: 'public',
    summary: "Stripe Issuing's real-time authorization webhook, and the card's later events (no key: Stripe's signature authenticates)",
    description:
      '`issuing_authorization.request` is decided as `POST /v1/authorize` decides (an uncaptured approval of the agent that covers it is captured first) and answered within the deadline (1.5 s; past it, the connection\'s `on_timeout`). `issuing_authorization.created|updated` and `issuing_transaction.created` adjust what the approval counts (reversal, partial capture, decline, refund), once however often sent. A repeated event or authorization gets the first answer. Other events: `{"received": true}`. A bad or stale signature, an unknown connection, a body that is not I-JSON or a livemode that differs from the connection\'s → 400, nothing recorded. Limited per connection at its account\'s limit for the mode. See docs/rails/stripe-issuing.md.',
    params: { id: 'Connection id (`rail_…`)' },
    headers: {
      'Stripe-Signature': {
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the signing secret>` (any matching `v1`; 300 s tolerance)',
        required: true,
        schema: { type: 'string' },
      },
    },
    body: stripeEventSchema,
    rawBody: true,
    response: { status: 200, description: 'The answer as Stripe reads it: `{approved, metadata}` for a request, `{received: true}` otherwise', schema: railAnswerSchema },
    responseHeaders: { 'Stripe-Version': { description: "The connection's Stripe API version", required: true, schema: { type: 'string' } } },
    errors: [400, 413, 429],
    handler: (call) => answerRail(call.deps.rails.stripeIssuing, call),
  }),
];
