import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BatchReader, type ReadOptions } from '../../src/stores/dynamo/batch-reader.js';
import { DynamoGraphStore } from '../../src/stores/dynamo/graph/dynamo-graph-store.js';
import { RelationSetsMigration } from '../../scripts/relation-sets-migration.js';
import { type Key, keys, tableName } from '../../src/stores/dynamo/keys.js';
import { ensureTable } from '../../src/stores/dynamo/tables.js';
import type { GraphStore, IdPage, PageArgs, ReadBudget } from '../../src/stores/graph/graph-store.js';
import { Neo4jGraphStore } from '../../src/stores/graph/neo4j-graph-store.js';
import { GraphBudget, UNMETERED } from '../../src/stores/graph/traversal.js';
import { emptyCost, totals, withCostMeter } from '../../src/observability/cost.js';

/**
 * One contract, every backend: the embedded DynamoDB backend always, Neo4j when NEO4J_URI is
 * set (NEO4J_USER / NEO4J_PASSWORD as for the service). Each run uses fresh user ids, so a
 * shared Neo4j database needs no cleaning.
 */
interface Backend {
  name: string;
  open(): Promise<GraphStore>;
}

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const NEO4J = config.neo4jUri;

const backends: Backend[] = [
  {
    name: 'dynamodb (embedded)',
    async open() {
      const table = tableName(`g${randomBytes(5).toString('hex')}_`);
      const client = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), tableName: table, countAs: 'graph' });
      await ensureTable(client, table);
      const store = new DynamoGraphStore({ client, tableName: table });
      return Object.assign(store, { close: async () => client.destroy() });
    },
  },
  {
    name: 'neo4j',
    open: () =>
      Neo4jGraphStore.open({
        uri: NEO4J,
        user: config.neo4jUser,
        password: config.neo4jPassword,
        timeoutMs: config.neo4jTimeoutMs,
      }),
  },
];

/** `count` new users in the graph, with unique handles and the interests given for each. */
async function newUsers(
  graph: GraphStore,
  count: number,
  interests: (i: number) => string[] = () => [],
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('usr'));
  await graph.upsertUsers(
    ids.map((id, i) => ({ id, handle: `h${randomBytes(6).toString('hex')}`, interests: interests(i) })),
  );
  return ids;
}

/** The store's own BatchReader, counting the keys it is asked for. */
class CountingReader extends BatchReader {
  keys = 0;

  override get(keys: readonly Key[], options?: ReadOptions) {
    this.keys += keys.length;
    return super.get(keys, options);
  }
}

/** A budget that never refuses and adds up what it is charged. */
class Meter implements ReadBudget {
  reads = 0;
  items = 0;
  charge(reads: number, items: number): void {
    this.reads += reads;
    this.items += items;
  }

  ensure(): void {}
}

if (NEO4J === '')
  console.warn('GraphStore contract: NEO4J_URI is not set, so the Neo4j backend is SKIPPED (embedded backend only)');

for (const backend of backends) {
  const skipped = backend.name === 'neo4j' && NEO4J === '';
  describe.skipIf(skipped)(
    `GraphStore contract: ${backend.name}${skipped ? ' (SKIPPED: NEO4J_URI is not set)' : ''}`,
    () => contract(backend),
  );
}

