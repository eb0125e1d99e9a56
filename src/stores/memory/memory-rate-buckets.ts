import { type BucketRule, type BucketTake, type RateBucketStore, takeFrom } from '../rate-bucket-store.js';

/** Buckets kept for this many clients at most; the least recently seen go first (a bucket forgotten is full again). */
const MAX_BUCKETS = 100_000;

/** Buckets in this process: each instance counts its own clients (no REDIS_URL, or Redis not answering). */
export class MemoryRateBuckets implements RateBucketStore {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = MAX_BUCKETS,
  ) {}

  async take(key: string, points: number, rule: BucketRule, always = false): Promise<BucketTake> {
    const atMs = this.now();
    const bucket = this.buckets.get(key);
    const elapsedMs = bucket ? atMs - bucket.atMs : 0;
    const { taken, remaining } = takeFrom(bucket?.tokens ?? rule.size, elapsedMs, points, rule, always);
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: remaining, atMs });
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    return { taken, remaining, atMs };
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
