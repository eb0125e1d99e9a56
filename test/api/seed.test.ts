import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type OpenStores, openStores } from '../../src/app.js';
import { Tokens } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type Network, generateNetwork } from '../../src/seed/network.js';
import { silentProgress } from '../../src/seed/progress.js';
import { AlreadySeededError, type SeedSummary, seedNetwork } from '../../src/seed/seed.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { UNMETERED } from '../../src/stores/graph/traversal.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const TINY = { users: 60, follows: 300, posts: 60, likes: 60, endMs: Date.parse('2026-06-01T00:00:00.000Z') };
const logger = createLogger('silent');

interface Seeded {
  opened: OpenStores;
  network: Network;
  summary: SeedSummary;
}

async function seedTable(seed: number, prefix = `s${randomBytes(5).toString('hex')}_`): Promise<Seeded> {
  const config = loadConfig({ TABLE_PREFIX: prefix, LOG_LEVEL: 'silent' });
  const opened = await openStores({ config, logger, dynamodbEndpoint: inject('dynamodbEndpoint') });
  const network = generateNetwork({ ...TINY, seed });
  const summary = await seedNetwork(opened.stores, network, config, silentProgress, logger);
  return { opened, network, summary };
}

/** Every follow in the store, as "follower>followee" handles. */
async function edgesByHandle({ opened, network, summary }: Seeded): Promise<string[]> {
  const handleOf = new Map(summary.userIds.map((id, i) => [id, network.users[i]!.handle]));
  const edges: string[] = [];
  for (const id of summary.userIds) {
    const page = await opened.stores.graph.following(id, { first: 1000, after: null }, UNMETERED);
    for (const item of page.items) edges.push(`${handleOf.get(id)}>${handleOf.get(item.id)}`);
  }
  return edges.sort();
}

let first: Seeded;
let second: Seeded;
let t: TestApp;

beforeAll(async () => {
  // The API serves the first copy; its own worker is off, so the seed's worker runs every fan-out it waits for.
  t = await startTestApp({ WORKER_ENABLED: 'false' });
  [first, second] = await Promise.all([seedTable(7, t.tablePrefix), seedTable(7)]);
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([first?.opened.close(), second?.opened.close()]);
});

describe('npm run seed', () => {
  it('writes the same network for the same seed, and a different one for another seed', async () => {
    const edges = await edgesByHandle(first);
    expect(edges).toHaveLength(TINY.follows);
    expect(await edgesByHandle(second)).toEqual(edges);
    const generated = first.network.follows.map((f) => `${first.network.users[f.from]!.handle}>${first.network.users[f.to]!.handle}`);
    expect(edges).toEqual(generated.sort());

    const other = generateNetwork({ ...TINY, seed: 8 });
    expect(other.follows.map((f) => `${other.users[f.from]!.handle}>${other.users[f.to]!.handle}`).sort()).not.toEqual(edges);
  });

  it('shows the seeded counts through the API, with a skewed (power-law-like) follower distribution', async () => {
    const counts: { followerCount: number; postCount: number }[] = [];
    for (const user of first.network.users) {
      const answer = await t.gql(`{ user(handle: "${user.handle}") { followerCount postCount } }`);
      counts.push(answer.data!.user);
    }
    expect(counts.map((c) => c.followerCount)).toEqual(first.network.followerCounts);
    const postsBy = first.network.users.map((_, i) => first.network.posts.filter((p) => p.author === i).length);
    expect(counts.map((c) => c.postCount)).toEqual(postsBy);
    const sorted = counts.map((c) => c.followerCount).sort((a, b) => a - b);
    expect(sorted.at(-1)!).toBeGreaterThanOrEqual(3 * sorted[Math.floor(sorted.length / 2)]!);
  });

  it("fills home timelines by fan-out: a reader sees the posts of the accounts they follow", async () => {
    const { network, summary } = first;
    const reader = network.users.map((_, i) => network.follows.filter((f) => f.from === i).length).reduce((best, n, i, all) => (n > all[best]! ? i : best), 0);
    const followed = new Set(network.follows.filter((f) => f.from === reader).map((f) => summary.userIds[f.to]!));
    const expected = network.posts.filter((p) => followed.has(summary.userIds[p.author]!) || p.author === reader).length;
    const token = await new Tokens(t.app.config.jwtSecret, 600).issue(summary.userIds[reader]!);
    const answer = await t.gql('{ viewer { timeline(first: 100) { edges { node { author { id } likeCount } } } } }', {}, token);
    const authors = answer.data!.viewer.timeline.edges.map((e: { node: { author: { id: string } } }) => e.node.author.id);
    expect(authors).toHaveLength(Math.min(100, expected));
    for (const author of authors) expect(followed.has(author) || author === summary.userIds[reader]).toBe(true);
  });

  it('leaves every counter exact, and refuses to seed a store that already holds the network', async () => {
    const likes = await t.gql('{ publicTimeline(first: 100) { edges { node { likeCount } } } }');
    const total = likes.data!.publicTimeline.edges.reduce((sum: number, e: { node: { likeCount: number } }) => sum + e.node.likeCount, 0);
    expect(total).toBe(TINY.likes);
    expect(await auditCounters(second.opened.client, second.opened.table, { includeGraph: true })).toEqual([]);

    const again = seedNetwork(second.opened.stores, second.network, loadConfig({ LOG_LEVEL: 'silent' }), silentProgress, logger);
    await expect(again).rejects.toBeInstanceOf(AlreadySeededError);
    expect(await edgesByHandle(second)).toHaveLength(TINY.follows);
  });
});
