/**
 * Seeds the account scripts/schemathesis.sh fuzzes with objects of every kind (policies, agents,
 * approved and held decisions, a webhook endpoint and its events, a spare API key), through the
 * generated client, and prints a Schemathesis configuration whose dictionaries offer their ids to
 * the matching path, query and body parameters. Without them most generated ids are unknown and
 * the run would rarely get past the 404.
 *
 *   SPEND_AUTH_BASE_URL=http://127.0.0.1:3000 SPEND_AUTH_API_KEY=gc_live_… npx tsx scripts/schemathesis-seed.ts > schemathesis.toml
 */
import { createApiClient } from '../src/client/api-client.js';

const api = createApiClient({ baseUrl: process.env.SPEND_AUTH_BASE_URL!, apiKey: process.env.SPEND_AUTH_API_KEY! });

/** The created object's id; any failure stops the run, as a seed that did not take is no seed. */
function idOf(what: string, res: { data?: unknown; error?: unknown; response: Response }): string {
  const id = (res.data as { id?: unknown; decision_id?: unknown } | undefined)?.id ?? (res.data as { decision_id?: unknown } | undefined)?.decision_id;
  if (!res.response.ok || typeof id !== 'string') throw new Error(`seeding ${what}: HTTP ${res.response.status} ${JSON.stringify(res.error ?? res.data)}`);
  return id;
}

const policies: string[] = [];
const agents: string[] = [];
for (const n of [1, 2]) {
  const body = { name: `Fuzz policy ${n}`, currency: 'USD', budget_monthly: 10_000_000, budget_single_max: 1_000_000, require_approval_above: 5_000 };
  policies.push(idOf('a policy', await api.POST('/v1/policies', { body })));
  agents.push(idOf('an agent', await api.POST('/v1/agents', { body: { name: `Fuzz agent ${n}`, policy_id: policies.at(-1)! } })));
}
// Unbound: the one a DELETE can remove.
policies.push(idOf('a policy', await api.POST('/v1/policies', { body: { name: 'Fuzz spare policy', budget_monthly: 1_000, budget_single_max: 100 } })));

const decisions: string[] = [];
const held: string[] = [];
for (const agent of agents) {
  decisions.push(idOf('an approved decision', await api.POST('/v1/authorize', { body: { agent_id: agent, amount: 1_000, currency: 'USD', vendor: 'api.example' } })));
  for (const amount of [20_000, 30_000, 40_000]) {
    held.push(idOf('a held decision', await api.POST('/v1/authorize', { body: { agent_id: agent, amount, currency: 'USD', vendor: 'shop.example' } })));
  }
}
decisions.push(...held);

// The service runs with WEBHOOK_ALLOW_PRIVATE_URLS (no public name resolves on CI machines) and
// live mode needs https: deliveries go to a closed local port and fail, as the delivery list shows.
const sink = 'https://127.0.0.1:9/webhook-sink';
const endpoints = [idOf('a webhook endpoint', await api.POST('/v1/webhook-endpoints', { body: { url: sink, events: ['*'] } }))];
const events = await api.GET('/v1/events', { params: { query: { limit: 20 } } });
const eventIds = ((events.data as { data?: Array<{ id: string }> } | undefined)?.data ?? []).map((e) => e.id);
const keys = [idOf('an API key', await api.POST('/v1/api-keys', { body: { name: 'Fuzz spare key', role: 'reviewer', mode: 'live' } }))];

const list = (values: string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
const dictionaries: Record<string, string[]> = { agents, policies, decisions, held, endpoints, events: eventIds, keys };
const bind = (dictionary: string, probability = 0.6) => `{ dictionary = "${dictionary}", probability = ${probability} }`;
/** Path parameters by path: each gets the ids of the objects its path is about. */
const byPath: Array<[string, string, string]> = [
  ['^/v1/agents/\\\\{id\\\\}', 'path.id', 'agents'],
  ['^/v1/policies/\\\\{id\\\\}', 'path.id', 'policies'],
  ['^/v1/approvals/\\\\{decision_id\\\\}', 'path.decision_id', 'held'],
  ['^/v1/webhook-endpoints/\\\\{id\\\\}', 'path.id', 'endpoints'],
  ['^/v1/events/\\\\{id\\\\}', 'path.id', 'events'],
  ['^/v1/api-keys/\\\\{id\\\\}', 'path.id', 'keys'],
];

const out: string[] = ['# Written by scripts/schemathesis-seed.ts for one run of scripts/schemathesis.sh.', ''];
for (const [name, values] of Object.entries(dictionaries)) {
  if (values.length) out.push(`[dictionaries.${name}]`, `values = ${list(values)}`, '');
}
out.push('[parameters]');
out.push(`"body.agent_id" = ${bind('agents')}`, `"query.agent_id" = ${bind('agents')}`);
out.push(`"body.policy_id" = ${bind('policies')}`, `"query.policy_id" = ${bind('policies')}`);
out.push(`"body.endpoint_id" = ${bind('endpoints')}`, '');
for (const [regex, parameter, dictionary] of byPath) {
  if (!dictionaries[dictionary]!.length) continue;
  out.push('[[operations]]', `include-path-regex = "${regex}"`, `parameters = { "${parameter}" = ${bind(dictionary)} }`, '');
}
// A pending decision long-polls up to `wait` seconds: kept short, so the run stays within minutes.
out.push('[dictionaries.short-waits]', 'values = [0, 1]', '');
out.push('[[operations]]', 'include-name = "GET /v1/decisions/{id}"', `parameters = { "path.id" = ${bind('decisions')}, "query.wait" = ${bind('short-waits', 1)} }`, '');
// A body over 64 KiB is refused before it is parsed, with 413 (the Error envelope, code
// invalid_request): as much a rejection of invalid data as a 400.
out.push('[checks.negative_data_rejection]', 'expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429, "5XX"]', '');
process.stdout.write(`${out.join('\n')}\n`);
