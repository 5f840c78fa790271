import type { CompiledQuery, DatabaseConnection, Driver } from 'kysely';

/**
 * How the next COMMIT of a group-commit batch loses its answer (the database itself is real):
 * - `committed`: the COMMIT is done, the reply never arrives (a connection dropped right after it);
 * - `rolled-back`: the COMMIT never arrived, the transaction is rolled back;
 * - `late`: the reply is lost at once and the COMMIT is done `delayMs` later (still in progress when
 *   first asked; on PostgreSQL only, where the question goes over another pooled connection: PGlite's
 *   one connection waits for the COMMIT anyway).
 */
export type CommitLoss = { kind: 'committed' } | { kind: 'rolled-back' } | { kind: 'late'; delayMs: number };

/** The marker of a batch's write: one statement inserts its decisions from a JSON parameter (batch.repository.ts). */
const BATCH_WRITE = 'null::"decisions"';

/**
 * A driver wrapper (ConnectOptions.wrapDriver) that makes one batch's COMMIT lose its answer, then
 * fails the next `failQueries` queries the app sends (its lookups after the loss), each once.
 */
export function lossyCommits() {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wroteBatch = new WeakSet<DatabaseConnection>();
  const lateCommit = new WeakMap<DatabaseConnection, Promise<void>>();
  let armed: CommitLoss | undefined;
  let toFail = 0;
  /** Queries fail only after the armed loss happened. */
  let failing = false;
  const state = {
    /** COMMITs whose answer was lost. */
    lost: 0,
    /** Queries failed after a loss. */
    failed: 0,
    /** The next batch's COMMIT loses its answer as `loss` says; then `failQueries` queries fail. */
    arm(loss: CommitLoss, failQueries: number) {
      armed = loss;
      toFail = failQueries;
      failing = false;
    },
    wrap(driver: Driver): Driver {
      const of = (c: DatabaseConnection) => inner.get(c) ?? c;
      return {
        init: () => driver.init(),
        async acquireConnection() {
          const conn = await driver.acquireConnection();
          const wrapped: DatabaseConnection = {
            async executeQuery<R>(q: CompiledQuery) {
              if (failing && toFail > 0) {
                toFail -= 1;
                state.failed += 1;
                throw new Error('Connection terminated unexpectedly (lost by the test)');
              }
              if (q.sql.includes(BATCH_WRITE)) wroteBatch.add(wrapped);
              return conn.executeQuery<R>(q);
            },
            streamQuery: (q, chunkSize) => conn.streamQuery(q, chunkSize),
          };
          inner.set(wrapped, conn);
          return wrapped;
        },
        beginTransaction: (c, settings) => driver.beginTransaction(of(c), settings),
        async commitTransaction(c) {
          const loss = armed && wroteBatch.has(c) ? armed : undefined;
          wroteBatch.delete(c);
          if (!loss) return driver.commitTransaction(of(c));
          armed = undefined;
          failing = true;
          state.lost += 1;
          if (loss.kind === 'committed') await driver.commitTransaction(of(c));
          else if (loss.kind === 'rolled-back') await driver.rollbackTransaction(of(c));
          else lateCommit.set(c, new Promise((resolve) => setTimeout(resolve, loss.delayMs)).then(() => driver.commitTransaction(of(c))));
          throw new Error('Connection terminated unexpectedly (the COMMIT reply was lost by the test)');
        },
        // A COMMIT still on its way is not rolled back: the connection is busy with it.
        rollbackTransaction: (c) => (lateCommit.has(c) ? Promise.resolve() : driver.rollbackTransaction(of(c))),
        async releaseConnection(c) {
          const late = lateCommit.get(c);
          lateCommit.delete(c);
          // Released once the late COMMIT is done, without making the caller wait for it.
          if (late) void late.then(() => driver.releaseConnection(of(c)));
          else await driver.releaseConnection(of(c));
        },
        destroy: () => driver.destroy(),
      };
    },
  };
  return state;
}