function contract(backend: Backend) {
  let graph: GraphStore;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  /** Follow times one second apart, so "newest first" has one right answer. */
  const nextAt = () => new Date((clock += 1000)).toISOString();

  beforeAll(async () => {
    graph = await backend.open();
  });
  afterAll(async () => {
    await graph.close();
  });

  const users = (count: number, interests?: (i: number) => string[]) => newUsers(graph, count, interests);

  async function follow(edges: [string, string][]) {
    for (const [from, to] of edges) expect(await graph.follow(from, to, nextAt())).toBe(true);
  }

  async function walk(read: (page: PageArgs) => Promise<IdPage>, first: number): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await read({ first, after });
      expect(page.items.length).toBeLessThanOrEqual(first);
      ids.push(...page.items.map((item) => item.id));
      if (!page.hasNextPage) return ids;
      after = page.items.at(-1)!.cursor;
    }
  }

  it('follows and unfollows idempotently, with exact counts', async () => {
    const [a, b] = await users(2);
    expect(await graph.follow(a!, b!, nextAt())).toBe(true);
    expect(await graph.follow(a!, b!, nextAt())).toBe(false);
    expect(
      await graph.follows(
        [
          { from: a!, to: b! },
          { from: b!, to: a! },
          { from: a!, to: b! },
        ],
        UNMETERED,
      ),
    ).toEqual([true, false, true]);
    expect(await graph.followsAmong(a!, [b!, newId('usr'), b!], UNMETERED)).toEqual([true, false, true]);
    expect(await graph.followsAmong(b!, [a!], UNMETERED)).toEqual([false]);
    expect(await graph.followsAmong(a!, [], UNMETERED)).toEqual([]);
    expect(await graph.counts([a!, b!, newId('usr')], UNMETERED)).toEqual([
      { followers: 0, following: 1 },
      { followers: 1, following: 0 },
      { followers: 0, following: 0 },
    ]);
    // A query's counts, eventually consistent (DynamoDB Local answers those reads as strongly consistent ones).
    expect(await graph.counts([b!, a!], UNMETERED, { consistent: false })).toEqual([
      { followers: 1, following: 0 },
      { followers: 0, following: 1 },
    ]);
    expect(await graph.unfollow(a!, b!)).toBe(true);
    expect(await graph.unfollow(a!, b!)).toBe(false);
    expect(await graph.follows([{ from: a!, to: b! }], UNMETERED)).toEqual([false]);
    expect(await graph.followsAmong(a!, [b!], UNMETERED)).toEqual([false]);
    expect(await graph.counts([a!, b!], UNMETERED)).toEqual([
      { followers: 0, following: 0 },
      { followers: 0, following: 0 },
    ]);
  });

  it("removes a deleted account's node with every follow it still has, and the others' counts go down exactly", async () => {
    const [gone, a, b, c] = await users(4);
    await follow([
      [a!, gone!],
      [gone!, b!],
      [c!, gone!],
      [a!, b!],
    ]);
    await graph.removeUser(gone!);
    await graph.removeUser(gone!);
    expect(await graph.counts([a!, b!, c!, gone!], UNMETERED)).toEqual([
      { followers: 0, following: 1 },
      { followers: 1, following: 0 },
      { followers: 0, following: 0 },
      { followers: 0, following: 0 },
    ]);
    expect(await walk((page) => graph.followers(b!, page, UNMETERED), 10)).toEqual([a]);
    expect(await walk((page) => graph.following(a!, page, UNMETERED), 10)).toEqual([b]);
  });

  it('removes a node alone, and leaves a node that still has edges to removeUser with them', async () => {
    const [gone, a, b] = await users(3);
    // What a follow that raced the account's deletion leaves once taken back: the node its counts recreated.
    await follow([[a!, gone!]]);
    expect(await graph.unfollow(a!, gone!)).toBe(true);
    await graph.removeNode(gone!);
    await graph.removeNode(gone!);
    expect(await graph.counts([gone!, a!], UNMETERED)).toEqual([
      { followers: 0, following: 0 },
      { followers: 0, following: 0 },
    ]);
    // Not removeUser: the edges of a node are left alone, for the account's removeUser, which is removing them.
    await follow([[b!, a!]]);
    await graph.removeNode(b!);
    expect(await graph.follows([{ from: b!, to: a! }], UNMETERED)).toEqual([true]);
    expect(await walk((page) => graph.followers(a!, page, UNMETERED), 10)).toEqual([b]);
    await graph.removeUser(b!);
    expect(await walk((page) => graph.followers(a!, page, UNMETERED), 10)).toEqual([]);
    expect(await graph.counts([a!], UNMETERED)).toEqual([{ followers: 0, following: 0 }]);
  });

  it('creates one edge when the same follow races with itself', async () => {
    const [a, b] = await users(2);
    const at = nextAt();
    const results = await Promise.all(Array.from({ length: 8 }, () => graph.follow(a!, b!, at)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await graph.counts([b!], UNMETERED)).toEqual([{ followers: 1, following: 0 }]);
  });

  it('imports follows in bulk like single follows: exact counts, newest first, existing edges left alone', async () => {
    const [hub, ...fans] = await users(46);
    const [first, second] = [fans.slice(0, 30), fans.slice(20)];
    const edgesTo = (from: string[]) => from.map((id) => ({ from: id, to: hub!, at: nextAt() }));
    expect(await graph.importFollows(edgesTo(first))).toBe(30);
    // Overlaps the first import by ten edges and repeats one edge within itself.
    expect(await graph.importFollows([...edgesTo(second), { from: fans[40]!, to: hub!, at: nextAt() }])).toBe(15);
    expect(await graph.follow(fans[0]!, hub!, nextAt())).toBe(false);
    expect(await graph.importFollows([{ from: hub!, to: fans[0]!, at: nextAt() }])).toBe(1);
    expect(await graph.counts([hub!, fans[0]!, fans[44]!], UNMETERED)).toEqual([
      { followers: 45, following: 1 },
      { followers: 1, following: 1 },
      { followers: 0, following: 1 },
    ]);
    expect(await walk((p) => graph.followers(hub!, p, UNMETERED), 7)).toEqual([...fans].reverse());
  });

  it('loads a whole new graph at once: counts from its edges, lists newest first, then an ordinary graph', async () => {
    const ids = Array.from({ length: 6 }, () => newId('usr'));
    const [a, b, c, d, e, f] = ids as [string, string, string, string, string, string];
    const nodes = ids.map((id, i) => ({
      id,
      handle: `h${randomBytes(6).toString('hex')}`,
      interests: i % 2 === 1 ? ['chess'] : [],
    }));
    const edges = [
      [a, b],
      [c, b],
      [d, b],
      [b, a],
      [e, f],
    ].map(([from, to]) => ({ from: from!, to: to!, at: nextAt() }));
    let written = 0;
    await graph.importGraph(nodes, edges, (n) => (written += n));
    expect(written).toBe(edges.length);
    expect(await graph.counts(ids, UNMETERED)).toEqual([
      { followers: 1, following: 1 },
      { followers: 3, following: 1 },
      { followers: 0, following: 1 },
      { followers: 0, following: 1 },
      { followers: 0, following: 1 },
      { followers: 1, following: 0 },
    ]);
    expect(await walk((p) => graph.followers(b, p, UNMETERED), 2)).toEqual([d, c, a]);
    expect(
      await graph.follows(
        [
          { from: a, to: b },
          { from: b, to: c },
        ],
        UNMETERED,
      ),
    ).toEqual([true, false]);
    expect(
      (await graph.network({ origin: e, maxDepth: 1, interest: 'chess', first: 10, after: null }, UNMETERED)).items.map(
        (i) => i.id,
      ),
    ).toEqual([f]);
    expect(await graph.follow(a, b, nextAt())).toBe(false);
    expect(await graph.unfollow(c, b)).toBe(true);
    expect(await graph.counts([b, c], UNMETERED)).toEqual([
      { followers: 2, following: 1 },
      { followers: 0, following: 0 },
    ]);
  });

  it('follows users whose node was never written', async () => {
    const [a, b] = [newId('usr'), newId('usr')];
    expect(await graph.follow(a, b, nextAt())).toBe(true);
    expect(await graph.counts([b], UNMETERED)).toEqual([{ followers: 1, following: 0 }]);
    expect((await graph.followers(b, { first: 10, after: null }, UNMETERED)).items.map((i) => i.id)).toEqual([a]);
  });

  it('lists followers and following newest first, in pages that resume at the cursor', async () => {
    const [target, ...others] = await users(8);
    await follow(others.map((o) => [o, target!] as [string, string]));
    await follow(others.slice(0, 5).map((o) => [target!, o] as [string, string]));
    const newestFirst = [...others].reverse();
    for (const first of [1, 3, 7, 100]) {
      expect(await walk((p) => graph.followers(target!, p, UNMETERED), first)).toEqual(newestFirst);
    }
    expect(await walk((p) => graph.following(target!, p, UNMETERED), 2)).toEqual(others.slice(0, 5).reverse());
    expect((await graph.followers(target!, { first: 1000, after: null }, UNMETERED)).items).toHaveLength(7);
  });

  it('lists the follows newer than a cursor, newest first, in pages that walk back to the newest', async () => {
    const [target, ...others] = await users(8);
    await follow(others.map((o) => [o, target!] as [string, string]));
    await follow(others.slice(0, 3).map((o) => [target!, o] as [string, string]));
    const all = (await graph.followers(target!, { first: 10, after: null }, UNMETERED)).items;
    // From the oldest follow, three at a time towards the newest.
    const walked: string[] = [];
    let before = all.at(-1)!.cursor;
    for (let more = true; more;) {
      const page = await graph.followers(target!, { last: 3, before }, UNMETERED);
      walked.unshift(...page.items.map((item) => item.id));
      more = page.hasPreviousPage!;
      before = page.items[0]?.cursor ?? before;
      expect(page.hasNextPage).toBe(false);
    }
    expect(walked).toEqual(all.slice(0, -1).map((item) => item.id));
    const following = (await graph.following(target!, { first: 10, after: null }, UNMETERED)).items;
    const newer = await graph.following(target!, { last: 10, before: following.at(-1)!.cursor }, UNMETERED);
    expect(newer.items.map((item) => item.id)).toEqual(following.slice(0, -1).map((item) => item.id));
    expect(newer.hasPreviousPage).toBe(false);
  });

  it('refuses a list cursor it did not give out', async () => {
    const [a] = await users(1);
    for (const read of [
      () => graph.followers(a!, { first: 5, after: 'nonsense' }, UNMETERED),
      () => graph.following(a!, { last: 5, before: 'nonsense' }, UNMETERED),
    ]) {
      const error = await read().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('BAD_USER_INPUT');
    }
  });

  it('finds known followers and mutuals with their number, intersecting from either list', async () => {
    const [viewer, user, f1, f2, f3, f4, x1, x2] = await users(8);
    const known = (page: PageArgs) => graph.knownFollowers(viewer!, user!, page, UNMETERED);
    const mutuals = (page: PageArgs) => graph.mutuals(user!, page, UNMETERED);
    // viewer follows f1, f2, f3; of them f1 and f3 follow user; f4 follows user too.
    await follow([
      [viewer!, f1!],
      [viewer!, f2!],
      [viewer!, f3!],
      [f1!, user!],
      [f4!, user!],
      [f3!, user!],
    ]);
    // Newest follow of the user first, whichever list is read: the viewer's 3 follows, or (once
    // the viewer follows 5) the user's 3 followers.
    for (const extra of [[], [x1!, x2!]]) {
      await follow(extra.map((x) => [viewer!, x] as [string, string]));
      expect(await walk(known, 1)).toEqual([f3, f1]);
      expect((await known({ first: 1, after: null })).totalCount).toBe(2);
    }
    // user follows f1, f2, f4; f1 and f4 follow back. Newest follow by the user first, whichever list is read.
    await follow([
      [user!, f1!],
      [user!, f2!],
      [user!, f4!],
    ]);
    for (const extra of [[], [x1!, x2!]]) {
      await follow(extra.map((x) => [user!, x] as [string, string]));
      expect(await walk(mutuals, 1)).toEqual([f4, f1]);
      expect(await walk(mutuals, 5)).toEqual([f4, f1]);
      expect((await mutuals({ first: 1, after: null })).totalCount).toBe(2);
    }
    const nobody = await graph.mutuals(x1!, { first: 5, after: null }, UNMETERED);
    expect(nobody).toEqual({ items: [], hasNextPage: false, totalCount: 0 });
  });

  it('suggests friends of friends by shared connections, ties by id, with up to 3 smallest via ids', async () => {
    const [viewer, ...rest] = await users(10);
    const [f1, f2, f3, f4, s1, s2, s3, already] = rest.slice(0, 8);
    await follow([
      [viewer!, f1!],
      [viewer!, f2!],
      [viewer!, f3!],
      [viewer!, f4!],
      [viewer!, already!],
      ...[f1, f2, f3, f4].map((f) => [f!, s1!] as [string, string]),
      [f1!, s2!],
      [f2!, s3!],
      [f3!, viewer!],
      [f4!, already!],
    ]);
    const suggestions = await graph.suggestions(viewer!, 10, UNMETERED);
    const [lo, hi] = s2! < s3! ? [s2!, s3!] : [s3!, s2!];
    expect(suggestions).toEqual([
      { userId: s1, mutualCount: 4, viaIds: [f1, f2, f3, f4].sort().slice(0, 3) },
      { userId: lo, mutualCount: 1, viaIds: [lo === s2 ? f1 : f2] },
      { userId: hi, mutualCount: 1, viaIds: [hi === s2 ? f1 : f2] },
    ]);
    expect(await graph.suggestions(viewer!, 1, UNMETERED)).toHaveLength(1);
  });

  it('finds the shortest directed path within maxDepth', async () => {
    const [a, b, c, d, e, lone] = await users(6);
    await follow([
      [a!, b!],
      [b!, c!],
      [c!, d!],
      [a!, e!],
      [e!, d!],
      [d!, a!],
    ]);
    expect(await graph.shortestPath(a!, a!, 3, UNMETERED)).toEqual([a]);
    expect(await graph.shortestPath(a!, b!, 3, UNMETERED)).toEqual([a, b]);
    expect(await graph.shortestPath(a!, d!, 3, UNMETERED)).toEqual([a, e, d]);
    expect(await graph.shortestPath(b!, e!, 6, UNMETERED)).toEqual([b, c, d, a, e]);
    expect(await graph.shortestPath(b!, e!, 3, UNMETERED)).toBeNull();
    expect(await graph.shortestPath(a!, lone!, 6, UNMETERED)).toBeNull();
  });

  it('lists the network by distance then id, filtered by interest, in pages', async () => {
    const [origin, a, b, c, d, far] = await users(6, (i) => (i % 2 === 0 ? ['chess'] : ['go']));
    await follow([
      [origin!, a!],
      [origin!, b!],
      [a!, c!],
      [b!, c!],
      [c!, d!],
      [d!, far!],
      [a!, origin!],
    ]);
    const all = [...[a!, b!].sort(), c!, d!];
    const page = await graph.network(
      { origin: origin!, maxDepth: 3, interest: null, first: 2, after: null },
      UNMETERED,
    );
    expect(page.totalCount).toBe(4);
    expect(page.items.map((i) => i.id)).toEqual(all.slice(0, 2));
    const rest = await graph.network(
      { origin: origin!, maxDepth: 3, interest: null, first: 10, after: page.items.at(-1)!.cursor },
      UNMETERED,
    );
    expect(rest.items.map((i) => i.id)).toEqual(all.slice(2));
    expect(rest.hasNextPage).toBe(false);
    const chess = await graph.network(
      { origin: origin!, maxDepth: 3, interest: 'chess', first: 10, after: null },
      UNMETERED,
    );
    expect(chess.items.map((i) => i.id)).toEqual([b, d]);
    expect(chess.totalCount).toBe(2);
  });

  it('keeps blocks and mutes as relations: idempotent, either way, listed newest first, separate from follows', async () => {
    const [a, b, c, d] = await users(4);
    const block = (from: string, to: string) => ({ kind: 'blocks' as const, from, to });
    const mute = (from: string, to: string) => ({ kind: 'mutes' as const, from, to });
    expect(await graph.relate(block(a!, b!), nextAt())).toBe(true);
    expect(await graph.relate(block(a!, b!), nextAt())).toBe(false);
    expect(await graph.relate(block(a!, c!), nextAt())).toBe(true);
    expect(await graph.relate(block(d!, a!), nextAt())).toBe(true);
    expect(await graph.relate(mute(a!, d!), nextAt())).toBe(true);
    expect(
      await graph.relations(
        [block(a!, b!), block(b!, a!), mute(a!, b!), mute(a!, d!), block(d!, a!), mute(d!, a!)],
        UNMETERED,
      ),
    ).toEqual([true, false, false, true, true, false]);
    // A relation is no follow, and counts nothing.
    expect(await graph.follows([{ from: a!, to: b! }], UNMETERED)).toEqual([false]);
    expect(await graph.counts([a!, b!], UNMETERED)).toEqual([
      { followers: 0, following: 0 },
      { followers: 0, following: 0 },
    ]);
    expect(await walk((page) => graph.related('blocks', a!, page, UNMETERED), 1)).toEqual([c, b]);
    expect(await walk((page) => graph.related('mutes', a!, page, UNMETERED), 5)).toEqual([d]);
    expect(await walk((page) => graph.related('blocks', b!, page, UNMETERED), 5)).toEqual([]);
    // Backwards from the oldest block: the newer ones, newest first; none of the mutes or of the blocks received.
    const oldest = (await graph.related('blocks', a!, { first: 5, after: null }, UNMETERED)).items.at(-1)!;
    expect(await graph.related('blocks', a!, { last: 5, before: oldest.cursor }, UNMETERED)).toEqual({
      items: [expect.objectContaining({ id: c })],
      hasNextPage: false,
      hasPreviousPage: false,
    });
    expect(await graph.relatedCount('blocks', a!, UNMETERED)).toBe(2);
    expect(await graph.relatedCount('mutes', a!, UNMETERED)).toBe(1);
    expect((await graph.relatedEitherWay('blocks', a!, UNMETERED)).sort()).toEqual([b!, c!, d!].sort());
    expect(await graph.relatedEitherWay('blocks', b!, UNMETERED)).toEqual([a]);
    expect(await graph.relatedEitherWay('mutes', d!, UNMETERED)).toEqual([a]);
    await expect(graph.related('blocks', a!, { first: 5, after: 'nonsense' }, UNMETERED)).rejects.toThrow(AppError);

    expect(await graph.unrelate(block(a!, b!))).toBe(true);
    expect(await graph.unrelate(block(a!, b!))).toBe(false);
    expect(await graph.unrelate(mute(a!, d!))).toBe(true);
    expect(await graph.relations([block(a!, b!), mute(a!, d!), block(a!, c!)], UNMETERED)).toEqual([
      false,
      false,
      true,
    ]);
    expect(await walk((page) => graph.related('blocks', a!, page, UNMETERED), 5)).toEqual([c]);
    expect(await graph.relatedCount('mutes', a!, UNMETERED)).toBe(0);
  });

  it("removes a deleted account's blocks and mutes, made and received", async () => {
    const [gone, a, b] = await users(3);
    await graph.relate({ kind: 'blocks', from: gone!, to: a! }, nextAt());
    await graph.relate({ kind: 'blocks', from: b!, to: gone! }, nextAt());
    await graph.relate({ kind: 'mutes', from: a!, to: gone! }, nextAt());
    await graph.relate({ kind: 'blocks', from: b!, to: a! }, nextAt());
    await graph.removeUser(gone!);
    expect(await graph.relatedEitherWay('blocks', a!, UNMETERED)).toEqual([b]);
    expect(await walk((page) => graph.related('blocks', b!, page, UNMETERED), 5)).toEqual([a]);
    expect(await graph.relatedCount('mutes', a!, UNMETERED)).toBe(0);
    expect(await graph.relatedEitherWay('blocks', gone!, UNMETERED)).toEqual([]);
  });

  it('leaves excluded users out of known followers, mutuals, suggestions, paths and networks, as if they did not exist', async () => {
    const [viewer, user, f1, f2, s1, s2] = await users(6);
    const excluding = new Set([f2!, s2!]);
    await follow([
      [viewer!, f1!],
      [viewer!, f2!],
      [f1!, user!],
      [f2!, user!],
      [user!, f1!],
      [user!, f2!],
      [f1!, s1!],
      [f2!, s2!],
      [s2!, s1!],
    ]);
    const known = await graph.knownFollowers(viewer!, user!, { first: 5, after: null }, UNMETERED, excluding);
    expect({ ids: known.items.map((i) => i.id), total: known.totalCount }).toEqual({ ids: [f1], total: 1 });
    const mutuals = await graph.mutuals(user!, { first: 5, after: null }, UNMETERED, excluding);
    expect({ ids: mutuals.items.map((i) => i.id), total: mutuals.totalCount }).toEqual({ ids: [f1], total: 1 });
    const [lo, hi] = s1! < user! ? [s1!, user!] : [user!, s1!];
    expect(await graph.suggestions(viewer!, 5, UNMETERED, excluding)).toEqual([
      { userId: lo, mutualCount: 1, viaIds: [f1] },
      { userId: hi, mutualCount: 1, viaIds: [f1] },
    ]);
    // viewer -> f2 -> s2 is the only way to s2; to s1 the way through f1 is as short.
    expect(await graph.shortestPath(viewer!, s2!, 3, UNMETERED, excluding)).toBeNull();
    expect(await graph.shortestPath(viewer!, s1!, 3, UNMETERED, excluding)).toEqual([viewer, f1, s1]);
    expect(await graph.shortestPath(f2!, s1!, 3, UNMETERED, excluding)).toBeNull();
    const network = await graph.network(
      { origin: viewer!, maxDepth: 3, interest: null, first: 10, after: null, excluding },
      UNMETERED,
    );
    expect({ ids: network.items.map((i) => i.id).sort(), total: network.totalCount }).toEqual({
      ids: [f1!, user!, s1!].sort(),
      total: 3,
    });

    // The same, with the excluded users still arriving when the traversal starts (the caller reads them beside the first hop).
    let arrive: (ids: ReadonlySet<string>) => void = () => {};
    const arriving = new Promise<ReadonlySet<string>>((resolve) => (arrive = resolve));
    const late = graph.network(
      { origin: viewer!, maxDepth: 3, interest: null, first: 10, after: null, excluding: arriving },
      UNMETERED,
    );
    arrive(excluding);
    expect((await late).items.map((i) => i.id).sort()).toEqual([f1!, user!, s1!].sort());
    const later = (ids: string[]) => Promise.resolve(new Set(ids));
    expect(await graph.shortestPath(viewer!, s2!, 3, UNMETERED, later([f2!, s2!]))).toBeNull();
    expect(await graph.shortestPath(viewer!, s1!, 3, UNMETERED, later([f2!]))).toEqual([viewer, f1, s1]);
    // The intersections, with the excluded users passed as a promise, as the caller passes its read of them (beside the counts).
    let arriveForKnown: (ids: ReadonlySet<string>) => void = () => {};
    const lateKnown = graph.knownFollowers(
      viewer!,
      user!,
      { first: 5, after: null },
      UNMETERED,
      new Promise((resolve) => (arriveForKnown = resolve)),
    );
    arriveForKnown(excluding);
    expect(await lateKnown).toMatchObject({ items: [{ id: f1 }], totalCount: 1 });
    expect(await graph.mutuals(user!, { first: 5, after: null }, UNMETERED, later([f2!]))).toMatchObject({
      items: [{ id: f1 }],
      totalCount: 1,
    });
    // An excluded origin or end reaches nobody, however short the way.
    expect(
      await graph.network(
        { origin: f2!, maxDepth: 2, interest: null, first: 10, after: null, excluding: later([f2!]) },
        UNMETERED,
      ),
    ).toEqual({
      items: [],
      hasNextPage: false,
      totalCount: 0,
    });
    expect(await graph.shortestPath(viewer!, f1!, 3, UNMETERED, later([f1!]))).toBeNull();
    expect(await graph.shortestPath(f1!, f1!, 3, UNMETERED, later([f1!]))).toBeNull();
  });

  describe('the read budget', () => {
    let hub: string;
    let spokes: string[];
    beforeAll(async () => {
      // hub follows 11 spokes; each spoke follows the next, around a ring.
      [hub, ...spokes] = (await users(12)) as [string, ...string[]];
      await follow(spokes.map((s) => [hub, s] as [string, string]));
      await follow(spokes.map((s, i) => [s, spokes[(i + 1) % spokes.length]!] as [string, string]));
    });

    /**
     * Each read with what it is charged, the same on every backend: a hop charges one read per
     * list and one per lookup of up to 100 counts, then its entries and the users looked up; an
     * intersection charges the two counts, then the shorter list and an edge per entry. The last
     * figure is the requests the embedded backend sends: it reads up to 100 following lists in one
     * BatchGetItem of the nodes' following sets, with their counts, so a hop along follows is one request.
     */
    const reads: [string, () => (budget: ReadBudget) => Promise<unknown>, { reads: number; items: number }, number][] =
      [
        // Hop 1: the hub's list and count (2 reads; 1 user + 11 entries); hop 2: 11 lists and a lookup of their counts (12; 11 + 11).
        ['suggestions', () => (b) => graph.suggestions(hub, 10, b), { reads: 14, items: 34 }, 2],
        // The same two hops; the third frontier is empty (every spoke was reached already).
        [
          'network',
          () => (b) => graph.network({ origin: hub, maxDepth: 3, interest: null, first: 10, after: null }, b),
          { reads: 14, items: 34 },
          2,
        ],
        // ...and a lookup of the 11 users' interests.
        [
          'network by interest',
          () => (b) => graph.network({ origin: hub, maxDepth: 3, interest: 'chess', first: 10, after: null }, b),
          { reads: 15, items: 45 },
          3,
        ],
        // Five steps along the ring, each: both sides' counts and the one-entry list of the cheaper side.
        ['shortestPath', () => (b) => graph.shortestPath(spokes[0]!, spokes[5]!, 6, b), { reads: 15, items: 15 }, 15],
        // Counts of both (1 read, 2 users), then the spoke's 2 followers and their edges from the hub (2 reads, 4).
        [
          'knownFollowers',
          () => (b) => graph.knownFollowers(hub, spokes[1]!, { first: 5, after: null }, b),
          { reads: 3, items: 6 },
          3,
        ],
        // Its count, then its one follow and that edge back (1 + 2 reads; 1 + 2).
        ['mutuals', () => (b) => graph.mutuals(spokes[0]!, { first: 5, after: null }, b), { reads: 3, items: 3 }, 3],
        ['followers', () => (b) => graph.followers(hub, { first: 5, after: null }, b), { reads: 1, items: 6 }, 1],
        ['counts', () => (b) => graph.counts([hub, ...spokes], b), { reads: 1, items: 12 }, 1],
        [
          'follows',
          () => (b) =>
            graph.follows(
              spokes.map((s) => ({ from: hub, to: s })),
              b,
            ),
          { reads: 1, items: 11 },
          1,
        ],
        // The hub's node, whose following set answers for all 11.
        ['followsAmong', () => (b) => graph.followsAmong(hub, spokes, b), { reads: 1, items: 1 }, 1],
      ];

    const sentDuring = async (run: () => Promise<unknown>) => {
      const before = totals.graph.requests;
      await run();
      return totals.graph.requests - before;
    };

    it.each(reads)(
      'charges %s before reading, the same on every backend',
      async (_name, read, expected, embeddedRequests) => {
        const meter = new Meter();
        const sent = await sentDuring(() => read()(meter));
        expect({ reads: meter.reads, items: meter.items }).toEqual(expected);
        // Both backends answer several charged reads in one request: Neo4j in one statement, the embedded backend from following sets.
        if (graph.backend === 'dynamodb') expect(sent).toBe(embeddedRequests);
        else expect(sent).toBeLessThanOrEqual(expected.reads);
      },
    );

    it.each(reads)(
      'refuses %s with QUERY_TOO_EXPENSIVE at either bound, sending no read it could not pay for',
      async (_name, read, expected) => {
        expect(await read()(new GraphBudget({ maxReads: expected.reads, maxEdges: expected.items }))).toBeDefined();
        for (const [limits, budget] of [
          [{ maxReads: expected.reads - 1, maxEdges: expected.items }, 'GRAPH_MAX_READS'],
          [{ maxReads: expected.reads, maxEdges: expected.items - 1 }, 'GRAPH_MAX_EDGES'],
        ] as const) {
          let error: unknown;
          const sent = await sentDuring(() => read()(new GraphBudget(limits)).catch((e: unknown) => (error = e)));
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).code).toBe('QUERY_TOO_EXPENSIVE');
          expect((error as AppError).details).toMatchObject({ budget, ...limits });
          expect(sent).toBeLessThanOrEqual(limits.maxReads);
        }
      },
    );

    it('stops reading a hop as soon as what must follow it cannot fit', async () => {
      // origin follows 70 users, who follow two new users each: the third hop would read 140 lists.
      const [origin, ...rest] = await users(211);
      const middle = rest.slice(0, 70);
      const edges = [
        ...middle.map((m) => ({ from: origin!, to: m, at: nextAt() })),
        ...middle.flatMap((m, i) =>
          [rest[70 + 2 * i]!, rest[71 + 2 * i]!].map((to) => ({ from: m, to, at: nextAt() })),
        ),
      ];
      expect(await graph.importFollows(edges)).toBe(210);
      const network = (budget: ReadBudget) =>
        graph.network({ origin: origin!, maxDepth: 3, interest: null, first: 10, after: null }, budget);
      // Hop 1: 2 reads; hop 2: 70 lists and a lookup of their counts. The first 64 lists already
      // name 128 users whose lists hop 3 would read: past the budget, so the other 6 are not read.
      // The embedded backend reads the origin's count with its following set (one request), then,
      // as 70 users are more than one part, their counts (one) before the first 64 sets (one).
      let error: unknown;
      const sent = await sentDuring(() =>
        network(new GraphBudget({ maxReads: 150, maxEdges: 10_000 })).catch((e: unknown) => (error = e)),
      );
      expect((error as AppError).details).toMatchObject({ budget: 'GRAPH_MAX_READS' });
      if (graph.backend === 'dynamodb') expect(sent).toBe(1 + 1 + 1);
      else expect(sent).toBeLessThan(2 + 1 + 70);
      expect((await network(new GraphBudget({ maxReads: 2 + 71 + 142, maxEdges: 10_000 }))).totalCount).toBe(210);

      // By interest, two hops: the last is followed by a lookup of every user reached (70 + 128
      // after 64 lists). With 1 + 70 + 70 + 140 entries already charged, that passes 400.
      const byInterest = (budget: ReadBudget) =>
        graph.network({ origin: origin!, maxDepth: 2, interest: 'chess', first: 10, after: null }, budget);
      const sentByInterest = await sentDuring(() =>
        byInterest(new GraphBudget({ maxReads: 100, maxEdges: 400 })).catch((e: unknown) => (error = e)),
      );
      expect((error as AppError).details).toMatchObject({ budget: 'GRAPH_MAX_EDGES' });
      if (graph.backend === 'dynamodb') expect(sentByInterest).toBe(1 + 1 + 1);
      else expect(sentByInterest).toBeLessThan(2 + 1 + 70);
      expect((await byInterest(new GraphBudget({ maxReads: 100, maxEdges: 281 + 210 }))).totalCount).toBe(0);
    });

    it('shares one budget between reads, and charges nothing for a refused one', async () => {
      const budget = new GraphBudget({ maxReads: 20, maxEdges: 1000 });
      await graph.suggestions(hub, 10, budget);
      const error = await graph
        .network({ origin: hub, maxDepth: 3, interest: null, first: 10, after: null }, budget)
        .catch((e: unknown) => e);
      expect((error as AppError).code).toBe('QUERY_TOO_EXPENSIVE');
      // 14 + 2 (the network's first hop) + 1 (this page) fit in 20; the second hop's 12 did not, and were not charged.
      expect(await graph.followers(hub, { first: 5, after: null }, budget)).toBeDefined();
    });
  });
}

