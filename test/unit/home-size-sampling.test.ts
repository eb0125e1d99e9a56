import { describe, expect, it } from 'vitest';
import { sampledSizeAdditions } from '../../src/usecases/tasks/steps/home-delivery.js';

describe('sampled home timeline sizes', () => {
  it('counts a user exactly when they receive at least k entries, and otherwise with probability count/k as k', () => {
    const ids = [...Array.from({ length: 20 }, () => 'many'), ...Array.from({ length: 3 }, () => 'few'), 'one'];
    // random() * 16 is 2.4: below 3 entries, not below 1.
    expect(sampledSizeAdditions(ids, 16, () => 0.15)).toEqual([
      { userId: 'many', added: 20 },
      { userId: 'few', added: 16 },
    ]);
    expect(sampledSizeAdditions(ids, 16, () => 0.99)).toEqual([{ userId: 'many', added: 20 }]);
    expect(sampledSizeAdditions(['a', 'b'], 1, () => 0.99)).toEqual([
      { userId: 'a', added: 1 },
      { userId: 'b', added: 1 },
    ]);
  });

  it('is right on average, with about one update per k entries', () => {
    const users = Array.from({ length: 20_000 }, (_, i) => `u${i}`);
    const additions = sampledSizeAdditions(users, 16);
    const counted = additions.reduce((sum, a) => sum + a.added, 0);
    expect(Math.abs(counted - users.length) / users.length).toBeLessThan(0.15);
    expect(additions.length).toBeGreaterThan(1000);
    expect(additions.length).toBeLessThan(1500);
  });
});
