import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiFailure } from '../client/api-call.js';
import type { McpConfig, McpX402Config } from '../kernel/config.js';
import { formatMoney } from '../kernel/money.js';
import { requireResourceOnRequestedHost, USD_STABLECOINS, withSpendAuthorization, type SpendAuthorizationOutcome } from '../rails/x402/index.js';
import { pinnedFetch, type PinnedFetch } from '../webhooks/pinned-fetch.js';
import { resolveSafeTarget, UnsafeUrlError, withoutPinnedAddress, type HostResolver, type ResolvedTarget } from '../webhooks/ssrf.js';

/**
 * The MCP tool `fetch_paid_resource`: fetches a URL for the model through the x402 rail
 * (`spend-auth/x402`), so the model pays for a resource only within its agent's policy. On only
 * when configured (SPEND_AUTH_X402_PRIVATE_KEY); docs/api.md, MCP tool server.
 */

/** What the model is shown of a body at most; the rest is cut (`truncated: true`). */
export const MAX_BODY_CHARS = 20_000;
/** Per paid fetch, on top of any wait for a reviewer. */
const FETCH_TIMEOUT_MS = 60_000;
const TEXTUAL = /^(text\/|application\/(json|xml|[\w.+-]+\+(json|xml))|application\/javascript)/i;

type PaidFetch = (input: string, init?: RequestInit) => Promise<Response>;
/** The x402 client wrapped around one call's fetch (pinned to the address that call checked). */
type Payer = (connect: PinnedFetch) => PaidFetch;
type AgentId = () => Promise<{ ok: true; body: string } | ApiFailure>;

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * The official x402 client, signing with the configured key on every network of the known
 * stablecoins, with this service's authorization on it; built once, and wrapped around each call's
 * own pinned fetch, so the 402, the paid retry and the answer all go to the address that was checked.
 */
async function buildPayer(config: McpConfig, x402: McpX402Config, agentId: string, outcomes: AsyncLocalStorage<SpendAuthorizationOutcome[]>): Promise<Payer> {
  // Loaded only when the tool is on: they are the agent's dependencies, not the service's.
  const [{ wrapFetchWithPayment, x402Client, x402HTTPClient }, { ExactEvmScheme }, { privateKeyToAccount }] = await Promise.all([
    import('@x402/fetch'),
    import('@x402/evm/exact/client'),
    import('viem/accounts'),
  ]);
  const scheme = new ExactEvmScheme(privateKeyToAccount(x402.privateKey));
  const client = new x402Client();
  for (const network of new Set(USD_STABLECOINS.map((c) => c.network))) client.register(network as `${string}:${string}`, scheme);
  // The agent's policy is the spend limit; the client's own $1 default cap would overrule it.
  client.setSpendControls({ maxAmountPerPayment: false });
  withSpendAuthorization(client, {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    agentId,
    maxWaitSeconds: x402.maxWaitSeconds,
    // The rail's calls to the service are signed as the tool server's own are.
    ...(config.signing ? { signing: config.signing } : {}),
    onOutcome: (o) => outcomes.getStore()?.push(o),
  });
  const http = requireResourceOnRequestedHost(new x402HTTPClient(client));
  return (connect) => wrapFetchWithPayment(connect, http);
}

async function readBody(res: Response): Promise<{ body: string; truncated: boolean }> {
  const type = res.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (type && !TEXTUAL.test(type)) return { body: `(${bytes.length} bytes of ${type}, not shown)`, truncated: false };
  const text = new TextDecoder().decode(bytes);
  return text.length > MAX_BODY_CHARS ? { body: text.slice(0, MAX_BODY_CHARS), truncated: true } : { body: text, truncated: false };
}

/** What the rail did in this call, for the model: the payment, if one was made. */
function paymentOf(outcomes: SpendAuthorizationOutcome[]) {
  const at = lastIndex(outcomes, 'approved');
  const approved = outcomes[at];
  if (!approved || approved.type !== 'approved') return null;
  const after = outcomes.slice(at + 1);
  const captured = after.find((o) => o.type === 'captured');
  return {
    decision_id: approved.decisionId,
    amount: approved.amount,
    currency: approved.currency,
    // A settlement that failed or a payment the server did not accept fails the call itself (one
    // signature per decision): only these are left once the paid response is back.
    status: captured ? 'captured' : after.some((o) => o.type === 'capture_failed') ? 'paid_not_captured' : 'approved',
    ...(captured && captured.type === 'captured' ? { transaction: captured.transaction, network: captured.network } : {}),
  } as const;
}

function summary(url: string, status: number, payment: ReturnType<typeof paymentOf>): string {
  if (!payment) return `HTTP ${status} from ${url} (no payment asked).`;
  const paid = formatMoney(payment.amount, payment.currency);
  switch (payment.status) {
    case 'captured':
      return `Paid ${paid} for ${url} (decision ${payment.decision_id}, transaction ${payment.transaction}). HTTP ${status}.`;
    case 'paid_not_captured':
      return `Paid ${paid} for ${url} (decision ${payment.decision_id}); recording the capture failed, tell an operator. HTTP ${status}.`;
    default:
      return `Approved ${paid} for ${url} (decision ${payment.decision_id}). HTTP ${status}.`;
  }
}

