import type { BucketRule, RateBucketStore } from '../stores/rate-bucket-store.js';

/** Who pays for an operation: a signed-in account (every token of it shares one bucket), else the client's address. */
export interface RateSubject {
  viewerId: string | null;
  clientAddress: string;
}

/** The client a subject names: its bucket's key, and whose share of the store's request slots an operation takes. */
export function rateSubjectKey(subject: RateSubject): string {
  return subject.viewerId !== null ? `user:${subject.viewerId}` : `addr:${subject.clientAddress}`;
}

/** A bucket after an operation's charge, as clients see it (`extensions.cost.rateLimit`, `Query.rateLimit`). */
export interface RateStatus {
  /** The points the operation paid: its estimate, and what it spent past it once it ran. */
  cost: number;
  /** Whether they were taken; when not, the operation does not run. */
  allowed: boolean;
  limit: number;
  remaining: number;
  restoreRate: number;
  /** When the bucket is full again if nothing more is spent. */
  resetAtMs: number;
  /** When refused: the whole seconds until the bucket holds the cost. */
  retryAfterSeconds: number;
}

/** Every operation pays its estimate out of its client's bucket before it runs (settings RATE_LIMIT_POINTS, _PER_SECOND). */
export class RateLimits {
  constructor(
    private readonly buckets: RateBucketStore,
    private readonly rule: BucketRule,
  ) {}

  /** Takes the points when the bucket holds them: an operation's estimate, before it runs. */
  charge(subject: RateSubject, points: number): Promise<RateStatus> {
    return this.take(subject, points, points, false);
  }

  /**
   * Takes what an operation that ran spent past its estimate (`cost`), however little the bucket holds, down to minus
   * its size: the client then waits until it has refilled.
   */
  chargeBeyond(subject: RateSubject, points: number, cost: number): Promise<RateStatus> {
    return this.take(subject, points, cost, true);
  }

  private async take(subject: RateSubject, points: number, cost: number, always: boolean): Promise<RateStatus> {
    const key = rateSubjectKey(subject);
    const { taken, remaining, atMs } = await this.buckets.take(key, points, this.rule, always);
    const { size, perSecond } = this.rule;
    return {
      cost,
      allowed: taken,
      limit: size,
      remaining: Math.max(0, Math.floor(remaining)),
      restoreRate: perSecond,
      resetAtMs: atMs + Math.ceil(((size - remaining) * 1000) / perSecond),
      retryAfterSeconds: taken ? 0 : Math.max(1, Math.ceil((points - remaining) / perSecond)),
    };
  }
}
