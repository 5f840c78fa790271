import { AppError } from '../kernel/errors.js';

/**
 * Admission control (docs/operations.md, "Admission control"): a spend request waits at most
 * MAX_QUEUE_MS between its arrival and the moment its work starts. Past it, it is shed with `503
 * service_unavailable` and `Retry-After`, and never decided: no decision row, no audit record, no
 * usage. Work that starts late under load would only answer after its caller gave up, and keep
 * the requests behind it waiting too. A rail's request has its own deadline (§17) instead.
 */
export const DEFAULT_MAX_QUEUE_MS = 1_000;

/** When a request arrived (epoch ms, as read off the socket) and when its work must have started. */
export interface Admission {
  arrivedAt: number;
  startBy: number;
}

export const admissionOf = (arrivedAt: number, maxQueueMs = DEFAULT_MAX_QUEUE_MS): Admission => ({ arrivedAt, startBy: arrivedAt + maxQueueMs });

/** A spend request shed before its work started: nothing of it was decided or written. */
export class Overloaded extends AppError {
  constructor(readonly waitedMs: number) {
    super('service_unavailable', `The service is overloaded: this request waited ${waitedMs} ms for its turn, past the bound (MAX_QUEUE_MS). Nothing was decided; retry after Retry-After seconds.`);
  }
}

/**
 * The moment a request's work starts: the time it queued, for the histogram, and `Overloaded`
 * when it waited past its bound. Without an admission (a rail's request, a mandate's), nothing.
 */
export function admit(admission: Admission | undefined, observe?: (waitedMs: number, shed: boolean) => void, now = Date.now()): void {
  if (!admission) return;
  const waited = Math.max(0, now - admission.arrivedAt);
  const shed = now > admission.startBy;
  observe?.(waited, shed);
  if (shed) throw new Overloaded(waited);
}

/** `admit` for a request that may reach it twice (a batch decided again one by one): once only. */
export function admitOnce(request: { admission?: Admission | undefined }, observe?: (waitedMs: number, shed: boolean) => void): void {
  const admission = request.admission;
  request.admission = undefined;
  admit(admission, observe);
}
