import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startTestApp, type GraphQLResponse, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const FOLLOW = `mutation($id: ID!) { follow(userId: $id) { user { id followerCount viewerFollows followsViewer } viewer { id followingCount } } }`;
const UNFOLLOW = `mutation($id: ID!) { unfollow(userId: $id) { user { id followerCount viewerFollows } viewer { id followingCount } } }`;
const COUNTS = `query($id: ID!) { user(id: $id) { followerCount followingCount followers { totalCount edges { node { id } } } following { totalCount edges { node { id } } } } }`;

async function counts(id: string) {
  const result = await t.gql(COUNTS, { id });
  expect(result.errors).toBeUndefined();
  const user = result.data!.user;
  return {
    followerCount: user.followerCount as number,
    followingCount: user.followingCount as number,
    followers: (user.followers.edges as { node: { id: string } }[]).map((e) => e.node.id),
    following: (user.following.edges as { node: { id: string } }[]).map((e) => e.node.id),
    totals: [user.followers.totalCount, user.following.totalCount],
  };
}

describe('follow and unfollow', () => {
  it('follows, shows it on both users, and unfollows again', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()];
    const followed = await t.gql(FOLLOW, { id: b.id }, a.token);
    expect(followed.errors).toBeUndefined();
    expect(followed.data!.follow).toEqual({
      user: { id: b.id, followerCount: 1, viewerFollows: true, followsViewer: false },
      viewer: { id: a.id, followingCount: 1 },
    });
    expect(await counts(b.id)).toMatchObject({
      followerCount: 1,
      followingCount: 0,
      followers: [a.id],
      following: [],
      totals: [1, 0],
    });
    expect(await counts(a.id)).toMatchObject({
      followerCount: 0,
      followingCount: 1,
      followers: [],
      following: [b.id],
      totals: [0, 1],
    });

    const back = await t.gql(FOLLOW, { id: a.id }, b.token);
    expect(back.data!.follow.user).toMatchObject({ id: a.id, viewerFollows: true, followsViewer: true });

    const unfollowed = await t.gql(UNFOLLOW, { id: b.id }, a.token);
    expect(unfollowed.data!.unfollow).toEqual({
      user: { id: b.id, followerCount: 0, viewerFollows: false },
      viewer: { id: a.id, followingCount: 0 },
    });
    expect(await counts(b.id)).toMatchObject({ followerCount: 0, followingCount: 1, followers: [], following: [a.id] });
  });

  it('is idempotent: a repeat follow or unfollow changes nothing and is not an error', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()];
    for (let i = 0; i < 3; i++) expect((await t.gql(FOLLOW, { id: b.id }, a.token)).errors).toBeUndefined();
    expect(await counts(b.id)).toMatchObject({ followerCount: 1, followers: [a.id] });
    for (let i = 0; i < 3; i++) expect((await t.gql(UNFOLLOW, { id: b.id }, a.token)).errors).toBeUndefined();
    expect(await counts(b.id)).toMatchObject({ followerCount: 0, followers: [] });
    expect(await counts(a.id)).toMatchObject({ followingCount: 0, following: [] });
  });

  it('counts the same follow sent 10 times at once exactly once, and 10 unfollows at once too', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()];
    const follows = await Promise.all(Array.from({ length: 10 }, () => t.gql(FOLLOW, { id: b.id }, a.token)));
    for (const result of follows) expect(result.errors).toBeUndefined();
    expect(await counts(b.id)).toMatchObject({ followerCount: 1, followers: [a.id], totals: [1, 0] });
    expect(await counts(a.id)).toMatchObject({ followingCount: 1, following: [b.id] });
    const unfollows = await Promise.all(Array.from({ length: 10 }, () => t.gql(UNFOLLOW, { id: b.id }, a.token)));
    for (const result of unfollows) expect(result.errors).toBeUndefined();
    expect(await counts(b.id)).toMatchObject({ followerCount: 0, followers: [] });
    expect(await counts(a.id)).toMatchObject({ followingCount: 0, following: [] });
  });

  it('keeps counts exact when many users follow one account at once', async () => {
    const target = await t.signUp();
    const fans = await Promise.all(Array.from({ length: 25 }, () => t.signUp()));
    await Promise.all(fans.map((fan) => t.gql(FOLLOW, { id: target.id }, fan.token)));
    const result = await t.gql(
      `query($id: ID!) { user(id: $id) { followerCount followers(first: 100) { totalCount edges { node { id } } } } }`,
      {
        id: target.id,
      },
    );
    expect(result.data!.user.followerCount).toBe(25);
    expect(result.data!.user.followers.totalCount).toBe(25);
    expect(new Set(result.data!.user.followers.edges.map((e: { node: { id: string } }) => e.node.id))).toEqual(
      new Set(fans.map((f) => f.id)),
    );
  });

  it('refuses following yourself, unknown users and anonymous callers, and changes nothing', async () => {
    const a = await t.signUp();
    const self = await t.gql(FOLLOW, { id: a.id }, a.token);
    expect(errorCodes(self)).toEqual(['BAD_USER_INPUT']);
    expect(self.errors![0]!.extensions!.field).toBe('userId');
    expect(errorCodes(await t.gql(FOLLOW, { id: 'usr_00000000000000000000000000' }, a.token))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await t.gql(UNFOLLOW, { id: 'usr_00000000000000000000000000' }, a.token))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await t.gql(FOLLOW, { id: a.id }))).toEqual(['UNAUTHENTICATED']);
    expect(await counts(a.id)).toMatchObject({ followerCount: 0, followingCount: 0, followers: [], following: [] });
  });

  it('answers viewerFollows and followsViewer with false when anonymous', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()];
    await t.gql(FOLLOW, { id: b.id }, a.token);
    const result = await t.gql(
      `query($id: ID!) { user(id: $id) { viewerFollows followsViewer knownFollowers { totalCount edges { cursor } } } }`,
      { id: b.id },
    );
    expect(result.data!.user).toEqual({
      viewerFollows: false,
      followsViewer: false,
      knownFollowers: { totalCount: 0, edges: [] },
    });
  });
});

