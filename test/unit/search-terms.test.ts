import { describe, expect, it } from 'vitest';
import {
  MAX_NAME_TERMS,
  foldWords,
  indexPrefixes,
  matchesAll,
  searchWords,
  termsOf,
} from '../../src/domain/search-terms.js';

describe('search terms', () => {
  it('folds accents and case, and splits on anything but letters, digits and _', () => {
    expect(foldWords('Zoë  ÉLODIE-Dupont_2 Straße')).toEqual(['zoe', 'elodie', 'dupont_2', 'straße']);
    expect(foldWords('Ｚｏｅ ﬁne')).toEqual(['zoe', 'fine']);
    expect(foldWords('Łukasz 李小龍')).toEqual(['łukasz', '李小龍']);
  });

  it('indexes the handle and at most MAX_NAME_TERMS distinct name words, each under its first 1-3 characters', () => {
    expect(termsOf({ handle: 'zoe_b', displayName: 'Zoë Zoe Brown' })).toEqual(['zoe_b', 'zoe', 'brown']);
    const many = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    expect(termsOf({ handle: 'h', displayName: many })).toHaveLength(1 + MAX_NAME_TERMS);
    expect(indexPrefixes('zoe_b')).toEqual(['z', 'zo', 'zoe']);
    expect(indexPrefixes('李')).toEqual(['李']);
  });

  it('refuses a query without a letter or digit, or over 64 characters; matches every word as a prefix', () => {
    expect(() => searchWords(' -- ')).toThrow(/at least one letter/);
    expect(() => searchWords('a'.repeat(65))).toThrow(/at most 64/);
    expect(searchWords('  ZOË  b ')).toEqual(['zoe', 'b']);
    expect(matchesAll(['zoe', 'br'], { handle: 'x_y', displayName: 'Zoë Brown' })).toBe(true);
    expect(matchesAll(['zoe', 'bx'], { handle: 'x_y', displayName: 'Zoë Brown' })).toBe(false);
  });
});
