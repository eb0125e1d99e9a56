import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startTestApp, type GraphQLResponse, type TestApp } from '../helpers/app.js';

/**
 * The graph API on a generated graph: a few hundred users with seeded random follows, made
 * through the API, and every answer compared with a plain computation over the same edges.
 */
const USERS = 150;
const AVERAGE_FOLLOWS = 4;
const INTERESTS = ['chess', 'go', 'jazz', 'rust'];

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Person {
  id: string;
  token: string;
  interests: string[];
}

let t: TestApp;
let people: Person[];
const out = new Map<string, Set<string>>();
const into = new Map<string, Set<string>>();

const follows = (a: string, b: string) => out.get(a)!.has(b);
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

beforeAll(async () => {
  t = await startTestApp();
  const random = prng(20261121);
  const profiles = Array.from({ length: USERS }, () => INTERESTS.filter(() => random() < 0.3));
  people = [];
  await inBatches(profiles, 25, async (interests) => {
    const user = await t.signUp(undefined, { interests });
    people.push({ id: user.id, token: user.token, interests });
  });
  for (const p of people) {
    out.set(p.id, new Set());
    into.set(p.id, new Set());
  }
  const edges: [Person, Person][] = [];
  for (const p of people) {
    // A skewed out-degree (a few heavy followers) and a skewed choice of followee (a few popular accounts).
    const count = Math.floor(random() * random() * AVERAGE_FOLLOWS * 4);
    for (let i = 0; i < count; i++) {
      const target = people[Math.floor(random() * random() * people.length)]!;
      if (target === p || out.get(p.id)!.has(target.id)) continue;
      out.get(p.id)!.add(target.id);
      into.get(target.id)!.add(p.id);
      edges.push([p, target]);
    }
  }
  await inBatches(edges, 25, async ([from, to]) => {
    const result = await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: to.id }, from.token);
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  });
}, 180_000);

afterAll(async () => {
  await t.stop();
});

