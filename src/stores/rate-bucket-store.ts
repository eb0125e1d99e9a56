/**
 * Buckets of cost points, one per client: each refills at a steady rate up to its size, and an
 * operation takes its estimate out of it (a token bucket, as Shopify's and GitHub's API limits).
 * A take is atomic, so that concurrent operations of one client never spend the same points twice.
 */
export interface BucketRule {
  /** Most points a bucket holds; a new bucket starts full. */
  size: number;
  /** Points a bucket regains each second. */
  perSecond: number;
}

export interface BucketTake {
  /** Whether the points were taken; when not, nothing was. */
  taken: boolean;
  /** Points left after the take. */
  remaining: number;
  /** The time the answer is of (the store's clock). */
  atMs: number;
}

export interface RateBucketStore {
  /** `always`: taken even from a bucket that holds fewer, down to minus its size (what ran past its estimate). */
  take(key: string, points: number, rule: BucketRule, always?: boolean): Promise<BucketTake>;
  close(): Promise<void>;
}

/** The bucket after `elapsedMs` of refilling from `tokens`, then the take of `points` when it holds them (or `always`). */
export function takeFrom(
  tokens: number,
  elapsedMs: number,
  points: number,
  rule: BucketRule,
  always = false,
): { taken: boolean; remaining: number } {
  const refilled = Math.min(rule.size, tokens + (Math.max(0, elapsedMs) * rule.perSecond) / 1000);
  if (always) return { taken: true, remaining: Math.max(-rule.size, refilled - points) };
  return refilled >= points ? { taken: true, remaining: refilled - points } : { taken: false, remaining: refilled };
}
