import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpConfig } from '../kernel/config.js';
import type { Documented, ResponseBody } from '../client/api-client.js';
import { createApiCall, type ApiFailure, type Fetch } from '../client/api-call.js';
import { createRequestSigner } from '../client/request-signer.js';
import { signingFetch } from '../client/signing-fetch.js';
import { formatMoney } from '../kernel/money.js';
import { registerFetchPaidResource, type FetchPaidResourceOptions } from './fetch-paid-resource.js';

/**
 * The MCP tool server (docs/api.md, "MCP tool server"): a model asks for a spend decision through
 * the tool `authorize_spend` and follows a held one with `get_decision`. It is a client of the HTTP
 * API (`{base}/authorize`, `{base}/decisions/:id`) through the client generated from the OpenAPI
 * document (src/client/), so every decision is the service's own. stdout carries the protocol only;
 * anything for humans goes to stderr.
 */

export const MCP_SERVER_NAME = 'spend-auth';
export const MCP_SERVER_VERSION = '0.1.0';
export { API_REQUEST_TIMEOUT_MS } from '../client/api-call.js';
export const MAX_WAIT_SECONDS = 30;

/** The fields of the decision object this server reads, while the document does not describe it. */
interface DecisionFields {
  decision_id: string;
  decision: 'approved' | 'denied' | 'held';
  status: 'approved' | 'denied' | 'pending' | 'expired';
  authorization_token?: string;
  reason?: string | null;
  reason_code: string | null;
  policy_applied: string | null;
  agent_id: string;
  amount: number;
  currency: string;
  vendor: string;
  expires_at?: string;
}
/**
 * The decision object of `/v1` as the OpenAPI document describes it (see Documented). The casts
 * to it below only matter while the document does not: once it does, they are the identity and
 * every field read here is checked against the document.
 */
type Decision = Documented<ResponseBody<'/v1/authorize', 'post'>, DecisionFields>;
type ApiKeySelf = Documented<ResponseBody<'/v1/api-keys/self', 'get'>, { role: 'admin' | 'reviewer' | 'agent'; agent_id: string | null }>;

const decisionOutputShape = {
  decision: z.enum(['approved', 'denied', 'held']).describe('approved: go ahead; denied: do not buy; held: a human must decide first'),
  decision_id: z.string().describe('Id of the decision (dec_…), for get_decision and the audit log'),
  status: z.enum(['approved', 'denied', 'pending', 'expired']),
  reason: z.string().optional().describe('Why it was denied or held'),
  reason_code: z.string().nullable(),
  authorization_token: z.string().optional().describe('Signed gca_ token, only when approved: pass it to the payment rail'),
  policy_applied: z.string().nullable(),
  agent_id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  vendor: z.string(),
  expires_at: z.string().optional().describe('Held requests: when an unanswered review expires (denied)'),
};

const money = (d: Decision) => formatMoney(d.amount, d.currency);

function summary(d: Decision): string {
  if (d.decision === 'approved') {
    return (
      `Approved: ${money(d)} at ${d.vendor} (decision ${d.decision_id}). ` +
      `Authorization token: ${d.authorization_token ?? '(none)'} — pass it to the payment rail with this charge; it expires after a few minutes.`
    );
  }
  if (d.decision === 'held') {
    return (
      `Held for human review (${d.reason_code ?? 'approval_required'}): ${d.reason ?? 'a reviewer must approve this request.'} ` +
      `Do not charge yet: decision ${d.decision_id} awaits a reviewer${d.expires_at ? ` until ${d.expires_at}` : ''}. ` +
      `Check it with the get_decision tool (decision_id "${d.decision_id}", wait_seconds up to ${MAX_WAIT_SECONDS}); ` +
      'it becomes approved (with an authorization token) or denied.'
    );
  }
  const why = d.status === 'expired' ? 'the review was not answered in time.' : (d.reason ?? 'the policy does not allow it.');
  return `Denied (${d.reason_code ?? 'policy_denied'}): ${why} Do not make this purchase (decision ${d.decision_id}, ${money(d)} at ${d.vendor}).`;
}

/** Whitelisted fields only, matching the declared output schema. */
function decisionResult(d: Decision): CallToolResult {
  const structured = {
    decision: d.decision,
    decision_id: d.decision_id,
    status: d.status,
    ...(typeof d.reason === 'string' ? { reason: d.reason } : {}),
    reason_code: d.reason_code,
    ...(d.decision === 'approved' && d.authorization_token ? { authorization_token: d.authorization_token } : {}),
    policy_applied: d.policy_applied,
    agent_id: d.agent_id,
    amount: d.amount,
    currency: d.currency,
    vendor: d.vendor,
    ...(d.expires_at ? { expires_at: d.expires_at } : {}),
  };
  return { content: [{ type: 'text', text: summary(d) }], structuredContent: structured };
}