/** Every page of a UserConnection field of one user, `first` at a time. */
async function walk(field: string, userId: string, token?: string, first = 7): Promise<{ ids: string[]; totalCount: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let totalCount = -1;
  for (;;) {
    const result: GraphQLResponse = await t.gql(
      `query($id: ID!, $after: String) { user(id: $id) { ${field}(first: ${first}, after: $after) { totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
      { id: userId, after },
      token,
    );
    expect(result.errors).toBeUndefined();
    const connection = result.data!.user[field];
    totalCount = connection.totalCount;
    ids.push(...connection.edges.map((e: { node: { id: string } }) => e.node.id));
    if (!connection.pageInfo.hasNextPage) return { ids, totalCount };
    after = connection.pageInfo.endCursor;
  }
}

const sample = (n: number, seed: number) => {
  const random = prng(seed);
  return Array.from({ length: n }, () => people[Math.floor(random() * people.length)]!);
};

/** The users most followed and most following, where the interesting answers are, plus a random few. */
function interesting(n: number, seed: number): Person[] {
  const ranked = [...people].sort((a, b) => into.get(b.id)!.size + out.get(b.id)!.size - (into.get(a.id)!.size + out.get(a.id)!.size));
  return [...new Set([...ranked.slice(0, n), ...sample(n, seed)])];
}

describe('on a generated graph', () => {
  it('reports exact follower and following counts for every user', async () => {
    for (let i = 0; i < people.length; i += 100) {
      const batch = people.slice(i, i + 100);
      const result = await t.gql('query($ids: [ID!]!) { users(ids: $ids) { id followerCount followingCount } }', { ids: batch.map((p) => p.id) });
      expect(result.errors).toBeUndefined();
      expect(result.data!.users).toEqual(batch.map((p) => ({ id: p.id, followerCount: into.get(p.id)!.size, followingCount: out.get(p.id)!.size })));
    }
  });

  it('pages through followers and following completely, without repeats', async () => {
    for (const p of interesting(6, 1)) {
      const followers = await walk('followers', p.id);
      expect(followers.totalCount).toBe(into.get(p.id)!.size);
      expect([...followers.ids].sort()).toEqual([...into.get(p.id)!].sort());
      const following = await walk('following', p.id, undefined, 3);
      expect(following.totalCount).toBe(out.get(p.id)!.size);
      expect([...following.ids].sort()).toEqual([...out.get(p.id)!].sort());
    }
  });

  it('finds known followers and mutuals', async () => {
    const viewers = interesting(5, 2);
    for (const p of interesting(5, 3)) {
      for (const viewer of viewers) {
        const known = await walk('knownFollowers', p.id, viewer.token, 4);
        const expected = [...into.get(p.id)!].filter((f) => follows(viewer.id, f)).sort();
        expect([...known.ids].sort()).toEqual(expected);
        expect(known.totalCount).toBe(expected.length);
      }
      const mutuals = await walk('mutuals', p.id, undefined, 4);
      const expected = [...out.get(p.id)!].filter((f) => follows(f, p.id)).sort();
      expect([...mutuals.ids].sort()).toEqual(expected);
      expect(mutuals.totalCount).toBe(expected.length);
    }
  });

  it('suggests friends of friends ranked by shared connections', async () => {
    let suggested = 0;
    for (const viewer of interesting(6, 4)) {
      const counts = new Map<string, string[]>();
      for (const f of out.get(viewer.id)!) {
        for (const s of out.get(f)!) {
          if (s === viewer.id || follows(viewer.id, s)) continue;
          counts.set(s, [...(counts.get(s) ?? []), f]);
        }
      }
      const expected = [...counts]
        .map(([id, via]) => ({ user: { id }, mutualCount: via.length, via: via.sort(byId).slice(0, 3).map((v) => ({ id: v })) }))
        .sort((a, b) => b.mutualCount - a.mutualCount || byId(a.user.id, b.user.id))
        .slice(0, 15);
      const result = await t.gql('{ suggestedFollows(first: 15) { user { id } mutualCount via { id } } }', {}, viewer.token);
      expect(result.errors).toBeUndefined();
      expect(result.data!.suggestedFollows).toEqual(expected);
      suggested += expected.length;
    }
    expect(suggested).toBeGreaterThan(0);
    expect(errorCodes(await t.gql('{ suggestedFollows { mutualCount } }'))).toEqual(['UNAUTHENTICATED']);
  });

  function distances(origin: string, maxDepth: number): Map<string, number> {
    const distance = new Map([[origin, 0]]);
    let frontier = [origin];
    for (let d = 1; d <= maxDepth; d++) {
      const next: string[] = [];
      for (const id of frontier) {
        for (const n of out.get(id)!) {
          if (distance.has(n)) continue;
          distance.set(n, d);
          next.push(n);
        }
      }
      frontier = next;
    }
    return distance;
  }

  it('finds degrees of separation along real follow edges', async () => {
    const froms = interesting(4, 5);
    const tos = sample(8, 6);
    let connected = 0;
    for (const from of froms) {
      const reach = distances(from.id, 4);
      for (const to of tos) {
        const result = await t.gql(
          'query($from: ID!, $to: ID!) { degreesOfSeparation(from: $from, to: $to, maxDepth: 4) { degrees path { id } } }',
          { from: from.id, to: to.id },
        );
        expect(result.errors).toBeUndefined();
        const { degrees, path } = result.data!.degreesOfSeparation as { degrees: number | null; path: { id: string }[] };
        expect(degrees).toBe(reach.get(to.id) ?? null);
        if (degrees === null) {
          expect(path).toEqual([]);
          continue;
        }
        connected += 1;
        expect(path).toHaveLength(degrees + 1);
        expect(path[0]!.id).toBe(from.id);
        expect(path.at(-1)!.id).toBe(to.id);
        for (let i = 1; i < path.length; i++) expect(follows(path[i - 1]!.id, path[i]!.id)).toBe(true);
      }
    }
    expect(connected).toBeGreaterThan(0);
    const self = await t.gql('query($id: ID!) { degreesOfSeparation(from: $id, to: $id) { degrees path { id } } }', { id: froms[0]!.id });
    expect(self.data!.degreesOfSeparation).toEqual({ degrees: 0, path: [{ id: froms[0]!.id }] });
  });

  it('lists the network by distance then id, with the interest filter and keyset pages', async () => {
    const interestsOf = new Map(people.map((p) => [p.id, p.interests]));
    let listed = 0;
    for (const origin of interesting(4, 7)) {
      for (const [maxDepth, interest] of [
        [2, null],
        [3, 'chess'],
        [1, null],
      ] as const) {
        const reach = distances(origin.id, maxDepth);
        reach.delete(origin.id);
        const expected = [...reach]
          .filter(([id]) => interest === null || interestsOf.get(id)!.includes(interest))
          .sort((a, b) => a[1] - b[1] || byId(a[0], b[0]))
          .map(([id]) => id);
        const ids: string[] = [];
        let after: string | null = null;
        for (;;) {
          const result: GraphQLResponse = await t.gql(
            `query($id: ID!, $depth: Int, $interest: String, $after: String) {
              network(userId: $id, maxDepth: $depth, interest: $interest, first: 25, after: $after) {
                totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } }`,
            { id: origin.id, depth: maxDepth, interest, after },
          );
          expect(result.errors).toBeUndefined();
          expect(result.data!.network.totalCount).toBe(expected.length);
          ids.push(...result.data!.network.edges.map((e: { node: { id: string } }) => e.node.id));
          if (!result.data!.network.pageInfo.hasNextPage) break;
          after = result.data!.network.pageInfo.endCursor;
        }
        expect(ids).toEqual(expected);
        listed += expected.length;
      }
    }
    expect(listed).toBeGreaterThan(25);
  });

  it('checks the hop limits and refuses unknown users', async () => {
    const [a, b] = people;
    const cases: [string, Record<string, unknown>, string][] = [
      ['query($a: ID!, $b: ID!) { degreesOfSeparation(from: $a, to: $b, maxDepth: 7) { degrees } }', { a: a!.id, b: b!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!, $b: ID!) { degreesOfSeparation(from: $a, to: $b, maxDepth: 0) { degrees } }', { a: a!.id, b: b!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { network(userId: $a, maxDepth: 4) { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { network(userId: $a, first: 101) { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { network(userId: $a, after: "bm9wZQ") { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { degreesOfSeparation(from: $a, to: "usr_00000000000000000000000000") { degrees } }', { a: a!.id }, 'NOT_FOUND'],
      ['{ network(userId: "usr_00000000000000000000000000") { totalCount } }', {}, 'NOT_FOUND'],
    ];
    for (const [query, variables, code] of cases) expect(errorCodes(await t.gql(query, variables))).toEqual([code]);
  });
});

describe('traversal bounds', () => {
  it('ends a query that would expand more than GRAPH_MAX_EDGES edges with QUERY_TOO_EXPENSIVE', async () => {
    const tight = await startTestApp({ GRAPH_MAX_EDGES: '5' });
    try {
      const hub = await tight.signUp();
      const spokes = await Promise.all(Array.from({ length: 6 }, () => tight.signUp()));
      await Promise.all(spokes.map((s) => tight.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: s.id }, hub.token)));
      const network = await tight.gql('query($id: ID!) { network(userId: $id, maxDepth: 2) { totalCount } }', { id: hub.id });
      expect(errorCodes(network)).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(errorCodes(await tight.gql('{ suggestedFollows { mutualCount } }', {}, hub.token))).toEqual(['QUERY_TOO_EXPENSIVE']);
      const small = await tight.gql('query($id: ID!) { network(userId: $id, maxDepth: 1) { totalCount } }', { id: spokes[0]!.id });
      expect(small.data!.network.totalCount).toBe(0);
    } finally {
      await tight.stop();
    }
  });
});
