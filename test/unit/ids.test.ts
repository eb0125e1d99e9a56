import { describe, expect, it } from 'vitest';
import { idFrom, idKind, idTime, newId } from '../../src/domain/ids.js';
import { Random } from '../../src/seed/random.js';

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

describe('ids across processes', () => {
  it('stay unique when several processes create many in the same millisecond', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = promisify(execFile);
    const at = Date.now();
    const script = `import { newId } from './src/domain/ids.ts'; console.log(JSON.stringify(Array.from({ length: 20000 }, () => newId('pst', ${at}))));`;
    const outputs = await Promise.all(
      Array.from({ length: 3 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          maxBuffer: 64 * 1024 * 1024,
        }),
      ),
    );
    const lists = outputs.map(({ stdout }) => JSON.parse(stdout) as string[]);
    const all = lists.flat();
    expect(new Set(all).size).toBe(all.length);
    for (const ids of lists) expect([...ids].sort()).toEqual(ids);
    expect(new Set(all.map(idTime))).toEqual(new Set([at]));
  });
});

describe('ids drawn from a seeded source', () => {
  it('come out the same from the same random source (the seed), as ids of their kind and time', () => {
    const at = Date.parse('2026-06-01T00:00:00.000Z');
    const draw = (seed: number) => {
      const random = new Random(seed);
      return Array.from({ length: 3 }, (_, i) => idFrom('usr', at + i, () => random.next()));
    };
    const ids = draw(5);
    expect(draw(5)).toEqual(ids);
    expect(draw(6)).not.toEqual(ids);
    expect(ids.map(idKind)).toEqual(['usr', 'usr', 'usr']);
    expect(ids.map(idTime)).toEqual([at, at + 1, at + 2]);
    expect([...ids].sort()).toEqual(ids);
  });
});
