import type { Db, DbOrTrx } from '../db/database.js';
import type { Caller } from '../kernel/caller.js';
import type { HostResolver } from '../webhooks/ssrf.js';

/** Names and limits of DECISIONS §19, in one place. */
export const WEB_BOT_AUTH_TAG = 'web-bot-auth';
export const SIGNATURE_MAX_LIFETIME_SECONDS = 300;
export const SIGNATURE_CLOCK_SKEW_SECONDS = 30;
export const NONCE_MIN_LENGTH = 16;
export const NONCE_MAX_LENGTH = 256;
export const MAX_ACTIVE_AGENT_KEYS = 10;
export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';
export const DIRECTORY_MAX_BYTES = 64 * 1024;
export const DIRECTORY_MAX_KEYS = 50;
export const DIRECTORY_FETCH_TIMEOUT_MS = 5_000;
export const DIRECTORY_MAX_AGE_MIN_SECONDS = 60;
export const DIRECTORY_MAX_AGE_MAX_SECONDS = 86_400;
export const DIRECTORY_MAX_AGE_DEFAULT_SECONDS = 3_600;
/** How long a directory's last good listing is trusted while every refetch fails (DECISIONS §19): then its keys stop verifying. */
export const DIRECTORY_LISTING_MAX_STALE_MS = 24 * 3_600_000;
/** RFC 9421 Appendix B's published test keys (Ed25519 B.1.4, P-256 B.1.3): refused in live mode. */
export const RFC9421_TEST_KEY_THUMBPRINTS: readonly string[] = ['poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U', 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI'];

/** How key directories are fetched: §9's SSRF setting, and a resolver and CA tests inject. */
export interface KeyDirectoryFetchSettings {
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean;
  resolve?: HostResolver | undefined;
  /** A PEM CA to trust beside the system's (tests' private CA). */
  ca?: string | undefined;
  timeoutMs?: number | undefined;
}

/** What the agent-keys feature needs from the process. */
export interface AgentKeyDeps {
  db: Db;
  now?: (() => Date) | undefined;
  directories: KeyDirectoryFetchSettings;
  /** Told when an agent's keys change in this process, so caches of its keys drop it at once. */
  onKeysChanged: (agentId: string) => void;
  /**
   * Called inside a key's revocation, in its transaction (after the key row is revoked): what was
   * bound to the key goes with it (the mandates whose `cnf` it is, DECISIONS §20).
   */
  onKeyRevoked?: ((trx: DbOrTrx, key: { id: string; agent_id: string; account_id: string; livemode: boolean }, caller: Caller) => Promise<void>) | undefined;
}
