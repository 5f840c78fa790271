import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import type { ApiKeyRow } from './keys.repository.js';

export const apiKeySchema = z
  .object({
    id: idOf('key', 'Key id'),
    object: z.literal('api_key'),
    name: z.string().describe('Display name'),
    mode: z.enum(['test', 'live']).describe('`test` keys start `gc_test_`, `live` keys `gc_live_`'),
    livemode: livemodeField,
    role: z.enum(['admin', 'reviewer', 'agent']).describe('What the key may do'),
    agent_id: idOf('agt', 'For `agent` keys: the one agent it acts for').nullable().describe('For `agent` keys: the one agent it acts for; null otherwise'),
    prefix: z.string().describe('The first characters of the key, to recognize it'),
    created_at: instant('Creation time'),
    revoked_at: instant('When it was revoked; later use answers 401').nullable(),
    last_used_at: instant('Last authenticated request (updated at most once a minute)').nullable(),
    created_by: idOf('key', 'The key that minted this one')
      .nullable()
      .describe('The API key that minted this one through `POST /v1/api-keys`; null for keys made on the command line and for earlier keys whose origin is unknown (`created_via`). Kept for good, also after either key is revoked. A key and the keys descending from it count as one person when approving holds'),
    created_via: z
      .enum(['api', 'command_line', 'unknown'])
      .describe('Where the key came from: `api` (minted by `created_by`), `command_line` (`spend-auth accounts create`, the embedded bootstrap), or `unknown` (made before this was kept, with no audit record naming its origin). Kept for good'),
  })
  .describe('An API key. The key itself is shown only once, when it is created.');
export type ApiKeyView = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().regex(/^gc_(test|live)_[0-9A-Za-z]{32,}$/).describe('The raw key: shown this once, never stored') })
  .describe('A new API key, with the raw key (returned once, by the create call only).');
export type CreatedApiKeyView = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = listOf(apiKeySchema, 'API keys');

/** Whitelisted fields only: the hash never leaves the service. */
export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    mode: row.livemode ? 'live' : 'test',
    livemode: row.livemode,
    role: row.role,
    agent_id: row.agent_id,
    prefix: row.key_prefix,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_by: row.created_by,
    created_via: row.created_via,
  };
}
