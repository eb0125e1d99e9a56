import { describe, expect, it } from 'vitest';
import { idKind, idTime, newId } from '../../src/domain/ids.js';

describe('ids', () => {
  it('are unique and strictly increasing within one millisecond', () => {
    const now = Date.now();
    const ids = Array.from({ length: 5000 }, () => newId('pst', now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(idTime(ids[0]!)).toBe(now);
  });

  it('sort by creation time', () => {
    const later = Date.now() + 1_000;
    const older = newId('pst', later);
    const newer = newId('pst', later + 1);
    expect(older < newer).toBe(true);
    expect(idTime(newer) - idTime(older)).toBe(1);
  });

  it('tell their kind', () => {
    expect(idKind(newId('usr'))).toBe('usr');
    expect(idKind('usr_short')).toBeNull();
  });
});
