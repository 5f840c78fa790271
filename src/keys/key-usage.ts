/** A key's `last_used_at` is written at most this often: it says roughly when, not every use. */
export const KEY_USAGE_INTERVAL_MS = 60_000;
/** Keys remembered per process; past this the memory starts over (a few extra writes, never more than that). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Records that a key was used, off the request's path: the write is started, not awaited, and at
 * most once a minute per key in this process (the write itself skips a row written within the
 * minute by another process).
 */
export class KeyUsageRecorder {
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly write: (keyId: string, at: Date) => Promise<void>,
    private readonly opts: { now?: () => number; onError?: (err: unknown) => void } = {},
  ) {}

  record(keyId: string): void {
    const now = this.opts.now?.() ?? Date.now();
    const last = this.lastWritten.get(keyId);
    if (last !== undefined && now - last < KEY_USAGE_INTERVAL_MS) return;
    if (this.lastWritten.size >= MAX_REMEMBERED_KEYS) this.lastWritten.clear();
    this.lastWritten.set(keyId, now);
    this.write(keyId, new Date(now)).catch((err: unknown) => this.opts.onError?.(err));
  }
}