const errorResult = (e: ApiFailure): CallToolResult => ({ isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}` }] });

/**
 * Builds the server with its tools (the third, fetch_paid_resource, when configured); `fetchImpl`
 * (the calls to this service) and the tool's resolver and timeout are injectable for tests. With
 * `config.signing` every call to the service is signed with the agent's key (DECISIONS §19).
 */
export function createMcpServer(config: McpConfig, fetchImpl: Fetch = (req) => fetch(req), paidFetchOptions: FetchPaidResourceOptions = {}): McpServer {
  const call = createApiCall(config, config.signing ? signingFetch(fetchImpl, createRequestSigner(config.signing)) : fetchImpl);
  const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION });

  // An agent-role key acts for one agent: learnt once, on the first call that omits agent_id.
  let ownAgent: string | undefined;
  async function defaultAgentId(): Promise<{ ok: true; body: string } | ApiFailure> {
    if (ownAgent) return { ok: true, body: ownAgent };
    const res = await call((api, init) => api.GET('/v1/api-keys/self', init));
    if (!res.ok) return res;
    const self = { ok: true, body: res.body as unknown as ApiKeySelf };
    if (self.body.role !== 'agent' || !self.body.agent_id) {
      return { ok: false, code: 'invalid_request', message: `agent_id is required: this API key (role ${self.body.role}) is not bound to one agent.` };
    }
    ownAgent = self.body.agent_id;
    return { ok: true, body: ownAgent };
  }

  server.registerTool(
    'authorize_spend',
    {
      title: 'Authorize a spend',
      description:
        'Ask the spend authorization service for permission before spending money. Answers approved (with an ' +
        'authorization token for the payment rail), denied (do not buy) or held (a human must review it first; ' +
        'follow it with get_decision). Amounts are integers in minor units: 1999 USD = $19.99.',
      inputSchema: {
        agent_id: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .describe('The agent making the spend (agt_…). May be omitted with an agent-role API key: defaults to its agent.'),
        amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Amount in minor units (cents for USD), e.g. 1999 for $19.99'),
        currency: z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code').describe('ISO 4217 currency code, e.g. USD'),
        vendor: z.string().min(1).max(255).describe('Counterparty name or domain, e.g. openai.com'),
        category: z.string().min(1).max(64).optional().describe('Spend category, e.g. saas, compute, travel'),
        metadata: z
          .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
          .optional()
          .describe('Key-value pairs stored on the audit log, e.g. an invoice number'),
        idempotency_key: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('Send the same value when retrying the same purchase: it is then never decided twice'),
      },
      outputSchema: decisionOutputShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ agent_id, idempotency_key, ...request }) => {
      const agent = agent_id ? { ok: true as const, body: agent_id } : await defaultAgentId();
      if (!agent.ok) return errorResult(agent);
      const res = await call((api, init) =>
        api.POST('/v1/authorize', {
          ...init,
          body: { agent_id: agent.body, ...request },
          params: { header: idempotency_key ? { 'Idempotency-Key': idempotency_key } : {} },
        }),
      );
      return res.ok ? decisionResult(res.body as unknown as Decision) : errorResult(res);
    },
  );

  server.registerTool(
    'get_decision',
    {
      title: 'Get a spend decision',
      description:
        'The current state of a decision from authorize_spend. Use it to follow a held request: with wait_seconds ' +
        'it waits (up to 30 s) until a reviewer has decided, then answers approved (with the authorization token) or denied.',
      inputSchema: {
        decision_id: z.string().min(1).max(100).describe('The decision_id returned by authorize_spend (dec_…)'),
        wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe('Long-poll while still pending, up to 30 seconds'),
      },
      outputSchema: decisionOutputShape,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ decision_id, wait_seconds }) => {
      const res = await call(
        (api, init) => api.GET('/v1/decisions/{id}', { ...init, params: { path: { id: decision_id }, query: wait_seconds ? { wait: wait_seconds } : {} } }),
        wait_seconds ?? 0,
      );
      return res.ok ? decisionResult(res.body as unknown as Decision) : errorResult(res);
    },
  );

  // Off unless configured: without its key the tool is not even listed.
  if (config.x402) registerFetchPaidResource(server, config, config.x402, defaultAgentId, paidFetchOptions);

  return server;
}

/** `spend-auth mcp`: serves the tools on stdio until the client closes stdin. */
export async function runMcpServer(config: McpConfig): Promise<void> {
  const server = createMcpServer(config);
  const tools = config.x402 ? 'authorize_spend, get_decision and fetch_paid_resource' : 'authorize_spend and get_decision';
  const signed = config.signing ? ', signing each request' : '';
  process.stderr.write(`spend-auth mcp: tools ${tools}, calling ${config.baseUrl}${signed}\n`);
  await server.connect(new StdioServerTransport());
}
