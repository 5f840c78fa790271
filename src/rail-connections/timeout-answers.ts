import { CompiledQuery } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { preparedSql } from '../db/prepared.js';
import type { NewRailAnswer } from './rail-answers.repository.js';

/** Rows written by one statement at most. */
const MAX_ROWS = 1_000;
/** Rows waiting at most; past it a timeout answer is refused at once (and logged by the caller). */
const MAX_WAITING = 200_000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;

interface Waiting {
  row: NewRailAnswer;
  resolve(stored: boolean): void;
  reject(err: unknown): void;
}

/**
 * The timeout answers a process gave, written to the books together (docs/rails/stripe-issuing.md):
 * under overload, when most answers are timeouts and the pool is busy with decisions, one statement
 * records a thousand of them on one connection, and a failed write (a pool wait that timed out, the
 * database restarting) is retried until it succeeds, so no timeout answer given goes unrecorded
 * while the process lives. Each row's `increment` is decided by the statement that writes it (an
 * answer to its authorization's first request already there → an increase); a decision recorded
 * for the same event first keeps its place (the caller is told `false`).
 */
export class TimeoutAnswerLog {
  private queue: Waiting[] = [];
  private writing = false;
  private retryMs = RETRY_FIRST_MS;

  constructor(private readonly db: DbOrTrx) {}

  /** Resolves once written: true when the timeout answer is the one on record. */
  record(row: NewRailAnswer): Promise<boolean> {
    if (this.queue.length >= MAX_WAITING) return Promise.reject(new Error('too many timeout answers waiting to be recorded'));
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.write());
      }
    });
  }

  /** Answers waiting to be written. */
  get waiting(): number {
    return this.queue.length;
  }

  private async write(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_ROWS);
      try {
        const again = await this.insert(batch);
        this.retryMs = RETRY_FIRST_MS;
        // Refused by a first answer of their authorization written meanwhile: increases now, next round.
        this.queue.unshift(...again);
      } catch {
        this.queue.unshift(...batch);
        await new Promise((r) => setTimeout(r, this.retryMs));
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
      }
    }
    this.writing = false;
  }

  /** Writes what it can; returns the rows to write again. */
  private async insert(batch: Waiting[]): Promise<Waiting[]> {
    const rows = batch.map((w) => w.row);
    const { rows: stored } = await this.db.executeQuery<{ request_event_id: string; connection_id: string }>(CompiledQuery.raw(insertText(Object.keys(rows[0]!)), [JSON.stringify(rows)]));
    const written = new Set(stored.map((r) => `${r.connection_id}\0${r.request_event_id}`));
    const left: Waiting[] = [];
    for (const w of batch) {
      if (written.has(`${w.row.connection_id}\0${w.row.request_event_id}`)) w.resolve(true);
      else left.push(w);
    }
    if (left.length === 0) return [];
    const { rows: answered } = await this.db.executeQuery<{ request_event_id: string; connection_id: string }>(
      CompiledQuery.raw(ANSWERED, [left.map((w) => w.row.connection_id), left.map((w) => w.row.request_event_id)]),
    );
    const decided = new Set(answered.map((r) => `${r.connection_id}\0${r.request_event_id}`));
    const again: Waiting[] = [];
    for (const w of left) {
      if (decided.has(`${w.row.connection_id}\0${w.row.request_event_id}`)) w.resolve(false);
      else again.push(w);
    }
    return again;
  }
}

const texts = new Map<string, string>();

function insertText(columns: string[]): string {
  const key = columns.join(',');
  let text = texts.get(key);
  if (text === undefined) {
    const list = columns.map((c) => `"${c}"`).join(', ');
    const values = columns.map((c) => (c === 'increment' ? FIRST_ANSWERED : `v."${c}"`)).join(', ');
    text = preparedSql(`insert into "rail_authorizations" (${list}) select ${values} from json_populate_recordset(null::"rail_authorizations", $1::json) as v on conflict do nothing returning "connection_id", "request_event_id"`);
    texts.set(key, text);
  }
  return text;
}

/** An answer to the first request of the row's authorization is on record: this one is an increase. */
const FIRST_ANSWERED = `exists (select 1 from "rail_authorizations" as f where f.connection_id = v.connection_id and f.authorization_id = v.authorization_id and f.increment = false)`;

const ANSWERED = preparedSql(`select "connection_id", "request_event_id" from "rail_authorizations" where ("connection_id", "request_event_id") in (select * from unnest($1::text[], $2::text[]))`);
