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
  /** The points asked for: the operation's estimate. */
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

  async charge(subject: RateSubject, points: number): Promise<RateStatus> {
    const key = rateSubjectKey(subject);
    const { taken, remaining, atMs } = await this.buckets.take(key, points, this.rule);
    const { size, perSecond } = this.rule;
    return {
      cost: points,
      allowed: taken,
      limit: size,
      remaining: Math.floor(remaining),
      restoreRate: perSecond,
      resetAtMs: atMs + Math.ceil(((size - remaining) * 1000) / perSecond),
      retryAfterSeconds: taken ? 0 : Math.max(1, Math.ceil((points - remaining) / perSecond)),
    };
  }
}
