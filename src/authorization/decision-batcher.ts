import type { AuthorizeBatchSettings } from '../kernel/config.js';

/** How one member of a batch ended: its value, or the error its caller is given. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Waiting<M, T> {
  member: M;
  key: string;
  arrivedAt: number;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * Groups requests into batches (group commit, docs/operations.md): a batch closes when it is full
 * or when its first request has waited the linger, and runs as soon as fewer than `inFlight`
 * batches are running. Requests with one key (one agent) keep their arrival order: a request whose
 * key is in a running batch waits for it, and so does every later one of that key, so no two
 * running batches ever hold one agent and each batch finds the state the previous one committed.
 */
export class DecisionBatcher<M, T> {
  private readonly queue: Waiting<M, T>[] = [];
  /** Keys of the members of running batches, with how many each holds. */
  private readonly busy = new Map<string, number>();
  private running = 0;
  private timer: { cancel(): void } | undefined;

  constructor(
    private readonly settings: AuthorizeBatchSettings,
    private readonly run: (members: M[]) => Promise<Settled<T>[]>,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  submit(key: string, member: M): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ member, key, arrivedAt: this.clock(), resolve, reject });
      this.schedule(false);
    });
  }

  /** Requests waiting for a batch. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Starts a batch when one is due: the queue holds a full batch, or (after a batch ended) its first
   * request has lingered long enough; otherwise makes sure a timer closes the batch in time.
   */
  private schedule(batchEnded: boolean): void {
    if (this.running >= this.settings.inFlight || this.queue.length === 0) return;
    const first = this.queue[0]!;
    if (this.queue.length >= this.settings.size || (batchEnded && this.clock() - first.arrivedAt >= this.settings.lingerMs)) {
      this.startBatch();
      return;
    }
    if (this.timer) return;
    const fire = () => {
      this.timer = undefined;
      this.startBatch();
    };
    // Linger 0 closes the batch on the event loop's next turn: it holds whatever arrived with the first.
    if (this.settings.lingerMs === 0) {
      const handle = setImmediate(fire);
      this.timer = { cancel: () => clearImmediate(handle) };
    } else {
      const handle = setTimeout(fire, Math.max(0, this.settings.lingerMs - (this.clock() - first.arrivedAt)));
      this.timer = { cancel: () => clearTimeout(handle) };
    }
  }

  private startBatch(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.running >= this.settings.inFlight) return;
    const batch: Waiting<M, T>[] = [];
    const behind = new Set<string>();
    for (let i = 0; i < this.queue.length && batch.length < this.settings.size; ) {
      const w = this.queue[i]!;
      // A key in a running batch keeps all its waiting requests behind it, in order.
      if (this.busy.has(w.key) || behind.has(w.key)) {
        behind.add(w.key);
        i += 1;
        continue;
      }
      // Later requests of a key taken here join this batch too: it decides them in order.
      batch.push(w);
      this.queue.splice(i, 1);
    }
    // Everything left waits on a running batch, which schedules again when it ends.
    if (batch.length === 0) return;
    for (const w of batch) this.busy.set(w.key, (this.busy.get(w.key) ?? 0) + 1);
    this.running += 1;
    void this.execute(batch);
    // A second slot takes what has waited as long, without lingering again.
    this.schedule(true);
  }

  private async execute(batch: Waiting<M, T>[]): Promise<void> {
    let settled: Settled<T>[];
    try {
      settled = await this.run(batch.map((w) => w.member));
    } catch (error) {
      settled = batch.map(() => ({ ok: false, error }));
    }
    this.running -= 1;
    for (const w of batch) {
      const n = (this.busy.get(w.key) ?? 1) - 1;
      if (n === 0) this.busy.delete(w.key);
      else this.busy.set(w.key, n);
    }
    batch.forEach((w, i) => {
      const s = settled[i] ?? { ok: false, error: new Error('batch member without a result') };
      if (s.ok) w.resolve(s.value);
      else w.reject(s.error);
    });
    this.schedule(true);
  }
}