/**
 * The embedded backend's following sets, with room for 3 ids: hops read a user's following list
 * from the set only while it is complete, and from the list otherwise, with the same answers.
 */
describe('the embedded backend: following sets', () => {
  const table = tableName(`s${randomBytes(5).toString('hex')}_`);
  const client = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), tableName: table, countAs: 'graph' });
  const graph = new DynamoGraphStore({
    client,
    tableName: table,
    importApi: 'transactWrite',
    reader: new BatchReader(client, table, false),
    followingSetMax: 3,
  });
  let clock = Date.parse('2026-02-01T00:00:00.000Z');
  const nextAt = () => new Date((clock += 1000)).toISOString();
  beforeAll(async () => ensureTable(client, table));
  afterAll(() => client.destroy());

  const users = (count: number) => newUsers(graph, count);

  /** What one suggestions call sends: 2 requests (each hop's counts with their sets) while every list comes from a set, one more per list read instead. */
  async function suggested(viewer: string) {
    const before = totals.graph.requests;
    const suggestions = await graph.suggestions(viewer, 10, UNMETERED);
    return { ids: suggestions.map((s) => s.userId).sort(), requests: totals.graph.requests - before };
  }

  it('reads the list of a user whose set is full, and the set again once unfollows make it complete', async () => {
    const [viewer, hub, ...others] = await users(6);
    const [a, b, c, d] = others as [string, string, string, string];
    expect(await graph.follow(viewer!, hub!, nextAt())).toBe(true);
    for (const to of [a, b, c]) expect(await graph.follow(hub!, to, nextAt())).toBe(true);
    expect(await suggested(viewer!)).toEqual({ ids: [a, b, c].sort(), requests: 2 });
    // The fourth follow does not fit the set: counted, and the hub's hops read its list.
    expect(await graph.follow(hub!, d, nextAt())).toBe(true);
    expect(await graph.counts([hub!], UNMETERED)).toEqual([{ followers: 1, following: 4 }]);
    expect(await suggested(viewer!)).toEqual({ ids: [a, b, c, d].sort(), requests: 3 });
    // Unfollowing the one the set lacks makes it complete again; unfollowing one it holds does not.
    expect(await graph.unfollow(hub!, a)).toBe(true);
    expect(await suggested(viewer!)).toEqual({ ids: [b, c, d].sort(), requests: 3 });
    expect(await graph.unfollow(hub!, d)).toBe(true);
    expect(await suggested(viewer!)).toEqual({ ids: [b, c].sort(), requests: 2 });
    expect(await graph.follow(hub!, a, nextAt())).toBe(true);
    expect(await suggested(viewer!)).toEqual({ ids: [a, b, c].sort(), requests: 2 });
  });

  it("answers a user's follows among some accounts from the node while its set is complete, and from the edges otherwise", async () => {
    const [user, ...others] = await users(6);
    const [a, b, c, d, e] = others as [string, string, string, string, string];
    const among = async () => {
      const meter = new Meter();
      const cost = emptyCost();
      const followed = await withCostMeter(cost, () => graph.followsAmong(user!, [a, b, c, d, e], meter));
      return { followed, requests: cost.graph.requests, waves: cost.waves, items: meter.items };
    };
    for (const to of [a, b, c]) expect(await graph.follow(user!, to, nextAt())).toBe(true);
    expect(await among()).toEqual({ followed: [true, true, true, false, false], requests: 1, waves: 1, items: 1 });
    // Past the set's room: the edges, after the node; from then on beside it (this store does not coalesce: two requests).
    expect(await graph.follow(user!, d, nextAt())).toBe(true);
    expect(await among()).toEqual({ followed: [true, true, true, true, false], requests: 2, waves: 2, items: 6 });
    expect(await among()).toEqual({ followed: [true, true, true, true, false], requests: 2, waves: 1, items: 6 });
    // Complete again: answered from the node, which the edges beside it stop being read for once it has been seen so.
    expect(await graph.unfollow(user!, d)).toBe(true);
    expect(await graph.unfollow(user!, a)).toBe(true);
    expect(await among()).toEqual({ followed: [false, true, true, false, false], requests: 2, waves: 1, items: 6 });
    expect(await among()).toEqual({ followed: [false, true, true, false, false], requests: 1, waves: 1, items: 1 });
  });

  it("charges a hop's entries when its counts arrive with the sets, before querying a list its set cannot answer", async () => {
    const [viewer, hub, ...others] = await users(7);
    expect(
      await graph.importFollows([
        { from: viewer!, to: hub!, at: nextAt() },
        ...others.map((to) => ({ from: hub!, to, at: nextAt() })),
      ]),
    ).toBe(6);
    // Charged: the viewer's hop, 2 reads and 1 user + its 1 entry; the hub's hop, 2 reads and 1 user + its 5 entries (8).
    const run = async (maxEdges: number) => {
      const before = totals.graph.requests;
      const outcome = await graph
        .suggestions(viewer!, 10, new GraphBudget({ maxReads: 100, maxEdges }))
        .catch((error: unknown) => error);
      return { outcome, requests: totals.graph.requests - before };
    };
    const refused = await run(7);
    expect((refused.outcome as AppError).details).toMatchObject({ budget: 'GRAPH_MAX_EDGES' });
    // Both nodes were read, with their counts; the hub's list, past its set, was not.
    expect(refused.requests).toBe(2);
    const answered = await run(8);
    expect((answered.outcome as { userId: string }[]).map((s) => s.userId).sort()).toEqual([...others].sort());
    expect(answered.requests).toBe(3);
  });

  it('looks up the counts of more users than one read of their sets holds before reading the sets', async () => {
    const [viewer, extra, ...followed] = await users(103);
    expect(
      await graph.importFollows([
        ...followed.map((to) => ({ from: viewer!, to, at: nextAt() })),
        { from: followed[0]!, to: extra!, at: nextAt() },
      ]),
    ).toBe(102);
    // The viewer's count with its set (1), which is past this store's room of 3, so its list (1); then 101 counts
    // (2 lookups of up to 100) before their sets (2): what a refused hop reads before its charge stays within one read of sets.
    expect(await suggested(viewer!)).toEqual({ ids: [extra], requests: 1 + 1 + 2 + 2 });
  });

  it('imports follows past a full set as counted only, and reads the list of a node written without a set', async () => {
    const [viewer, hub, ...others] = await users(7);
    expect(
      await graph.importFollows([
        { from: viewer!, to: hub!, at: nextAt() },
        ...others.map((to) => ({ from: hub!, to, at: nextAt() })),
      ]),
    ).toBe(6);
    expect(await graph.counts([hub!], UNMETERED)).toEqual([{ followers: 1, following: 5 }]);
    expect(await suggested(viewer!)).toEqual({ ids: [...others].sort(), requests: 3 });
    // A node from before the sets existed: its hops read the list.
    const [old, ...followed] = await users(3);
    for (const to of followed) expect(await graph.follow(old!, to, nextAt())).toBe(true);
    await client.send(
      new UpdateCommand({ TableName: table, Key: keys.graphNode(old!), UpdateExpression: 'REMOVE followingIds' }),
    );
    expect(await graph.follow(viewer!, old!, nextAt())).toBe(true);
    expect((await suggested(viewer!)).ids).toEqual([...others, ...followed].sort());
    const network = await graph.network(
      { origin: old!, maxDepth: 1, interest: null, first: 10, after: null },
      UNMETERED,
    );
    expect(network.items.map((item) => item.id)).toEqual([...followed].sort());
  });
});

