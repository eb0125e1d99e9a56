import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { SCRIPT_TIMEOUTS } from '../../scripts/configured-stores.js';
import { type NetworkOptions, generateNetwork } from '../../src/seed/network.js';
import { silentProgress } from '../../src/seed/progress.js';
import { seedNetwork } from '../../src/seed/seed.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { type OpenStores, openStores } from '../../src/stores/open-stores.js';
import { runScriptWith, scriptEnv } from '../helpers/scripts.js';

const endpoint = inject('dynamodbEndpoint');
const dataDir = mkdtempSync(join(tmpdir(), 'seed-resume-'));
/**
 * Hot authors and authors past fan-out, as in seed.test.ts. A home retention longer than the network's 27 days of
 * posts: no entry expires (DynamoDB Local deletes expired items) while the two tables are compared.
 */
const SETTINGS = {
  HOT_AUTHOR_FOLLOWERS: '10',
  COUNTER_SHARDS: '4',
  FANOUT_MAX_FOLLOWERS: '30',
  HOME_RETENTION_DAYS: '28',
};
const SIZE_FLAGS = ['--users', '200', '--follows', '1600', '--posts', '500', '--likes', '800', '--seed', '11'];
/** Parts of about 300 items: dozens of checkpoints, so that the seed is killed in the middle of one. */
const PART_FLAGS = ['--checkpoint-items', '300'];
const opened: OpenStores[] = [];

function settings(prefix: string): Record<string, string> {
  return { ...SETTINGS, DYNAMODB_ENDPOINT: endpoint, TABLE_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
}

async function seed(prefix: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const { code, output, errors } = await runScriptWith(settings(prefix), 'seed', ...args);
  return { code, out: output + errors };
}

interface Checkpoint {
  size: NetworkOptions;
  finishedAt: string | null;
  parts: Record<string, number>;
}

async function open(prefix: string): Promise<OpenStores & { config: ReturnType<typeof loadConfig> }> {
  const config = loadConfig({ ...SETTINGS, ...SCRIPT_TIMEOUTS, TABLE_PREFIX: prefix, LOG_LEVEL: 'silent' });
  const stores = Object.assign(
    await openStores({ config, logger: createLogger('silent'), dynamodbEndpoint: endpoint }),
    { config },
  );
  opened.push(stores);
  return stores;
}

/** The table's items that have not expired: DynamoDB Local deletes expired ones (old posts' trend buckets) when it gets to them. */
async function scan(stores: OpenStores): Promise<string[]> {
  const items: string[] = [];
  const now = Math.floor(Date.now() / 1000);
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stores.client.send(
      new ScanCommand({ TableName: stores.table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    // Sets come back as Sets: spread them so that they compare by content.
    for (const item of page.Items ?? []) {
      if (typeof item.expiresAt === 'number' && item.expiresAt <= now) continue;
      items.push(JSON.stringify(item, (_, value: unknown) => (value instanceof Set ? [...value].sort() : value)));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort();
}

afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('stored items: npm run seed, interrupted and resumed', { timeout: 300_000 }, () => {
  it('is killed mid-way, refuses to start over, and with --resume leaves the items of an uninterrupted seed', async () => {
    const prefix = `sr${randomBytes(4).toString('hex')}_`;
    const checkpointPath = join(dataDir, `seed-checkpoint-${prefix}.json`);
    const checkpoint = () => JSON.parse(readFileSync(checkpointPath, 'utf8')) as Checkpoint;

    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', ...SIZE_FLAGS, ...PART_FLAGS], {
      env: scriptEnv(settings(prefix)),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    // Killed (no chance to clean up) once it is into the posts, the third of five stages.
    await vi.waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the seed exited (${child.exitCode}) before it could be killed`);
        expect(existsSync(checkpointPath) && checkpoint().parts.posts).toBeGreaterThan(0);
      },
      { timeout: 120_000, interval: 10 },
    );
    child.kill('SIGKILL');
    await exited;
    const killed = checkpoint();
    expect(killed.finishedAt).toBeNull();
    expect(killed.parts).toMatchObject({ users: expect.any(Number), follows: 1, posts: expect.any(Number) });

    const again = await seed(prefix, ...SIZE_FLAGS);
    expect(again.code).toBe(1);
    expect(again.out).toContain(
      `An interrupted seed (200 users, 1600 follows, 500 posts, 800 likes, seed 11, 30 days of history; started`,
    );
    expect(again.out).toContain('"npm run seed -- --resume"');
    expect(checkpoint()).toEqual(killed);

    const changed = await runScriptWith({ ...settings(prefix), HOME_RETENTION_DAYS: '27' }, 'seed', '--resume');
    expect(changed.errors).toContain('HOME_RETENTION_DAYS was 28, is 27');
    const longer = await seed(prefix, '--resume', '--days', '60');
    expect(longer.out).toContain('The interrupted seed has days 30: resume it without size flags');

    const resumed = await seed(prefix, '--resume');
    expect(resumed).toMatchObject({
      code: 0,
      out: expect.stringContaining('seeded 200 users, 1600 follows, 500 posts'),
    });
    expect(resumed.out).toContain('(this run, resumed)');
    expect(checkpoint().finishedAt).not.toBeNull();
    expect(await seed(prefix, '--resume')).toMatchObject({
      code: 1,
      out: expect.stringContaining('there is nothing to resume'),
    });

    // The same network seeded in one go, in a table of its own.
    const whole = await open(`sw${randomBytes(4).toString('hex')}_`);
    const network = generateNetwork(killed.size);
    await seedNetwork(whole.stores, network, whole.config, silentProgress);
    const resumedStores = await open(prefix);
    const [fromResumed, fromWhole] = await Promise.all([scan(resumedStores), scan(whole)]);
    expect(fromResumed.length).toBeGreaterThan(5_000);
    expect(fromResumed).toEqual(fromWhole);
    expect(await auditCounters(resumedStores.client, resumedStores.table, { includeGraph: true })).toEqual({
      drift: [],
      mismatches: [],
    });
  });

  it('refuses a size it cannot generate, or a mistyped flag, in one line, before it writes anything', async () => {
    const prefix = `sd${randomBytes(4).toString('hex')}_`;
    for (const days of ['4', '30000']) {
      const refused = await seed(prefix, '--days', days);
      expect(refused).toMatchObject({ code: 1, out: '--days must be from 5 to 3650\n' });
    }
    // A mistyped flag: one line, not parseArgs' stack.
    expect(await seed(prefix, '--dayz', '40')).toMatchObject({
      code: 1,
      out: expect.stringMatching(/^Unknown option '--dayz'[^\n]*\n$/),
    });
    // Past what the generator can hold in memory: refused in words, not as "Invalid array length".
    expect(await seed(prefix, '--users', '99999999999')).toMatchObject({
      code: 1,
      out: '--users must be at most 20000000\n',
    });
    expect(existsSync(join(dataDir, `seed-checkpoint-${prefix}.json`))).toBe(false);
  });
});
