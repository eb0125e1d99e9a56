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
async function walk(
  field: string,
  userId: string,
  token?: string,
  first = 7,
): Promise<{ ids: string[]; totalCount: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const result: GraphQLResponse = await t.gql(
      `query($id: ID!, $after: String) { user(id: $id) { ${field}(first: ${first}, after: $after) { totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
      { id: userId, after },
      token,
    );
    expect(result.errors).toBeUndefined();
    const connection = result.data!.user[field];
    ids.push(...connection.edges.map((e: { node: { id: string } }) => e.node.id));
    if (!connection.pageInfo.hasNextPage) return { ids, totalCount: connection.totalCount };
    after = connection.pageInfo.endCursor;
  }
}

const sample = (n: number, seed: number) => {
  const random = prng(seed);
  return Array.from({ length: n }, () => people[Math.floor(random() * people.length)]!);
};

/** The users most followed and most following, where the interesting answers are, plus a random few. */
function interesting(n: number, seed: number): Person[] {
  const ranked = [...people].sort(
    (a, b) => into.get(b.id)!.size + out.get(b.id)!.size - (into.get(a.id)!.size + out.get(a.id)!.size),
  );
  return [...new Set([...ranked.slice(0, n), ...sample(n, seed)])];
}

describe('on a generated graph', () => {
  it('reports exact follower and following counts for every user', async () => {
    for (let i = 0; i < people.length; i += 100) {
      const batch = people.slice(i, i + 100);
      const result = await t.gql('query($ids: [ID!]!) { users(ids: $ids) { id followerCount followingCount } }', {
        ids: batch.map((p) => p.id),
      });
      expect(result.errors).toBeUndefined();
      expect(result.data!.users).toEqual(
        batch.map((p) => ({ id: p.id, followerCount: into.get(p.id)!.size, followingCount: out.get(p.id)!.size })),
      );
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
        .map(([id, via]) => ({
          user: { id },
          mutualCount: via.length,
          via: via
            .sort(byId)
            .slice(0, 3)
            .map((v) => ({ id: v })),
        }))
        .sort((a, b) => b.mutualCount - a.mutualCount || byId(a.user.id, b.user.id))
        .slice(0, 15);
      const result = await t.gql(
        '{ suggestedFollows(first: 15) { user { id } mutualCount via { id } } }',
        {},
        viewer.token,
      );
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
        const { degrees, path } = result.data!.degreesOfSeparation as {
          degrees: number | null;
          path: { id: string }[];
        };
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
    const self = await t.gql('query($id: ID!) { degreesOfSeparation(from: $id, to: $id) { degrees path { id } } }', {
      id: froms[0]!.id,
    });
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
      [
        'query($a: ID!, $b: ID!) { degreesOfSeparation(from: $a, to: $b, maxDepth: 7) { degrees } }',
        { a: a!.id, b: b!.id },
        'BAD_USER_INPUT',
      ],
      [
        'query($a: ID!, $b: ID!) { degreesOfSeparation(from: $a, to: $b, maxDepth: 0) { degrees } }',
        { a: a!.id, b: b!.id },
        'BAD_USER_INPUT',
      ],
      ['query($a: ID!) { network(userId: $a, maxDepth: 4) { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { network(userId: $a, first: 101) { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      ['query($a: ID!) { network(userId: $a, after: "bm9wZQ") { totalCount } }', { a: a!.id }, 'BAD_USER_INPUT'],
      [
        'query($a: ID!) { degreesOfSeparation(from: $a, to: "usr_00000000000000000000000000") { degrees } }',
        { a: a!.id },
        'NOT_FOUND',
      ],
      ['{ network(userId: "usr_00000000000000000000000000") { totalCount } }', {}, 'NOT_FOUND'],
    ];
    for (const [query, variables, code] of cases) expect(errorCodes(await t.gql(query, variables))).toEqual([code]);
  });
});

describe('suggestions after follows and unfollows', () => {
  it('shows every change at once: new second hops, accounts followed since, unfollowed paths', async () => {
    const app = await startTestApp();
    try {
      const [viewer, a, b, c, d] = await Promise.all(Array.from({ length: 5 }, () => app.signUp()));
      const FOLLOW = 'mutation($id: ID!) { follow(userId: $id) { user { id } } }';
      const UNFOLLOW = 'mutation($id: ID!) { unfollow(userId: $id) { user { id } } }';
      const act = async (mutation: string, who: { token: string }, whom: { id: string }) => {
        const result = await app.gql(mutation, { id: whom.id }, who.token);
        expect(result.errors).toBeUndefined();
      };
      const suggested = async () => {
        const result = await app.gql(
          '{ suggestedFollows(first: 10) { user { id } mutualCount via { id } } }',
          {},
          viewer!.token,
        );
        expect(result.errors).toBeUndefined();
        return result.data!.suggestedFollows as { user: { id: string }; mutualCount: number; via: { id: string }[] }[];
      };
      const entry = (user: { id: string }, ...via: { id: string }[]) => ({
        user: { id: user.id },
        mutualCount: via.length,
        via: via.map((v) => ({ id: v.id })).sort((x, y) => byId(x.id, y.id)),
      });
      const ranked = (...entries: ReturnType<typeof entry>[]) =>
        entries.sort((x, y) => y.mutualCount - x.mutualCount || byId(x.user.id, y.user.id));

      await act(FOLLOW, viewer!, a!);
      await act(FOLLOW, a!, b!);
      await act(FOLLOW, a!, c!);
      await act(FOLLOW, a!, viewer!);
      expect(await suggested()).toEqual(ranked(entry(b!, a!), entry(c!, a!)));
      // A second path to c; the viewer follows b, which leaves the suggestions and adds its follows.
      await act(FOLLOW, viewer!, d!);
      await act(FOLLOW, d!, c!);
      await act(FOLLOW, b!, d!);
      await act(FOLLOW, viewer!, b!);
      expect(await suggested()).toEqual(ranked(entry(c!, a!, d!)));
      await act(FOLLOW, b!, c!);
      expect(await suggested()).toEqual(ranked(entry(c!, a!, b!, d!)));
      // Unfollows, by the viewer and by the accounts it follows, take their paths away.
      await act(UNFOLLOW, viewer!, a!);
      await act(UNFOLLOW, d!, c!);
      expect(await suggested()).toEqual([entry(c!, b!)]);
      await act(UNFOLLOW, viewer!, b!);
      expect(await suggested()).toEqual([]);
    } finally {
      await app.stop();
    }
  });
});

describe('the graph budget of a request', () => {
  const FOLLOW = 'mutation($id: ID!) { follow(userId: $id) { user { id } } }';
  const NETWORK = 'query($id: ID!) { network(userId: $id, maxDepth: 2) { totalCount } }';

  /** A service with these settings, where a hub follows six spokes that each follow it back. */
  async function hubAndSpokes(env: Record<string, string>) {
    const app = await startTestApp(env);
    const hub = await app.signUp();
    const spokes = await Promise.all(Array.from({ length: 6 }, () => app.signUp()));
    for (const spoke of spokes) {
      await app.gql(FOLLOW, { id: spoke.id }, hub.token);
      await app.gql(FOLLOW, { id: hub.id }, spoke.token);
    }
    return { app, hub, spokes };
  }

  it('ends a query that would read more than GRAPH_MAX_EDGES entries with QUERY_TOO_EXPENSIVE', async () => {
    const { app, hub, spokes } = await hubAndSpokes({ GRAPH_MAX_EDGES: '5' });
    try {
      expect(errorCodes(await app.gql(NETWORK, { id: hub.id }))).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(errorCodes(await app.gql('{ suggestedFollows { mutualCount } }', {}, hub.token))).toEqual([
        'QUERY_TOO_EXPENSIVE',
      ]);
      const small = await app.gql('query($id: ID!) { network(userId: $id, maxDepth: 1) { totalCount } }', {
        id: spokes[0]!.id,
      });
      expect(small.data!.network.totalCount).toBe(1);
      // About an account blocked by the viewer, the answer is empty even though its first hop, read beside the
      // viewer's blocks, did not fit.
      await app.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: hub.id }, spokes[1]!.token);
      const blocked = await app.gql(NETWORK, { id: hub.id }, spokes[1]!.token);
      expect(blocked.errors).toBeUndefined();
      expect(blocked.data!.network.totalCount).toBe(0);
      const path = await app.gql(
        'query($from: ID!, $to: ID!) { degreesOfSeparation(from: $from, to: $to) { degrees } }',
        { from: hub.id, to: spokes[2]!.id },
        spokes[1]!.token,
      );
      expect(path.errors).toBeUndefined();
      expect(path.data!.degreesOfSeparation.degrees).toBeNull();
    } finally {
      await app.stop();
    }
  });

  it('refuses a traversal before the reads it cannot pay for: GRAPH_MAX_READS counts list reads and lookups', async () => {
    // network(maxDepth: 2) from the hub: its count and its list (2 reads), then the spokes' six
    // lists and one lookup of their counts (7): 9 in all.
    const { app, hub } = await hubAndSpokes({ GRAPH_MAX_READS: '8' });
    try {
      const refused = await app.gql(NETWORK, { id: hub.id });
      expect(errorCodes(refused)).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(refused.errors![0]!.extensions).toMatchObject({ budget: 'GRAPH_MAX_READS', maxReads: 8 });
      // The first hop only (its count with its list, from the hub's node): the second was refused before its counts were looked up.
      expect(refused.extensions!.cost.graph.requests).toBe(1);
    } finally {
      await app.stop();
    }
    const { app: roomier, hub: other } = await hubAndSpokes({ GRAPH_MAX_READS: '9' });
    try {
      const answered = await roomier.gql(NETWORK, { id: other.id });
      expect(answered.data!.network.totalCount).toBe(6);
      // Charged 9 reads, sent in 2 requests: each hop's counts and following lists come from its users' nodes in one.
      expect(answered.extensions!.cost.graph.requests).toBe(2);
    } finally {
      await roomier.stop();
    }
  });

  it('charges totals of mutuals and known followers for the lists they read', async () => {
    // The hub's mutuals: its count (1 entry), then its six follows and their six edges back (12).
    const { app, hub, spokes } = await hubAndSpokes({ GRAPH_MAX_EDGES: '12' });
    try {
      const mutuals = await app.gql('{ viewer { mutuals(first: 1) { totalCount } } }', {}, hub.token);
      expect(errorCodes(mutuals)).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(mutuals.errors![0]!.extensions).toMatchObject({ budget: 'GRAPH_MAX_EDGES', maxEdges: 12 });
      // A spoke's known followers of the hub: both counts (2), then the spoke's one follow and its edge (2).
      const known = await app.gql(
        'query($id: ID!) { user(id: $id) { knownFollowers(first: 1) { totalCount } } }',
        { id: hub.id },
        spokes[0]!.token,
      );
      expect(known.data!.user.knownFollowers.totalCount).toBe(0);
      const aliased = await app.gql(
        `query($id: ID!) { ${['a', 'b', 'c', 'd'].map((alias) => `${alias}: user(id: $id) { knownFollowers(first: 1) { totalCount } }`).join(' ')} }`,
        { id: spokes[1]!.id },
        hub.token,
      );
      // Each costs both counts (2) and the spoke's one follower with its edge from the hub (2): three fit in 12, four do not.
      expect(new Set(errorCodes(aliased))).toEqual(new Set(['QUERY_TOO_EXPENSIVE']));
      expect(aliased.data!.a.knownFollowers.totalCount).toBe(0);
    } finally {
      await app.stop();
    }
  });

  it('is one budget for the whole request, shared by all its fields', async () => {
    const { app, hub } = await hubAndSpokes({ GRAPH_MAX_READS: '9' });
    try {
      // Each network alone makes 9 reads (see above); two in one request may not make 18.
      const both = await app.gql(
        'query($id: ID!) { a: network(userId: $id, maxDepth: 2) { totalCount } b: network(userId: $id, maxDepth: 2) { totalCount } }',
        { id: hub.id },
      );
      expect(new Set(errorCodes(both))).toEqual(new Set(['QUERY_TOO_EXPENSIVE']));
      expect(both.extensions!.cost.graph.requests).toBeLessThanOrEqual(9);
      // One-hop pages too: the hub's followers page, then each follower's following page (1 + 6 reads) fit; their followers pages (6 more) do not.
      const pages = (fields: string) =>
        `query($id: ID!) { user(id: $id) { followers(first: 6) { edges { node { ${fields} } } } } }`;
      const fits = await app.gql(pages('following(first: 1) { edges { node { id } } }'), { id: hub.id });
      expect(fits.errors, JSON.stringify(fits)).toBeUndefined();
      const nested = await app.gql(
        pages('following(first: 1) { edges { node { id } } } followers(first: 1) { edges { node { id } } }'),
        { id: hub.id },
      );
      expect(new Set(errorCodes(nested))).toEqual(new Set(['QUERY_TOO_EXPENSIVE']));
      expect(nested.extensions!.cost.graph.requests).toBeLessThanOrEqual(9);
    } finally {
      await app.stop();
    }
  });

  it('refuses up front a page of users each asked for its mutuals and known followers', async () => {
    const { app, hub } = await hubAndSpokes({});
    try {
      const query = (first: number) =>
        `query($id: ID!) { user(id: $id) { followers(first: ${first}) { edges { node { mutuals(first: 1) { totalCount } knownFollowers(first: 1) { totalCount } } } } } }`;
      const refused = await app.gql(query(100), { id: hub.id }, hub.token);
      expect(errorCodes(refused)).toEqual(['QUERY_TOO_EXPENSIVE']);
      expect(refused.errors![0]!.extensions).toMatchObject({ maxCost: 10_000 });
      expect(refused.extensions!.cost).toMatchObject({
        requests: 0,
        dynamodb: { requests: 0 },
        graph: { requests: 0 },
        waves: 0,
      });
      // `mutuals` and `knownFollowers` declare 100 points each: the account check (20) + user (2) + followers (20) + 20 × (a user (1) + 2 × (100 + totalCount (1))).
      expect(refused.extensions!.cost.estimated).toBe(20 + 2 + 20 + 100 * (1 + 2 * 101));
      const allowed = await app.gql(query(20), { id: hub.id }, hub.token);
      expect(allowed.errors).toBeUndefined();
      expect(allowed.data!.user.followers.edges).toHaveLength(6);
    } finally {
      await app.stop();
    }
  });
});