/**
 * The embedded backend's relation sets, with room for 2 ids a set: the lookups about one user
 * that a page makes (the viewer's follows, blocks either way and mutes) are one read of that
 * user's node while its sets hold every relation, and the edges otherwise, with the same answers.
 */
describe('the embedded backend: relation sets', () => {
  const table = tableName(`r${randomBytes(5).toString('hex')}_`);
  const client = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), tableName: table, countAs: 'graph' });
  const reader = new CountingReader(client, table, true);
  const graph = new DynamoGraphStore({
    client,
    tableName: table,
    importApi: 'transactWrite',
    reader,
    followingSetMax: 3,
    relationSetMax: 2,
  });
  let clock = Date.parse('2026-03-01T00:00:00.000Z');
  const nextAt = () => new Date((clock += 1000)).toISOString();
  const block = (from: string, to: string) => ({ kind: 'blocks' as const, from, to });
  const mute = (from: string, to: string) => ({ kind: 'mutes' as const, from, to });
  beforeAll(async () => ensureTable(client, table));
  afterAll(() => client.destroy());

  const users = (count: number) => newUsers(graph, count);

  /** The sequential requests of the last pageLookups, and the keys it asked its reader for. */
  let lastRead = { waves: 0, keys: 0 };
  /** What a page's rules ask about `viewer` and `others` (blocks either way, the viewer's mutes) and its follow flags, in one tick; and the requests that took. */
  async function pageLookups(viewer: string, others: readonly string[]) {
    const cost = emptyCost();
    const keysBefore = reader.keys;
    const [relations, follows] = await withCostMeter(cost, () =>
      Promise.all([
        graph.relations(
          others.flatMap((id) => [block(viewer, id), block(id, viewer), mute(viewer, id)]),
          UNMETERED,
        ),
        graph.follows(
          others.map((to) => ({ from: viewer, to })),
          UNMETERED,
        ),
      ]),
    );
    const each = others.map((_, i) => ({
      blocks: relations[3 * i]!,
      blockedBy: relations[3 * i + 1]!,
      mutes: relations[3 * i + 2]!,
      follows: follows[i]!,
    }));
    lastRead = { waves: cost.waves, keys: reader.keys - keysBefore };
    return { each, requests: cost.graph.requests };
  }

  const none = { blocks: false, blockedBy: false, mutes: false, follows: false };

  it("answers a viewer's follows, blocks either way and mutes from the viewer's node, kept in step with every relation made and ended", async () => {
    const [viewer, a, b, c] = await users(4);
    expect(await graph.follow(viewer!, a!, nextAt())).toBe(true);
    expect(await graph.relate(block(viewer!, b!), nextAt())).toBe(true);
    expect(await graph.relate(block(c!, viewer!), nextAt())).toBe(true);
    expect(await graph.relate(mute(viewer!, a!), nextAt())).toBe(true);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [
        { ...none, follows: true, mutes: true },
        { ...none, blocks: true },
        { ...none, blockedBy: true },
      ],
      requests: 1,
    });
    expect(await graph.unrelate(block(c!, viewer!))).toBe(true);
    expect(await graph.unrelate(mute(viewer!, a!))).toBe(true);
    expect(await graph.unfollow(viewer!, a!)).toBe(true);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [none, { ...none, blocks: true }, none],
      requests: 1,
    });
    // A single lookup reads its edge, as before.
    expect(await graph.relations([block(viewer!, b!)], UNMETERED)).toEqual([true]);
  });

  it('reads the edges of a user whose relation set had no room, for good, with the same answers', async () => {
    const [viewer, a, b, c] = await users(4);
    expect(await graph.relate(block(viewer!, a!), nextAt())).toBe(true);
    expect(await graph.relate(block(viewer!, b!), nextAt())).toBe(true);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toMatchObject({ requests: 1 });
    // The third block does not fit: the block is made, and the viewer's node no longer answers. Its edges are read
    // after the node once, then in the node's call.
    expect(await graph.relate(block(viewer!, c!), nextAt())).toBe(true);
    const full = await pageLookups(viewer!, [a!, b!, c!]);
    expect(full).toEqual({ each: [a, b, c].map(() => ({ ...none, blocks: true })), requests: 2 });
    expect(lastRead.waves).toBe(2);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({ each: full.each, requests: 1 });
    expect(lastRead.waves).toBe(1);
    // Nor once the relations fit again: the set may have missed one made while it was full.
    expect(await graph.unrelate(block(viewer!, a!))).toBe(true);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [none, { ...none, blocks: true }, { ...none, blocks: true }],
      requests: 1,
    });
    // The other side's node had room: c's lookups about the viewer still come from c's node.
    expect((await pageLookups(c!, [viewer!])).each).toEqual([{ ...none, blockedBy: true }]);
  });

  it('reads the edges of a node from before the relation sets, which a profile change does not mark complete and the migration does', async () => {
    const [viewer, a, b, c] = await users(4);
    expect(await graph.relate(mute(viewer!, a!), nextAt())).toBe(true);
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.graphNode(viewer!),
        UpdateExpression: 'REMOVE relationSetsComplete, mutesIds',
      }),
    );
    await graph.upsertUsers([{ id: viewer!, handle: `h${randomBytes(6).toString('hex')}`, interests: ['chess'] }]);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [{ ...none, mutes: true }, none, none],
      requests: 2,
    });
    // The migration writes its sets from the relation lists, received blocks too, and marks it complete.
    expect(await graph.relate(block(b!, viewer!), nextAt())).toBe(true);
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.graphNode(viewer!),
        UpdateExpression: 'REMOVE relationSetsComplete, blockedByIds',
      }),
    );
    const waiting = [];
    const migration = new RelationSetsMigration({ client, tableName: table, relationSetMax: 2 });
    for await (const ids of migration.nodesWithoutRelationSets()) waiting.push(...ids);
    expect(waiting).toContain(viewer);
    expect(waiting).not.toContain(a);
    expect(await migration.completeRelationSets(viewer!)).toBe(true);
    expect(await migration.completeRelationSets(viewer!)).toBe(false);
    // This store found the node incomplete before: its 9 relation lookups' edges are read beside it (and the node, asked
    // for the relations and for the follows), once; that read finds the sets complete, and the next reads the node alone.
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [{ ...none, mutes: true }, { ...none, blockedBy: true }, none],
      requests: 1,
    });
    expect(lastRead.keys).toBe(2 + 9);
    expect(await graph.unrelate(mute(viewer!, a!))).toBe(true);
    expect(await pageLookups(viewer!, [a!, b!, c!])).toEqual({
      each: [none, { ...none, blockedBy: true }, none],
      requests: 1,
    });
    expect(lastRead.keys).toBe(2);
    // A node the bulk import wrote is complete.
    const [imported, other] = [newId('usr'), newId('usr')];
    await graph.importGraph(
      [imported, other].map((id) => ({ id, handle: `h${randomBytes(6).toString('hex')}`, interests: [] })),
      [{ from: imported, to: other, at: nextAt() }],
    );
    expect(await pageLookups(imported, [other, viewer!, a!])).toEqual({
      each: [{ ...none, follows: true }, none, none],
      requests: 1,
    });
  });
});