export interface FetchPaidResourceOptions {
  /** How host names are resolved, once per call (the system's lookup unless a test controls DNS). */
  resolve?: HostResolver;
  /** Per paid fetch, on top of any wait for a reviewer (60 s). */
  fetchTimeoutMs?: number;
}

/** Registers `fetch_paid_resource` on the server (only called when the tool is configured). */
export function registerFetchPaidResource(server: McpServer, config: McpConfig, x402: McpX402Config, ownAgentId: AgentId, options: FetchPaidResourceOptions = {}): void {
  const outcomes = new AsyncLocalStorage<SpendAuthorizationOutcome[]>();
  let paying: Promise<Payer> | undefined;
  async function payer(): Promise<Payer | ApiFailure> {
    if (paying) return paying;
    const agent = x402.agentId ? { ok: true as const, body: x402.agentId } : await ownAgentId();
    if (!agent.ok) return agent;
    paying ??= buildPayer(config, x402, agent.body, outcomes);
    return paying;
  }

  server.registerTool(
    'fetch_paid_resource',
    {
      title: 'Fetch a paid (x402) resource',
      description:
        'Fetch an http(s) URL. When the server asks for an x402 payment (HTTP 402), the payment is first authorized by ' +
        "the spend authorization service under this agent's policy and paid only if approved; the result says what was " +
        'paid (decision id, amount, transaction). Denied or held payments are not made: the error says why (a held one ' +
        'names its decision; call again once a reviewer approved it).',
      inputSchema: {
        url: z.string().min(1).max(2_048).describe('The absolute http(s) URL to fetch'),
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional().describe('HTTP method; GET by default'),
        body: z.string().max(100_000).optional().describe('Request body, sent as is (as JSON when it parses as JSON)'),
      },
      outputSchema: {
        status: z.number().int().describe('HTTP status of the final answer'),
        url: z.string(),
        content_type: z.string().nullable(),
        body: z.string().describe(`The body as text, at most ${MAX_BODY_CHARS} characters`),
        truncated: z.boolean(),
        payment: z
          .object({
            decision_id: z.string(),
            amount: z.number().int().describe('Minor units (cents)'),
            currency: z.string(),
            status: z.enum(['captured', 'paid_not_captured', 'approved']),
            transaction: z.string().optional(),
            network: z.string().optional(),
          })
          .nullable()
          .describe('The payment made for this answer, or null when none was asked'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ url, method, body }) => {
      let checked: ResolvedTarget;
      if (!/^https?:\/\//i.test(url)) return toolError('invalid_request: url must be an absolute http:// or https:// URL');
      try {
        // Resolved once: the connection goes to the address checked here, never to a second answer (DNS rebinding).
        checked = await resolveSafeTarget(url, { livemode: false, allowPrivate: x402.allowPrivateUrls }, options.resolve);
      } catch (err) {
        if (err instanceof UnsafeUrlError) return toolError(`invalid_request: url ${err.message}`);
        throw err;
      }
      if (body !== undefined && (method ?? 'GET') === 'GET') return toolError('invalid_request: a GET request has no body; pass method as well');
      const pay = await payer();
      if (typeof pay !== 'function') return toolError(`${pay.code}: ${pay.message}`);
      const target = checked.url;
      const seen: SpendAuthorizationOutcome[] = [];
      const headers: Record<string, string> = {};
      if (body !== undefined) headers['content-type'] = isJson(body) ? 'application/json' : 'text/plain; charset=utf-8';
      let res: Response;
      try {
        res = await outcomes.run(seen, () =>
          pay(pinnedFetch(checked))(target.href, { method: method ?? 'GET', headers, body, redirect: 'manual', signal: AbortSignal.timeout((options.fetchTimeoutMs ?? FETCH_TIMEOUT_MS) + x402.maxWaitSeconds * 1000) }),
        );
      } catch (err) {
        const refused = seen[lastIndex(seen, 'refused')];
        if (refused && refused.type === 'refused') return toolError(`spend authorization ${refused.reason}`);
        // Node names the pinned address in connection errors; the model is shown the host it asked for.
        const message = withoutPinnedAddress(err instanceof Error ? err.message : String(err), checked);
        return toolError(message.startsWith('spend authorization') ? message : `network_error: could not fetch ${target.href} (${message}). No payment was made.`);
      }
      const { body: text, truncated } = await readBody(res);
      const payment = paymentOf(seen);
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      const head = summary(target.href, res.status, payment) + (location ? ` Redirected to ${location} (not followed; fetch it to go on).` : '');
      return {
        content: [{ type: 'text', text: `${head}\n\n${text}` }],
        structuredContent: { status: res.status, url: target.href, content_type: res.headers.get('content-type'), body: text, truncated, payment },
      };
    },
  );
}

const lastIndex = (outcomes: SpendAuthorizationOutcome[], type: SpendAuthorizationOutcome['type']) => outcomes.map((o) => o.type).lastIndexOf(type);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
