import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import type { GraphStore } from '../../src/stores/graph/graph-store.js';
import type { Task } from '../../src/domain/tasks.js';
import { FollowUseCases } from '../../src/usecases/follows.js';
import { NotificationEvents } from '../../src/usecases/notifications.js';
import { RelationshipUseCases } from '../../src/usecases/relationships.js';
import { TaskEnqueuer } from '../../src/usecases/tasks/enqueuer.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { authorIds, createPost, follow, homeIds, newestFirst, idsOfEveryPage } from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';

type Account = { id: string; handle: string; token: string };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const BLOCK =
  'mutation($id: ID!) { block(userId: $id) { user { id viewerBlocks blocksViewer followerCount } viewer { id followingCount } } }';
const UNBLOCK = 'mutation($id: ID!) { unblock(userId: $id) { user { id viewerBlocks } } }';
const MUTE = 'mutation($id: ID!) { mute(userId: $id) { user { id viewerMutes viewerFollows } } }';
const UNMUTE = 'mutation($id: ID!) { unmute(userId: $id) { user { id viewerMutes } } }';
const PAGE = 'edges { cursor node { id } } pageInfo { hasNextPage endCursor }';

/** Every post id of a tag timeline as `viewer` reads it, page by page. */
function tagIdsAs(viewer: Account, tag: string, first = 100): Promise<string[]> {
  return idsOfEveryPage(
    async (after) =>
      (
        await t.gqlData(
          `query($tag: String!, $first: Int, $after: String) { tagTimeline(tag: $tag, first: $first, after: $after) { ${PAGE} } }`,
          { tag, first, after },
          viewer.token,
        )
      ).tagTimeline,
  );
}

function publicIdsAs(viewer: Account): Promise<string[]> {
  return idsOfEveryPage(
    async (after) =>
      (
        await t.gqlData(
          `query($after: String) { publicTimeline(first: 100, after: $after) { ${PAGE} } }`,
          { after },
          viewer.token,
        )
      ).publicTimeline,
  );
}

function authorIdsAs(viewer: Account, authorId: string): Promise<string[]> {
  return idsOfEveryPage(
    async (after) =>
      (
        await t.gqlData(
          `query($id: ID!, $after: String) { user(id: $id) { posts(first: 100, after: $after) { ${PAGE} } } }`,
          { id: authorId, after },
          viewer.token,
        )
      ).user.posts,
  );
}

async function commentAuthors(viewer: Account, postId: string): Promise<string[]> {
  const data = await t.gqlData(
    'query($id: ID!) { post(id: $id) { comments(first: 100) { edges { node { author { id } } } } } }',
    { id: postId },
    viewer.token,
  );
  return data.post.comments.edges.map((e: any) => e.node.author.id);
}

async function flags(viewer: Account, userId: string) {
  const data = await t.gqlData(
    'query($id: ID!) { user(id: $id) { handle viewerBlocks blocksViewer viewerMutes viewerFollows followsViewer } }',
    { id: userId },
    viewer.token,
  );
  return data.user;
}

async function counts(userId: string) {
  const data = await t.gqlData('query($id: ID!) { user(id: $id) { followerCount followingCount } }', { id: userId });
  return data.user;
}

async function postState(postId: string) {
  const data = await t.gqlData(
    'query($id: ID!) { post(id: $id) { likeCount viewCount commentCount reactionCounts { kind count } comments { edges { node { id } } } } }',
    {
      id: postId,
    },
  );
  return data.post;
}