/** A reader that records what it was asked, and passes it on. */
class RecordingReader extends BatchReader {
  asked: { keys: number; consistent: boolean }[] = [];

  override get(keys: readonly Key[], options?: ReadOptions) {
    this.asked.push({ keys: keys.length, consistent: options?.consistent === true });
    return super.get(keys, options);
  }
}

/**
 * The embedded backend's follow counts: a query's (eventually consistent) go through the table's
 * shared reader, to join the page's other items in one BatchGetItem; strongly consistent ones (a
 * mutation's payload) and the traversals' stay on the graph's own reader, with the follow flags.
 */
describe('the embedded backend: where follow counts are read', () => {
  const table = tableName(`c${randomBytes(5).toString('hex')}_`);
  const client = createDocumentClient({ endpoint: inject('dynamodbEndpoint'), tableName: table, countAs: 'graph' });
  const own = new RecordingReader(client, table, true);
  const shared = new RecordingReader(client, table, true);
  const graph = new DynamoGraphStore({
    client,
    tableName: table,
    importApi: 'transactWrite',
    reader: own,
    tableReader: shared,
  });
  beforeAll(async () => ensureTable(client, table));
  afterAll(() => client.destroy());

  it('reads eventually consistent counts through the table reader and the others through its own', async () => {
    const [a, b] = await newUsers(graph, 2);
    expect(await graph.follow(a!, b!, new Date().toISOString())).toBe(true);
    const asked = async (read: () => Promise<unknown>) => {
      [own.asked, shared.asked] = [[], []];
      await read();
      return { own: own.asked, shared: shared.asked };
    };
    expect(await asked(() => graph.counts([a!, b!], UNMETERED, { consistent: false }))).toEqual({
      own: [],
      shared: [{ keys: 2, consistent: false }],
    });
    expect(await asked(() => graph.counts([a!, b!], UNMETERED))).toEqual({
      own: [{ keys: 2, consistent: true }],
      shared: [],
    });
    expect(await asked(() => graph.counts([a!], UNMETERED, { consistent: true }))).toEqual({
      own: [{ keys: 1, consistent: true }],
      shared: [],
    });
    expect(await asked(() => graph.degrees([a!, b!]))).toEqual({ own: [{ keys: 2, consistent: true }], shared: [] });
    expect(await graph.counts([a!, b!], UNMETERED, { consistent: false })).toEqual([
      { followers: 0, following: 1 },
      { followers: 1, following: 0 },
    ]);
  });
});
