import type { CountedPost } from '../stores/counter-store.js';

export interface CounterHeatSettings {
  /** COUNTER_SHARD_WRITES_PER_SECOND: what one instance may send to each shard of a post in a second. */
  counterShardWritesPerSecond: number;
  /** COUNTER_SHARDS_MAX: raises stop here. */
  counterShardsMax: number;
}

/** The shard count a raise takes a post with `shards` shards to: double, at most COUNTER_SHARDS_MAX. */
export function raisedShards(shards: number, settings: CounterHeatSettings): number {
  return Math.min(settings.counterShardsMax, shards * 2);
}

/**
 * The shards a post ends up with when one instance sends `writesPerSecond` counter writes to it
 * for long enough: raised (doubling) while its writes a shard are past the limit. What
 * CounterHeat does one raise at a time, for the cost model.
 */
export function shardsForWriteRate(shards: number, writesPerSecond: number, settings: CounterHeatSettings): number {
  let now = shards;
  while (writesPerSecond > settings.counterShardWritesPerSecond * now && raisedShards(now, settings) > now)
    now = raisedShards(now, settings);
  return now;
}

/**
 * Finds hot posts from this instance's counter writes in the current second, in memory, so a hot post is
 * found before DynamoDB throttles; only this second's posts are kept (see docs/design/counters.md).
 */
export class CounterHeat {
  private second = -1;
  /** Post id → writes this second, and the shard count a raise was already asked for. */
  private posts = new Map<string, { writes: number; raisedTo: number }>();

  constructor(
    private readonly settings: CounterHeatSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one counter write to `post`; the shard count to raise it to, or null. */
  wrote(post: CountedPost): number | null {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.posts = new Map();
    }
    const heat = this.posts.get(post.id) ?? { writes: 0, raisedTo: 0 };
    heat.writes += 1;
    this.posts.set(post.id, heat);
    const to = raisedShards(post.counterShards, this.settings);
    if (
      to <= post.counterShards ||
      to <= heat.raisedTo ||
      heat.writes <= this.settings.counterShardWritesPerSecond * post.counterShards
    )
      return null;
    heat.raisedTo = to;
    return to;
  }
}
