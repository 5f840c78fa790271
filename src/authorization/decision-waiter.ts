import { EventEmitter } from 'node:events';

export const DECISION_POLL_INTERVAL_MS = 500;

/**
 * Wakes long-polls of GET /v1/decisions/:id. Resolutions in this process notify at once; those
 * made by another process (the worker) are seen by the periodic re-read.
 */
export class DecisionWaiter {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  notify(decisionId: string): void {
    this.emitter.emit(decisionId);
  }

  /** Resolves after a notification, the poll interval, the deadline or an abort, whichever is first. */
  nap(decisionId: string, deadline: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const ms = Math.max(0, Math.min(DECISION_POLL_INTERVAL_MS, deadline - Date.now()));
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(decisionId, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.once(decisionId, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