describe('follow lists', () => {
  it('pages followers newest first with opaque cursors and checks first and after', async () => {
    const target = await t.signUp();
    const fans = [];
    for (let i = 0; i < 5; i++) {
      const fan = await t.signUp();
      await t.gql(FOLLOW, { id: target.id }, fan.token);
      fans.push(fan.id);
    }
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const result: GraphQLResponse = await t.gql(
        `query($id: ID!, $after: String) { user(id: $id) { followers(first: 2, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }`,
        { id: target.id, after },
      );
      const connection = result.data!.user.followers;
      expect(connection.totalCount).toBe(5);
      seen.push(...connection.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual([...fans].reverse());

    for (const first of [0, 101, -1]) {
      const result = await t.gql(
        `query($id: ID!, $first: Int) { user(id: $id) { followers(first: $first) { totalCount } } }`,
        { id: target.id, first },
      );
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('first');
    }
    for (const bad of ['garbage', Buffer.from(JSON.stringify('not-a-position')).toString('base64url')]) {
      const result = await t.gql(
        `query($id: ID!, $after: String) { user(id: $id) { followers(after: $after) { totalCount } } }`,
        { id: target.id, after: bad },
      );
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe('after');
    }
  });

  it('reads viewerFollows and followsViewer for a whole page in one graph call', async () => {
    const viewer = await t.signUp();
    const target = await t.signUp();
    const fans = await Promise.all(Array.from({ length: 12 }, () => t.signUp()));
    await Promise.all(fans.map((fan) => t.gql(FOLLOW, { id: target.id }, fan.token)));
    await Promise.all(fans.slice(0, 4).map((fan) => t.gql(FOLLOW, { id: fan.id }, viewer.token)));
    await Promise.all(fans.slice(2, 6).map((fan) => t.gql(FOLLOW, { id: viewer.id }, fan.token)));

    const page = `query($id: ID!) { user(id: $id) { followers(first: 20) { edges { node { id viewerFollows followsViewer } } } } }`;
    const withFlags = await t.gql(page, { id: target.id }, viewer.token);
    const withoutFlags = await t.gql(
      `query($id: ID!) { user(id: $id) { followers(first: 20) { edges { node { id } } } } }`,
      { id: target.id },
      viewer.token,
    );
    const nodes = withFlags.data!.user.followers.edges.map((e: { node: unknown }) => e.node) as {
      id: string;
      viewerFollows: boolean;
      followsViewer: boolean;
    }[];
    expect(nodes).toHaveLength(12);
    for (const node of nodes) {
      const index = fans.findIndex((f) => f.id === node.id);
      expect(node.viewerFollows).toBe(index < 4);
      expect(node.followsViewer).toBe(index >= 2 && index < 6);
    }
    expect(withFlags.extensions!.cost.graph.requests - withoutFlags.extensions!.cost.graph.requests).toBe(1);
  });
});
