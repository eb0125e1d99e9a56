import { describe, expect, it, vi } from 'vitest';
import { MemoryItemCache } from '../../src/stores/cache/memory-cache.js';
import type { ItemReader } from '../../src/stores/dynamo/batch-reader.js';
import { CachedReader } from '../../src/stores/dynamo/cached-reader.js';
import { type Key, keys } from '../../src/stores/dynamo/keys.js';

describe('the read-through cache', () => {
  it('reads an item itself when the read of it that it joined failed for the request that started it', async () => {
    const calls: Key[][] = [];
    let failFirst!: () => void;
    const reader: ItemReader = {
      async get(asked) {
        calls.push([...asked]);
        if (calls.length === 1) {
          await new Promise<void>((fail) => (failFirst = fail));
          throw new Error("the first request's deadline passed");
        }
        return asked.map((key) => ({ ...key, text: 'found' }));
      },
    };
    const cached = new CachedReader(reader, new MemoryItemCache(100), { itemMs: 60_000, counterMs: 1_000 });
    const post = keys.post('pst_01J00000000000000000000001');
    const first = cached.get([post]).catch((error: Error) => error.message);
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    const joined = cached.get([post]);
    // The memory cache answers within microtasks: past them, a lookup that did not join would have sent its read.
    await new Promise((turn) => setImmediate(turn));
    expect(calls).toHaveLength(1);
    failFirst();
    expect(await first).toBe("the first request's deadline passed");
    expect(await joined).toEqual([{ ...post, text: 'found' }]);
    expect(calls).toEqual([[post], [post]]);
  });
});
