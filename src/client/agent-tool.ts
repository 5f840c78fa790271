import type { AuthorizeRequest, SpendAuth } from './spend-auth.js';
import { SpendAuthError } from './spend-auth-error.js';

export const AUTHORIZE_SPEND_TOOL_NAME = 'authorize_spend';

/**
 * The input of `authorize_spend`, the same as the MCP tool of that name (src/mcp/server.ts), as
 * JSON Schema. Other members are ignored, as the MCP tool ignores them (hence
 * `additionalProperties: true`, which is also what the frameworks' non-strict tools expect).
 */
export const AUTHORIZE_SPEND_PARAMETERS = {
  type: 'object' as const,
  properties: {
    agent_id: { type: 'string', minLength: 1, maxLength: 100, description: 'The agent making the spend (agt_…). May be omitted with an agent-role API key: defaults to its agent.' },
    amount: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Amount in minor units (cents for USD), e.g. 1999 for $19.99' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code, e.g. USD' },
    vendor: { type: 'string', minLength: 1, maxLength: 255, description: 'Counterparty name or domain, e.g. openai.com' },
    category: { type: 'string', minLength: 1, maxLength: 64, description: 'Spend category, e.g. saas, compute, travel' },
    metadata: {
      type: 'object',
      propertyNames: { minLength: 1, maxLength: 40 },
      additionalProperties: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }] },
      description: 'Key-value pairs stored on the audit log, e.g. an invoice number',
    },
    idempotency_key: { type: 'string', minLength: 1, maxLength: 255, description: 'Send the same value when retrying the same purchase: it is then never decided twice' },
  },
  required: ['amount', 'currency', 'vendor'] as ('amount' | 'currency' | 'vendor')[],
  additionalProperties: true as const,
};

export interface AuthorizeSpendToolOptions {
  /** Seconds to wait for a held decision to be resolved before answering; default 60 (a model rarely wants `held` at once); 0 answers held at once. */
  wait?: number;
}

export const DEFAULT_TOOL_WAIT_SECONDS = 60;

/** A tool definition any agent framework can wrap: name, description, JSON Schema parameters, and the call. */
export interface AuthorizeSpendTool {
  name: typeof AUTHORIZE_SPEND_TOOL_NAME;
  description: string;
  parameters: typeof AUTHORIZE_SPEND_PARAMETERS;
  /**
   * Runs `authorize(input, {wait})` and answers the decision object as JSON; an API error is
   * answered as `{"error": {code, message, param, request_id}}`, for the model to read, never thrown.
   * `input`: the parsed arguments, or their JSON text.
   */
  invoke(input: unknown): Promise<string>;
}

const errorJson = (e: SpendAuthError) => JSON.stringify({ error: { code: e.code, message: e.message, param: e.param, request_id: e.requestId } });

/**
 * `authorize_spend` for agent frameworks without MCP (docs/clients.md, "The agent tool"): with the
 * OpenAI Agents SDK, `tool({...spend, strict: false, execute: (input) => spend.invoke(input)})`.
 */
export function authorizeSpendTool(spendAuth: SpendAuth, { wait = DEFAULT_TOOL_WAIT_SECONDS }: AuthorizeSpendToolOptions = {}): AuthorizeSpendTool {
  // An agent-role key acts for one agent: learnt once, on the first call that omits agent_id.
  let ownAgent: string | undefined;
  async function agentOf(given: unknown): Promise<string> {
    if (given !== undefined) return given as string;
    if (ownAgent) return ownAgent;
    const self = await spendAuth.currentKey();
    if (self.role !== 'agent' || !self.agent_id) {
      throw new SpendAuthError(`agent_id is required: this API key (role ${self.role}) is not bound to one agent.`, { status: null, code: 'invalid_request', param: 'agent_id' });
    }
    return (ownAgent = self.agent_id);
  }

  return {
    name: AUTHORIZE_SPEND_TOOL_NAME,
    description:
      'Ask the spend authorization service for permission before spending money. It answers with a decision: ' +
      'approved (go ahead: pass authorization_token to the payment rail with this charge), denied (do not buy; reason says why) ' +
      `or held (a human must review it first; do not charge yet${wait > 0 ? `: this tool waits up to ${wait} s for the reviewer, and a decision still held after that is answered as held` : ''}). ` +
      'Amounts are integers in minor units: 1999 USD = $19.99.',
    parameters: AUTHORIZE_SPEND_PARAMETERS,
    async invoke(input: unknown): Promise<string> {
      try {
        const args = typeof input === 'string' ? (JSON.parse(input) as unknown) : input;
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
          throw new SpendAuthError('The tool input must be an object.', { status: null, code: 'invalid_request' });
        }
        const { agent_id, amount, currency, vendor, category, metadata, idempotency_key } = args as Record<string, unknown>;
        // The service validates every field (a bad one is a 400 naming it): the values pass as given.
        const request = { agent_id: await agentOf(agent_id), amount, currency, vendor, ...(category !== undefined ? { category } : {}), ...(metadata !== undefined ? { metadata } : {}) } as AuthorizeRequest;
        const decision = await spendAuth.authorize(request, { wait, ...(typeof idempotency_key === 'string' ? { idempotencyKey: idempotency_key } : {}) });
        return JSON.stringify(decision);
      } catch (err) {
        if (err instanceof SpendAuthError) return errorJson(err);
        if (err instanceof SyntaxError) return errorJson(new SpendAuthError(`The tool input is not JSON (${err.message}).`, { status: null, code: 'invalid_request' }));
        throw err;
      }
    },
  };
}
