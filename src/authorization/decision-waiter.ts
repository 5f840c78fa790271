import { EventEmitter } from 'node:events';
import type { Database } from '../db/connect.js';
import { DECISION_RESOLVED_CHANNEL } from '../decisions/decisions.repository.js';

export interface DecisionWatch {
  /** Resolves on a notification received since the previous call (or the watch began) or an abort ('woken'), or at the deadline ('deadline'). */
  next(deadline: number, signal?: AbortSignal): Promise<'woken' | 'deadline'>;
  close(): void;
}

/** Wakes long-polls of GET /v1/decisions/:id when their decision is resolved; never polls. */
export class DecisionWaiter {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  notify(decisionId: string): void {
    this.emitter.emit(decisionId);
  }

  /** After the listening connection was lost notifications may have been missed: every waiter reads once more. */
  wakeAll(): void {
    for (const name of this.emitter.eventNames()) this.emitter.emit(name);
  }

  /** Taken before the caller's first read, so a resolution committed in between is not missed. */
  watch(decisionId: string): DecisionWatch {
    let woken = false;
    let wake: (() => void) | undefined;
    const onNotify = () => {
      woken = true;
      wake?.();
    };
    this.emitter.on(decisionId, onNotify);
    return {
      next: (deadline, signal) =>
        new Promise<'woken' | 'deadline'>((resolve) => {
          const finish = (why: 'woken' | 'deadline') => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            wake = undefined;
            woken = false;
            resolve(why);
          };
          const done = () => finish('woken');
          // A timer may fire a millisecond before Date.now() reaches the deadline: say which ended the wait.
          const timer = setTimeout(() => finish('deadline'), Math.max(0, deadline - Date.now()));
          if (woken || signal?.aborted) return done();
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        }),
      close: () => {
        this.emitter.off(decisionId, onNotify);
      },
    };
  }
}

/** Feeds `waiter` from the database's resolution notifications; returns the function that stops listening. */
export function listenForResolutions(database: Pick<Database, 'listen'>, waiter: DecisionWaiter): Promise<() => Promise<void>> {
  return database.listen(DECISION_RESOLVED_CHANNEL, (decisionId) => waiter.notify(decisionId), () => waiter.wakeAll());
}