describe('blocks and mutes', () => {
  /**
   * The network: V blocks B, C blocks V, V mutes M, N mutes V; F is everybody's friend, X is
   * reachable only through B. Before the blocks V and B follow each other, and V and C too.
   */
  let V: Account, B: Account, C: Account, M: Account, N: Account, F: Account, X: Account;
  const tag = `bm${Date.now()}`;
  const posts = new Map<string, string[]>();
  let fPost: string;

  beforeAll(async () => {
    [V, B, C, M, N, F, X] = await Promise.all([
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
    ]);
    await follow(t, V.token, B.id);
    await follow(t, B.token, V.id);
    await follow(t, V.token, C.id);
    await follow(t, C.token, V.id);
    await follow(t, V.token, M.id);
    await follow(t, M.token, V.id);
    await follow(t, V.token, N.id);
    await follow(t, N.token, V.id);
    await follow(t, V.token, F.id);
    for (const u of [B, C, M, N]) {
      await follow(t, F.token, u.id);
      await follow(t, u.token, F.id);
    }
    await follow(t, B.token, X.id);
    for (const u of [V, B, C, M, N, F])
      posts.set(u.id, [
        await createPost(t, u.token, `by ${u.handle}`, [tag]),
        await createPost(t, u.token, `more by ${u.handle}`, [tag]),
      ]);
    fPost = posts.get(F.id)![0]!;
    for (const u of [V, B, C, M, N])
      await t.gqlData(
        'mutation($id: ID!) { addComment(postId: $id, text: "hello") { comment { id } } }',
        { id: fPost },
        u.token,
      );
    // Everything fanned out (B's posts reached V's home) before the blocks.
    await waitForQueueToDrain(t);
    expect(await homeIds(t, V)).toEqual(expect.arrayContaining(posts.get(B.id)!));

    const blocked = await t.gqlData(BLOCK, { id: B.id }, V.token);
    expect(blocked.block.user).toMatchObject({ viewerBlocks: true, blocksViewer: false });
    await t.gqlData(BLOCK, { id: V.id }, C.token);
    await t.gqlData(MUTE, { id: M.id }, V.token);
    await t.gqlData(MUTE, { id: V.id }, N.token);
    await waitForQueueToDrain(t);
  });

  const mine = (...users: Account[]) => users.flatMap((u) => posts.get(u.id)!);

  it('ends the follows between blocked accounts both ways, with exact counts, and keeps the others', async () => {
    // V followed B, C, M, N, F and was followed by B, C, M, N: the blocks ended two each way.
    expect(await counts(V.id)).toEqual({ followingCount: 3, followerCount: 2 });
    expect(await counts(B.id)).toEqual({ followingCount: 2, followerCount: 1 });
    expect(await counts(C.id)).toEqual({ followingCount: 1, followerCount: 1 });
    expect(await flags(V, M.id)).toMatchObject({ viewerFollows: true, followsViewer: true, viewerMutes: true });
    expect(await flags(N, V.id)).toMatchObject({ viewerFollows: true, viewerMutes: true });
  });

  it('shows both sides the block on the profile, and the mute only to the muter', async () => {
    expect(await flags(V, B.id)).toMatchObject({
      viewerBlocks: true,
      blocksViewer: false,
      viewerMutes: false,
      viewerFollows: false,
      followsViewer: false,
    });
    expect(await flags(B, V.id)).toMatchObject({ viewerBlocks: false, blocksViewer: true });
    expect(await flags(V, C.id)).toMatchObject({ viewerBlocks: false, blocksViewer: true });
    expect(await flags(C, V.id)).toMatchObject({ viewerBlocks: true, blocksViewer: false });
    expect(await flags(V, M.id)).toMatchObject({ viewerBlocks: false, blocksViewer: false, viewerMutes: true });
    // The muted account is never told.
    expect(await flags(M, V.id)).toMatchObject({ viewerBlocks: false, blocksViewer: false, viewerMutes: false });
    expect(await flags(V, N.id)).toMatchObject({ viewerMutes: false });
    expect(await flags(V, V.id)).toMatchObject({ viewerBlocks: false, blocksViewer: false, viewerMutes: false });
    const anonymous = await t.gqlData('query($id: ID!) { user(id: $id) { viewerBlocks blocksViewer viewerMutes } }', {
      id: B.id,
    });
    expect(anonymous.user).toEqual({ viewerBlocks: false, blocksViewer: false, viewerMutes: false });
  });

  it('lists whom a user blocks and mutes to that user alone, newest first', async () => {
    const LISTS =
      'query($id: ID!) { user(id: $id) { blockedUsers { totalCount edges { node { id } } } mutedUsers { totalCount edges { node { id } } } } }';
    const own = await t.gqlData(LISTS, { id: V.id }, V.token);
    expect(own.user.blockedUsers).toEqual({ totalCount: 1, edges: [{ node: { id: B.id } }] });
    expect(own.user.mutedUsers).toEqual({ totalCount: 1, edges: [{ node: { id: M.id } }] });
    for (const [reader, code] of [
      [B.token, 'FORBIDDEN'],
      [undefined, 'UNAUTHENTICATED'],
    ] as const) {
      const other = await t.gql(LISTS, { id: V.id }, reader);
      expect(other.data!.user).toEqual({ blockedUsers: null, mutedUsers: null });
      expect(errorCodes(other)).toEqual([code, code]);
    }
  });

  it("hides posts both ways in home, tag and public timelines and author pages; mutes only from the muter's timelines", async () => {
    // V: no B or C (blocks), no M (muted) in home, tag and public; N is not muted by V.
    expect(await homeIds(t, V)).toEqual(newestFirst(mine(V, N, F)));
    expect(await tagIdsAs(V, tag)).toEqual(newestFirst(mine(V, N, F)));
    expect((await publicIdsAs(V)).filter((id) => mine(V, B, C, M, N, F).includes(id))).toEqual(
      newestFirst(mine(V, N, F)),
    );
    // B and C do not see V's posts; N muted V.
    for (const viewer of [B, C, N])
      expect(await tagIdsAs(viewer, tag), viewer.handle).not.toEqual(expect.arrayContaining([posts.get(V.id)![0]]));
    expect(await tagIdsAs(B, tag)).toEqual(newestFirst(mine(B, C, M, N, F)));
    expect(await tagIdsAs(N, tag)).toEqual(newestFirst(mine(B, C, M, N, F)));
    expect(await homeIds(t, N)).toEqual(newestFirst(mine(N, F)));
    // M, muted, still sees V everywhere.
    expect(await homeIds(t, M)).toEqual(newestFirst(mine(M, V, F)));
    // Author pages: empty across a block, either way; a mute leaves the profile page alone.
    expect(await authorIdsAs(V, B.id)).toEqual([]);
    expect(await authorIdsAs(B, V.id)).toEqual([]);
    expect(await authorIdsAs(V, C.id)).toEqual([]);
    expect(await authorIdsAs(C, V.id)).toEqual([]);
    expect(await authorIdsAs(V, M.id)).toEqual(newestFirst(mine(M)));
    expect(await authorIdsAs(N, V.id)).toEqual(newestFirst(mine(V)));
    expect(await authorIds(t, B.id)).toEqual(newestFirst(mine(B)));
  });

  it('hides comments across a block, both ways, and not across a mute', async () => {
    expect((await commentAuthors(V, fPost)).sort()).toEqual([V.id, M.id, N.id].sort());
    expect((await commentAuthors(B, fPost)).sort()).toEqual([B.id, C.id, M.id, N.id].sort());
    expect((await commentAuthors(C, fPost)).sort()).toEqual([B.id, C.id, M.id, N.id].sort());
    expect((await commentAuthors(N, fPost)).sort()).toEqual([V.id, B.id, C.id, M.id, N.id].sort());
    expect(await postState(fPost)).toMatchObject({ commentCount: 5 });
  });

  it('refuses follows, likes, reactions, views and comments across a block, either way, and writes nothing', async () => {
    const pairs: [Account, Account][] = [
      [V, B],
      [B, V],
      [V, C],
      [C, V],
    ];
    for (const [actor, other] of pairs) {
      const post = posts.get(other.id)![0]!;
      const [before, countsBefore, otherCountsBefore] = [
        await postState(post),
        await counts(actor.id),
        await counts(other.id),
      ];
      const attempts = [
        t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: other.id }, actor.token),
        t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: post }, actor.token),
        t.gql('mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }', { id: post }, actor.token),
        t.gql('mutation($id: ID!) { viewPost(postId: $id) { post { id } } }', { id: post }, actor.token),
        t.gql(
          'mutation($id: ID!) { addComment(postId: $id, text: "hi", idempotencyKey: "k1") { comment { id } } }',
          { id: post },
          actor.token,
        ),
      ];
      for (const result of await Promise.all(attempts)) {
        expect(errorCodes(result), `${actor.handle} -> ${other.handle}`).toEqual(['FORBIDDEN']);
        expect(Object.values(result.data!)).toEqual([null]);
      }
      expect(await postState(post)).toEqual(before);
      expect(await counts(actor.id)).toEqual(countsBefore);
      expect(await counts(other.id)).toEqual(otherCountsBefore);
      expect(await flags(actor, other.id)).toMatchObject({ viewerFollows: false, followsViewer: false });
    }
    // Across a mute, both ways, everything goes on.
    for (const [actor, other] of [
      [V, M],
      [M, V],
    ] as const) {
      const like = await t.gql(
        'mutation($id: ID!) { likePost(postId: $id) { post { likeCount viewerHasLiked } } }',
        { id: posts.get(other.id)![1] },
        actor.token,
      );
      expect(like.data!.likePost.post).toEqual({ likeCount: 1, viewerHasLiked: true });
    }
    // Unliking stays possible across a block: nothing to refuse in taking something back.
    const unlike = await t.gql(
      'mutation($id: ID!) { unlikePost(postId: $id) { post { likeCount } } }',
      { id: posts.get(B.id)![0] },
      V.token,
    );
    expect(unlike.errors).toBeUndefined();
  });

  it('leaves blocked accounts out of suggestions, mutuals, networks and paths, both ways', async () => {
    const SUGGESTED = '{ suggestedFollows(first: 100) { user { id } } }';
    // V follows F, who follows B, C, M and N: only the blocked are left out.
    const forV = (await t.gqlData(SUGGESTED, {}, V.token)).suggestedFollows.map((s: any) => s.user.id);
    expect(forV).not.toContain(B.id);
    expect(forV).not.toContain(C.id);
    // B follows F, who follows C, M and N.
    const forB = (await t.gqlData(SUGGESTED, {}, B.token)).suggestedFollows.map((s: any) => s.user.id);
    expect(forB).toEqual(expect.arrayContaining([C.id, M.id, N.id]));
    expect(forB).not.toContain(V.id);

    // F's mutuals are B, C, M and N; V sees M and N only, B sees all but V (who is not one).
    const MUTUALS = 'query($id: ID!) { user(id: $id) { mutuals(first: 100) { totalCount edges { node { id } } } } }';
    const mutualsAs = async (viewer: Account) => (await t.gqlData(MUTUALS, { id: F.id }, viewer.token)).user.mutuals;
    const seenByV = await mutualsAs(V);
    expect(seenByV.edges.map((e: any) => e.node.id).sort()).toEqual([M.id, N.id].sort());
    expect(seenByV.totalCount).toBe(2);
    expect((await mutualsAs(B)).totalCount).toBe(4);

    // Known followers are accounts the viewer follows, and a block ends follows: the graph store's contract covers their exclusion.

    const NETWORK =
      'query($id: ID!) { network(userId: $id, maxDepth: 3, first: 100) { totalCount edges { node { id } } } }';
    const networkOf = async (viewer: Account, origin: Account) =>
      (await t.gqlData(NETWORK, { id: origin.id }, viewer.token)).network;
    // From F, V reaches M, N and itself, never B, C, nor X (whom only B leads to).
    const fromF = await networkOf(V, F);
    expect(fromF.edges.map((e: any) => e.node.id).sort()).toEqual([V.id, M.id, N.id].sort());
    expect(fromF.totalCount).toBe(3);
    expect((await networkOf(F, F)).edges.map((e: any) => e.node.id)).toEqual(
      expect.arrayContaining([B.id, C.id, X.id]),
    );
    expect(await networkOf(V, B)).toEqual({ totalCount: 0, edges: [] });
    expect((await networkOf(B, F)).edges.map((e: any) => e.node.id)).not.toContain(V.id);

    const PATH =
      'query($from: ID!, $to: ID!) { degreesOfSeparation(from: $from, to: $to, maxDepth: 4) { degrees path { id } } }';
    const path = async (viewer: Account | undefined, from: Account, to: Account) =>
      (await t.gqlData(PATH, { from: from.id, to: to.id }, viewer?.token)).degreesOfSeparation;
    // F -> B -> X is the only way to X: anyone else sees it, V and B's blocker do not.
    expect(await path(F, F, X)).toEqual({ degrees: 2, path: [{ id: F.id }, { id: B.id }, { id: X.id }] });
    expect(await path(undefined, F, X)).toEqual({ degrees: 2, path: [{ id: F.id }, { id: B.id }, { id: X.id }] });
    expect(await path(V, F, X)).toEqual({ degrees: null, path: [] });
    expect(await path(V, V, B)).toEqual({ degrees: null, path: [] });
    expect(await path(B, B, V)).toEqual({ degrees: null, path: [] });
    expect(await path(C, F, V)).toEqual({ degrees: null, path: [] });
    // A mute hides nothing here: V -> M is a follow.
    expect(await path(V, V, M)).toEqual({ degrees: 1, path: [{ id: V.id }, { id: M.id }] });

    // The viewer's blocks are read beside the first hop (with the check that the users exist), not before it. Asked
    // twice, so that the second finds every profile it shows in the cache: what is left are the graph's waves.
    const graphCost = async (query: string, variables: Record<string, string>) => {
      await t.gqlData(query, variables, V.token);
      const { graph, waves } = (await t.gql(query, variables, V.token)).extensions!.cost;
      return { requests: graph.requests, waves };
    };
    // Three hops, a request each, and the blocks beside the first.
    expect(await graphCost(NETWORK, { id: F.id })).toEqual({ requests: 4, waves: 3 });
    // F follows N: both ends' counts, then one side's list; the blocks beside the counts.
    expect(await graphCost(PATH, { from: F.id, to: N.id })).toEqual({ requests: 3, waves: 2 });
    // Mutuals and known followers: the counts with the blocks beside them, then the shorter list, then an edge per entry.
    expect(await graphCost(MUTUALS, { id: F.id })).toEqual({ requests: 4, waves: 3 });
    const KNOWN_FOLLOWERS =
      'query($id: ID!) { user(id: $id) { knownFollowers(first: 100) { totalCount edges { node { id } } } } }';
    expect(await graphCost(KNOWN_FOLLOWERS, { id: M.id })).toEqual({ requests: 4, waves: 3 });
  });

  it('keeps pages full when the rules leave entries out, reading on at most three times', async () => {
    const reader = await t.signUp();
    const [prolific, quiet] = await Promise.all([t.signUp(), t.signUp()]);
    const fullTag = `full${Date.now()}`;
    const visible: string[] = [];
    for (let i = 0; i < 3; i++) visible.push(await createPost(t, quiet.token, `old ${i}`, [fullTag]));
    for (let i = 0; i < 4; i++) await createPost(t, prolific.token, `noise ${i}`, [fullTag]);
    for (let i = 0; i < 3; i++) visible.push(await createPost(t, quiet.token, `new ${i}`, [fullTag]));
    await t.gqlData(BLOCK, { id: prolific.id }, reader.token);
    // Pages of 3: [new × 3], then noise × 4 and old × 3 read in 3 + 3 + 3: full.
    const QUERY = `query($tag: String!, $after: String) { tagTimeline(tag: $tag, first: 3, after: $after) { ${PAGE} } }`;
    const first = (await t.gqlData(QUERY, { tag: fullTag }, reader.token)).tagTimeline;
    expect(first.edges.map((e: any) => e.node.id)).toEqual(newestFirst(visible).slice(0, 3));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await t.gqlData(QUERY, { tag: fullTag, after: first.pageInfo.endCursor }, reader.token))
      .tagTimeline;
    expect(second.edges.map((e: any) => e.node.id)).toEqual(newestFirst(visible).slice(3));
    expect(second.pageInfo.hasNextPage).toBe(false);
    expect(second.pageInfo.endCursor).toBe(second.edges.at(-1).cursor);
    // Pages of 1 run out of extra reads inside the noise: an empty page that leads on, and nothing lost or repeated.
    const empty = (
      await t.gqlData(
        `query($tag: String!, $after: String) { tagTimeline(tag: $tag, first: 1, after: $after) { ${PAGE} } }`,
        { tag: fullTag, after: first.edges[2].cursor },
        reader.token,
      )
    ).tagTimeline;
    expect(empty.edges).toEqual([]);
    expect(empty.pageInfo.hasNextPage).toBe(true);
    for (const size of [1, 2, 3, 100])
      expect(await tagIdsAs(reader, fullTag, size), `pages of ${size}`).toEqual(newestFirst(visible));
  });

  it('is idempotent, refuses yourself, unknown users and anonymous callers, and unblocks without restoring follows', async () => {
    for (const mutation of [BLOCK, MUTE]) {
      const self = await t.gql(mutation, { id: V.id }, V.token);
      expect(errorCodes(self)).toEqual(['BAD_USER_INPUT']);
      expect(self.errors![0]!.extensions!.field).toBe('userId');
      expect(errorCodes(await t.gql(mutation, { id: newId('usr') }, V.token))).toEqual(['NOT_FOUND']);
      expect(errorCodes(await t.gql(mutation, { id: B.id }))).toEqual(['UNAUTHENTICATED']);
    }
    // Repeats change nothing and are no error.
    expect((await t.gqlData(BLOCK, { id: B.id }, V.token)).block.user).toMatchObject({
      viewerBlocks: true,
      followerCount: 1,
    });
    expect((await t.gqlData(MUTE, { id: M.id }, V.token)).mute.user).toEqual({
      id: M.id,
      viewerMutes: true,
      viewerFollows: true,
    });

    const other = await t.signUp();
    await follow(t, other.token, V.id);
    await t.gqlData(BLOCK, { id: other.id }, V.token);
    expect((await t.gqlData(UNBLOCK, { id: other.id }, V.token)).unblock.user).toEqual({
      id: other.id,
      viewerBlocks: false,
    });
    expect((await t.gqlData(UNBLOCK, { id: other.id }, V.token)).unblock.user).toEqual({
      id: other.id,
      viewerBlocks: false,
    });
    expect(await flags(V, other.id)).toMatchObject({ viewerBlocks: false, blocksViewer: false, followsViewer: false });
    await follow(t, other.token, V.id);
    expect(await flags(V, other.id)).toMatchObject({ followsViewer: true });
    expect((await t.gqlData(UNMUTE, { id: N.id }, V.token)).unmute.user).toEqual({ id: N.id, viewerMutes: false });
  });

  it('takes back a follow written while a block was being made, so no follow outlives a block', async () => {
    const [follower, blocker] = await Promise.all([t.signUp(), t.signUp()]);
    const { users, graph } = t.app.stores;
    const noEvents = { followed: async () => {}, unfollowed: async () => {} };
    const notifications = new NotificationEvents(new TaskEnqueuer(t.app.stores.tasks));
    const relationships = new RelationshipUseCases(users, graph, noEvents, notifications);
    // The worst interleaving, made certain: the block (and its unfollows) lands after the follow's first check and before its write.
    const racing: GraphStore = Object.assign(Object.create(graph) as GraphStore, {
      follow: async (from: string, to: string, at: string, tasks?: readonly Task[]) => {
        await relationships.block(to, from);
        return graph.follow(from, to, at, tasks);
      },
    });
    const follows = new FollowUseCases(users, racing, noEvents, relationships, notifications);
    await expect(follows.follow(follower.id, blocker.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await flags(blocker, follower.id)).toMatchObject({ viewerBlocks: true, followsViewer: false });
    expect(await counts(blocker.id)).toEqual({ followerCount: 0, followingCount: 0 });
    expect(await counts(follower.id)).toEqual({ followerCount: 0, followingCount: 0 });
  });

  it("purged the blocked account's posts from the home timeline, so that an unblock does not bring them back", async () => {
    const [blocker, author] = await Promise.all([t.signUp(), t.signUp()]);
    await follow(t, blocker.token, author.id);
    const post = await createPost(t, author.token, 'soon gone');
    await expect.poll(() => homeIds(t, blocker), WORKER_WAIT).toEqual([post]);
    await t.gqlData(BLOCK, { id: author.id }, blocker.token);
    await t.gqlData(UNBLOCK, { id: author.id }, blocker.token);
    await waitForQueueToDrain(t);
    expect(await homeIds(t, blocker)).toEqual([]);
    expect(await authorIdsAs(blocker, author.id)).toEqual([post]);
  });

  it('shows the muted account again after an unmute, and the blocked one after an unblock, outside the home timeline', async () => {
    const [viewer, muted, blocked] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    const own = `own${Date.now()}`;
    const a = await createPost(t, muted.token, 'muted', [own]);
    const b = await createPost(t, blocked.token, 'blocked', [own]);
    await t.gqlData(MUTE, { id: muted.id }, viewer.token);
    await t.gqlData(BLOCK, { id: blocked.id }, viewer.token);
    expect(await tagIdsAs(viewer, own)).toEqual([]);
    await t.gqlData(UNMUTE, { id: muted.id }, viewer.token);
    await t.gqlData(UNBLOCK, { id: blocked.id }, viewer.token);
    expect(await tagIdsAs(viewer, own)).toEqual(newestFirst([a, b]));
  });

  it("applies blocks and mutes to reposts and mentions: refused across a block, and a hidden reposter's reposts left out", async () => {
    const [viewer, reposter, author, blocked, blocker] = await Promise.all([
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
    ]);
    await t.gqlData(BLOCK, { id: blocked.id }, viewer.token);
    await t.gqlData(BLOCK, { id: viewer.id }, blocker.token);
    const [blockedPost, blockerPost] = [
      await createPost(t, blocked.token, 'by the blocked'),
      await createPost(t, blocker.token, 'by the blocker'),
    ];

    // Reposting across a block, either way, is refused and writes nothing.
    for (const [actor, post] of [
      [viewer, blockedPost],
      [viewer, blockerPost],
      [blocked, await createPost(t, viewer.token, 'by the viewer')],
    ] as const) {
      const result = await t.gql(
        'mutation($id: ID!) { repost(postId: $id) { post { id } } }',
        { id: post },
        actor.token,
      );
      expect(errorCodes(result)).toEqual(['FORBIDDEN']);
      expect(
        (await t.gqlData('query($id: ID!) { post(id: $id) { repostCount repostedBy { totalCount } } }', { id: post }))
          .post,
      ).toEqual({
        repostCount: 0,
        repostedBy: { totalCount: 0 },
      });
    }

    // Mentioning across a block, in a post or a comment, either way, is refused and writes nothing.
    const postsBefore = (await t.gqlData('query($id: ID!) { user(id: $id) { postCount } }', { id: viewer.id })).user
      .postCount;
    const mentionPost = await t.gql(
      'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }',
      { text: `hi @${blocked.handle}` },
      viewer.token,
    );
    expect(errorCodes(mentionPost)).toEqual(['FORBIDDEN']);
    expect((await t.gqlData('query($id: ID!) { user(id: $id) { postCount } }', { id: viewer.id })).user.postCount).toBe(
      postsBefore,
    );
    const open = await createPost(t, author.token, 'open to all');
    const mentionComment = await t.gql(
      'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { id } } }',
      { id: open, text: `@${viewer.handle} look` },
      blocker.token,
    );
    expect(errorCodes(mentionComment)).toEqual(['FORBIDDEN']);
    expect((await postState(open)).commentCount).toBe(0);

    // The viewer follows the reposter, which reposts a post of an account the viewer does not follow; once muted,
    // the reposter's reposts leave the viewer's home timeline (its author page still shows them).
    await follow(t, viewer.token, reposter.id);
    const shared = await createPost(t, author.token, 'worth sharing');
    await t.gqlData('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: shared }, reposter.token);
    await waitForQueueToDrain(t);
    expect(await homeIds(t, viewer)).toContain(shared);
    await t.gqlData(MUTE, { id: reposter.id }, viewer.token);
    expect(await homeIds(t, viewer)).not.toContain(shared);
    expect(await authorIdsAs(viewer, reposter.id)).toContain(shared);
    await t.gqlData(UNMUTE, { id: reposter.id }, viewer.token);
    expect(await homeIds(t, viewer)).toContain(shared);
  });

  it("keeps a page that the rules emptied leading on, and leaves out a notification about a blocked account's post", async () => {
    const [viewer, friend, muted, poster, commenter] = await Promise.all([
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
      t.signUp(),
    ]);
    await follow(t, viewer.token, friend.id);
    await follow(t, viewer.token, muted.id);
    const older = await createPost(t, friend.token, 'older');
    const newer = await createPost(t, muted.token, 'newer, by a muted account');
    await waitForQueueToDrain(t);
    await t.gqlData(MUTE, { id: muted.id }, viewer.token);
    const cursor = (
      await t.gqlData(
        'query($id: ID!) { user(id: $id) { timeline(first: 5) { edges { cursor node { id } } } } }',
        { id: viewer.id },
        viewer.token,
      )
    ).user.timeline.edges[0].cursor;
    // Pull-to-refresh from the older post: the one newer entry is muted, yet the page says where it got to.
    const refreshed = (
      await t.gqlData(
        'query($id: ID!, $before: String) { user(id: $id) { timeline(last: 1, before: $before) { edges { node { id } } pageInfo { startCursor hasPreviousPage } } } }',
        { id: viewer.id, before: cursor },
        viewer.token,
      )
    ).user.timeline;
    expect(refreshed.edges).toEqual([]);
    expect(refreshed.pageInfo.startCursor).not.toBeNull();
    expect(refreshed.pageInfo.startCursor).not.toBe(cursor);
    expect([older, newer]).toHaveLength(2);

    // A comment under the poster's post mentions the viewer, whom the poster blocked: the viewer is not shown that post through a notification.
    await t.gqlData(BLOCK, { id: viewer.id }, poster.token);
    const post = await createPost(t, poster.token, 'a post the viewer must not see');
    await t.gqlData(
      'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { id } } }',
      { id: post, text: `@${viewer.handle} look` },
      commenter.token,
    );
    await waitForQueueToDrain(t);
    const groups = (
      await t.gqlData(
        'query($id: ID!) { user(id: $id) { notifications(first: 20) { edges { node { kind post { id } } } } } }',
        { id: viewer.id },
        viewer.token,
      )
    ).user.notifications.edges;
    expect(groups.filter((e: any) => e.node.post?.id === post)).toEqual([]);
  });
});
