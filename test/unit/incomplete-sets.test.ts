import { describe, expect, it } from 'vitest';
import { IncompleteSets } from '../../src/stores/dynamo/incomplete-sets.js';

describe('IncompleteSets', () => {
  it('remembers a node per set until a read finds that set complete', () => {
    const sets = new IncompleteSets();
    sets.record('usr_a', 'following', false);
    expect(sets.has('usr_a', 'following')).toBe(true);
    expect(sets.has('usr_a', 'relations')).toBe(false);
    expect(sets.has('usr_b', 'following')).toBe(false);
    sets.record('usr_a', 'following', true);
    expect(sets.has('usr_a', 'following')).toBe(false);
  });

  it('forgets the node recorded longest ago once it holds more than its bound, a record made again counting as new', () => {
    const sets = new IncompleteSets(2);
    sets.record('usr_a', 'following', false);
    sets.record('usr_b', 'following', false);
    sets.record('usr_a', 'following', false);
    sets.record('usr_c', 'relations', false);
    expect(['usr_a', 'usr_b'].map((id) => sets.has(id, 'following'))).toEqual([true, false]);
    expect(sets.has('usr_c', 'relations')).toBe(true);
  });
});
