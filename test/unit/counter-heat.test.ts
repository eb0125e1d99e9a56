import { describe, expect, it } from 'vitest';
import { CounterHeat, shardsForWriteRate } from '../../src/usecases/counter-heat.js';

const settings = { counterShardWritesPerSecond: 3, counterShardsMax: 8 };

describe('CounterHeat', () => {
  it('names a post once its writes this second pass the limit times its shards, and doubles it once per shard count', () => {
    let now = 10_000;
    const heat = new CounterHeat(settings, () => now);
    const post = { id: 'pst_a', counterShards: 1 };
    expect([1, 2, 3].map(() => heat.wrote(post))).toEqual([null, null, null]);
    expect(heat.wrote(post)).toBe(2);
    // Writers that still read one shard do not ask again; one that read two asks past 2 × 3 writes.
    expect(heat.wrote(post)).toBeNull();
    expect(heat.wrote({ id: 'pst_a', counterShards: 2 })).toBeNull();
    expect(heat.wrote({ id: 'pst_a', counterShards: 2 })).toBe(4);
    // Other posts are counted apart.
    expect(heat.wrote({ id: 'pst_b', counterShards: 1 })).toBeNull();
    // A new second starts again from zero.
    now += 1000;
    expect([1, 2, 3, 4, 5, 6].map(() => heat.wrote({ id: 'pst_a', counterShards: 2 }))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(heat.wrote({ id: 'pst_a', counterShards: 2 })).toBe(4);
  });

  it('stops at COUNTER_SHARDS_MAX, and never raises with a maximum of one', () => {
    const heat = new CounterHeat(settings, () => 0);
    const post = { id: 'pst_c', counterShards: 6 };
    const asked = Array.from({ length: 19 }, () => heat.wrote(post));
    expect(asked.filter((to) => to !== null)).toEqual([8]);
    expect(
      Array.from({ length: 100 }, () => heat.wrote({ id: 'pst_c', counterShards: 8 })).every((to) => to === null),
    ).toBe(true);
    const off = new CounterHeat({ counterShardWritesPerSecond: 1, counterShardsMax: 1 }, () => 0);
    expect(
      Array.from({ length: 10 }, () => off.wrote({ id: 'pst_d', counterShards: 1 })).every((to) => to === null),
    ).toBe(true);
  });
});

describe('shardsForWriteRate', () => {
  it('doubles while a shard would take more than the limit, up to the maximum', () => {
    expect(shardsForWriteRate(1, 3, settings)).toBe(1);
    expect(shardsForWriteRate(1, 4, settings)).toBe(2);
    expect(shardsForWriteRate(1, 13, settings)).toBe(8);
    expect(shardsForWriteRate(1, 1000, settings)).toBe(8);
    expect(shardsForWriteRate(8, 1, settings)).toBe(8);
  });
});
