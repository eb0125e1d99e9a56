import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointFile } from '../../src/seed/checkpoint.js';
import { DEFAULT_HISTORY_DAYS } from '../../src/seed/network.js';

describe('seed checkpoint', () => {
  it('reads a checkpoint written before --days as spanning the default history', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'seed-checkpoint-')), 'seed-checkpoint.json');
    const size = { users: 200, follows: 1600, posts: 500, likes: 800, seed: 11, endMs: 1 };
    const state = { version: 1, size, settings: {}, target: 'embedded', startedAt: '', finishedAt: null, parts: {} };
    writeFileSync(path, JSON.stringify(state));
    expect(CheckpointFile.read(path)!.plan.size).toEqual({ ...size, days: DEFAULT_HISTORY_DAYS });

    writeFileSync(path, JSON.stringify({ ...state, size: { ...size, days: 90 } }));
    expect(CheckpointFile.read(path)!.plan.size.days).toBe(90);
  });
});
