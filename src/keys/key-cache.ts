import type { Caller } from '../kernel/caller.js';
import { hashApiKey } from './api-key.js';

/** Another process's revocation is honoured within this time; this process's at once. */
export const KEY_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * Remembers resolved keys briefly so a busy key costs no query per request. Failed lookups are
 * never cached (a new key works at once). Keyed by the key's hash, never the key.
 */
export class KeyCache {
  private readonly entries = new Map<string, { caller: Caller; expires: number }>();

  constructor(
    private readonly lookup: (rawKey: string) => Promise<Caller>,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  async authenticate(rawKey: string): Promise<Caller> {
    const hash = hashApiKey(rawKey);
    const hit = this.entries.get(hash);
    const now = Date.now();
    if (hit && hit.expires > now) return hit.caller;
    const caller = await this.lookup(rawKey);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { caller, expires: now + this.ttlMs });
    return caller;
  }

  /** Drops a revoked key at once. */
  revoke(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  /** Drops every entry: what a cached caller carries (a policy's `require_signed_requests`) may have changed. */
  clear(): void {
    this.entries.clear();
  }
}
