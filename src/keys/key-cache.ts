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
  /**
   * Lookups under way, by key hash: requests that arrive while a key is being read wait for that
   * read instead of sending their own. Without it, every request of a burst that arrived as an
   * entry expired read the key again (19 extra reads in a burst of 500 on a loaded machine).
   */
  private readonly pending = new Map<string, Promise<Caller>>();

  constructor(
    private readonly lookup: (rawKey: string) => Promise<Caller>,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  async authenticate(rawKey: string): Promise<Caller> {
    const hash = hashApiKey(rawKey);
    const hit = this.entries.get(hash);
    const now = Date.now();
    if (hit && hit.expires > now) return hit.caller;
    const under = this.pending.get(hash);
    if (under) return under;
    const lookup = this.lookup(rawKey);
    this.pending.set(hash, lookup);
    try {
      const caller = await lookup;
      // A revocation (or clear) while it ran took it out of `pending`: its answer may be older, so it is not kept.
      if (this.pending.get(hash) === lookup) {
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(hash, { caller, expires: now + this.ttlMs });
      }
      return caller;
    } finally {
      if (this.pending.get(hash) === lookup) this.pending.delete(hash);
    }
  }

  /** Drops a revoked key at once, and keeps no lookup of it that was already under way. */
  revoke(keyHash: string): void {
    this.entries.delete(keyHash);
    this.pending.delete(keyHash);
  }

  /** Drops every entry: what a cached caller carries (a policy's `require_signed_requests`) may have changed. */
  clear(): void {
    this.entries.clear();
    this.pending.clear();
  }
}
