import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import {
  createPost,
  follow,
  unfollow,
  idsOfEveryPage,
  repostAs,
  homeEntries as homeEntriesOf,
} from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';

/** Reposters with more than 4 followers are not fanned out here (FANOUT_MAX_FOLLOWERS), so the hybrid rule is reachable. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ FANOUT_MAX_FOLLOWERS: '4', OUTBOX_AUTHORS_TTL_MS: '0' });
});
afterAll(async () => {
  await t.stop();
});

type User = Awaited<ReturnType<TestApp['signUp']>>;

const repost = (user: User, postId: string, mutation: 'repost' | 'unrepost' = 'repost') =>
  repostAs(t, user, postId, mutation);
const homeEntries = (user: User) => homeEntriesOf(t, user);
const entriesOf = async (user: User, postId: string) => (await homeEntries(user)).filter((e) => e.id === postId);

async function signUps(n: number): Promise<User[]> {
  return Promise.all(Array.from({ length: n }, () => t.signUp()));
}

describe('repost and unrepost', () => {
  it('count the reposter once however often they are called, allow one’s own post, and refuse a deleted or unknown post', async () => {
    const [author, reposter] = await signUps(2);
    const postId = await createPost(t, author!.token, 'worth sharing');
    const reposts = await Promise.all(Array.from({ length: 4 }, () => repost(reposter!, postId)));
    expect(reposts.every((p) => p.repostCount === 1 && p.viewerHasReposted)).toBe(true);
    expect((await repost(author!, postId)).repostCount).toBe(2);

    const undone = await Promise.all(Array.from({ length: 3 }, () => repost(reposter!, postId, 'unrepost')));
    expect(undone.every((p) => p.repostCount === 1 && !p.viewerHasReposted)).toBe(true);

    const view = await t.gql(
      'query($id: ID!) { post(id: $id) { repostCount viewerHasReposted } }',
      { id: postId },
      author!.token,
    );
    expect(view.data!.post).toEqual({ repostCount: 1, viewerHasReposted: true });
    const anonymous = await t.gql('query($id: ID!) { post(id: $id) { viewerHasReposted } }', { id: postId });
    expect(anonymous.data!.post.viewerHasReposted).toBe(false);

    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author!.token);
    const gone = await t.gql(
      'mutation($id: ID!) { repost(postId: $id) { post { id } } }',
      { id: postId },
      reposter!.token,
    );
    expect(errorCodes(gone)).toEqual(['NOT_FOUND']);
    const unknown = await t.gql(
      'mutation { repost(postId: "pst_00000000000000000000000000") { post { id } } }',
      {},
      reposter!.token,
    );
    expect(errorCodes(unknown)).toEqual(['NOT_FOUND']);
    const signedOut = await t.gql('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: postId });
    expect(errorCodes(signedOut)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('reposts under races', () => {
  it('count exactly when many users repost and unrepost at once, each many times', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'raced');
    const users = await signUps(8);
    await Promise.all(users.flatMap((u) => Array.from({ length: 3 }, () => repost(u, postId))));
    const leaving = users.slice(0, 5);
    await Promise.all([
      ...leaving.flatMap((u) => Array.from({ length: 3 }, () => repost(u, postId, 'unrepost'))),
      ...users.slice(5).map((u) => repost(u, postId)),
    ]);
    const result = await t.gql(
      'query($id: ID!) { post(id: $id) { repostCount repostedBy(first: 100) { totalCount edges { node { id } } } } }',
      { id: postId },
    );
    expect(result.data!.post.repostCount).toBe(3);
    expect(new Set(result.data!.post.repostedBy.edges.map((e: any) => e.node.id))).toEqual(
      new Set(users.slice(5).map((u) => u.id)),
    );
    // stop() audits repostCount against the repost records.
  });

  it('leave with a deleted account: its reposts are counted down and taken out of its followers’ timelines', async () => {
    const [author, reposter, follower] = await signUps(3);
    await follow(t, follower!.token, reposter!.id);
    const postId = await createPost(t, author!.token, 'outlived');
    await repost(reposter!, postId);
    await expect.poll(() => entriesOf(follower!, postId), WORKER_WAIT).toHaveLength(1);
    const deleted = await t.gql(
      'mutation($p: String) { deleteAccount(password: $p) { deletedUserId } }',
      { p: TEST_PASSWORD },
      reposter!.token,
    );
    expect(deleted.errors).toBeUndefined();
    await waitForQueueToDrain(t);
    expect(await entriesOf(follower!, postId)).toEqual([]);
    const post = await t.gql(
      'query($id: ID!) { post(id: $id) { repostCount repostedBy { totalCount edges { node { id } } } } }',
      { id: postId },
    );
    expect(post.data!.post).toEqual({ repostCount: 0, repostedBy: { totalCount: 0, edges: [] } });
  });
});

describe('reposts in home timelines', () => {
  it('reach every follower of the reposter once, also when two followed accounts repost the same post, with the first reason', async () => {
    const [author, first, second] = await signUps(3);
    const followers = await signUps(4);
    // followers[0..1] follow both reposters, [2] only the second, [3] the author and the first reposter.
    for (const f of followers.slice(0, 2)) for (const r of [first!, second!]) await follow(t, f.token, r.id);
    await follow(t, followers[2]!.token, second!.id);
    await follow(t, followers[3]!.token, first!.id);
    await follow(t, followers[3]!.token, author!.id);
    const postId = await createPost(t, author!.token, 'shared twice');
    await expect.poll(() => entriesOf(followers[3]!, postId), WORKER_WAIT).toEqual([{ id: postId, repostedBy: null }]);

    await repost(first!, postId);
    await expect
      .poll(() => entriesOf(followers[0]!, postId), WORKER_WAIT)
      .toEqual([{ id: postId, repostedBy: first!.handle }]);
    await repost(second!, postId);
    await waitForQueueToDrain(t);

    expect(await entriesOf(followers[0]!, postId)).toEqual([{ id: postId, repostedBy: first!.handle }]);
    expect(await entriesOf(followers[1]!, postId)).toEqual([{ id: postId, repostedBy: first!.handle }]);
    expect(await entriesOf(followers[2]!, postId)).toEqual([{ id: postId, repostedBy: second!.handle }]);
    // Following the author, the follower has the post as an original: a repost adds no second entry and no reason.
    expect(await entriesOf(followers[3]!, postId)).toEqual([{ id: postId, repostedBy: null }]);
    // The reposters see their own repost.
    expect(await entriesOf(first!, postId)).toEqual([{ id: postId, repostedBy: first!.handle }]);
    expect(await entriesOf(author!, postId)).toEqual([{ id: postId, repostedBy: null }]);

    // Unreposting takes the entry back where only that repost held it; elsewhere the other reason stays.
    await repost(first!, postId, 'unrepost');
    await waitForQueueToDrain(t);
    expect(await entriesOf(followers[0]!, postId)).toEqual([{ id: postId, repostedBy: second!.handle }]);
    expect(await entriesOf(followers[2]!, postId)).toEqual([{ id: postId, repostedBy: second!.handle }]);
    expect(await entriesOf(followers[3]!, postId)).toEqual([{ id: postId, repostedBy: null }]);
    expect(await entriesOf(first!, postId)).toEqual([]);
    await repost(second!, postId, 'unrepost');
    await waitForQueueToDrain(t);
    for (const f of followers.slice(0, 3)) expect(await entriesOf(f, postId)).toEqual([]);
    expect(await entriesOf(followers[3]!, postId)).toEqual([{ id: postId, repostedBy: null }]);
  });

  it('deletePost takes the reposts’ entries back too, and unfollowing a reposter takes back what only they reposted', async () => {
    const [author, reposter] = await signUps(2);
    const followers = await signUps(2);
    for (const f of followers) await follow(t, f.token, reposter!.id);
    const kept = await createPost(t, author!.token, 'kept');
    const deleted = await createPost(t, author!.token, 'deleted');
    await repost(reposter!, kept);
    await repost(reposter!, deleted);
    await expect
      .poll(async () => (await homeEntries(followers[0]!)).map((e) => e.id), WORKER_WAIT)
      .toEqual([deleted, kept]);

    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: deleted }, author!.token);
    await waitForQueueToDrain(t);
    for (const f of followers) expect((await homeEntries(f)).map((e) => e.id)).toEqual([kept]);
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { posts { edges { node { id } repostedBy { id } } } } }',
      { id: reposter!.id },
    );
    expect(page.data!.user.posts.edges).toEqual([{ node: { id: kept }, repostedBy: { id: reposter!.id } }]);

    await unfollow(t, followers[0]!.token, reposter!.id);
    await waitForQueueToDrain(t);
    expect(await homeEntries(followers[0]!)).toEqual([]);
    expect((await homeEntries(followers[1]!)).map((e) => e.id)).toEqual([kept]);
  });

  it('a reposter with more followers than FANOUT_MAX_FOLLOWERS is merged at read time, and unrepost takes it back', async () => {
    const [author, reposter] = await signUps(2);
    const followers = await signUps(5);
    for (const f of followers) await follow(t, f.token, reposter!.id);
    const postId = await createPost(t, author!.token, 'from a hot reposter');
    await repost(reposter!, postId);
    for (const u of [...followers, reposter!])
      expect(await entriesOf(u, postId)).toEqual([{ id: postId, repostedBy: reposter!.handle }]);
    await repost(reposter!, postId, 'unrepost');
    for (const u of [...followers, reposter!]) expect(await entriesOf(u, postId)).toEqual([]);

    // Their own post is in their outbox already: a repost of it changes no timeline, and its unrepost leaves the post there.
    const own = await createPost(t, reposter!.token, 'hot and mine');
    expect((await repost(reposter!, own)).repostCount).toBe(1);
    expect((await repost(reposter!, own, 'unrepost')).repostCount).toBe(0);
    for (const u of [...followers, reposter!]) expect(await entriesOf(u, own)).toEqual([{ id: own, repostedBy: null }]);
  });
});

/** A page of the user's home timeline, forwards (`first`/`after`) or backwards (`last`/`before`): the posts with their reasons. */
async function homePage(user: User, args: { first?: number; after?: string | null; last?: number; before?: string }) {
  const result = await t.gql(
    'query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { user(id: $id) { timeline(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { id } repostedBy { handle } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }',
    { id: user.id, ...args },
    user.token,
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  const page = result.data!.user.timeline;
  return {
    ...page.pageInfo,
    entries: page.edges.map((e: any) => ({
      id: e.node.id as string,
      repostedBy: (e.repostedBy?.handle ?? null) as string | null,
      cursor: e.cursor as string,
    })),
  };
}

const shown = (entries: { id: string; repostedBy: string | null }[]) =>
  entries.map(({ id, repostedBy }) => ({ id, repostedBy }));

describe('reposts at the time they are made', () => {
  it('put an old post at the top of the followers’ home timelines with its reason, fanned out or merged from an outbox, and on the reposter’s page', async () => {
    const [author, reposter, friend] = await signUps(3);
    const follower = await t.signUp();
    await follow(t, follower.token, reposter!.id);
    await follow(t, follower.token, friend!.id);
    const old = await createPost(t, author!.token, 'an old post');
    const newer = await createPost(t, friend!.token, 'newer than the old post');
    await expect
      .poll(async () => shown((await homePage(follower, { first: 1 })).entries), WORKER_WAIT)
      .toEqual([{ id: newer, repostedBy: null }]);

    await repost(reposter!, old);
    await waitForQueueToDrain(t);
    expect(shown((await homePage(follower, { first: 5 })).entries)).toEqual([
      { id: old, repostedBy: reposter!.handle },
      { id: newer, repostedBy: null },
    ]);
    expect(shown((await homePage(reposter!, { first: 5 })).entries)).toEqual([
      { id: old, repostedBy: reposter!.handle },
    ]);
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { posts(first: 1) { edges { node { id } repostedBy { handle } } } } }',
      { id: reposter!.id },
    );
    const ownPost = await createPost(t, reposter!.token, 'the reposter’s own, older than nothing');
    expect(page.data!.user.posts.edges).toEqual([{ node: { id: old }, repostedBy: { handle: reposter!.handle } }]);
    await repost(reposter!, old, 'unrepost');
    await waitForQueueToDrain(t);
    expect((await homeEntries(follower)).map((e) => e.id)).toEqual([ownPost, newer]);

    // A reposter with more than FANOUT_MAX_FOLLOWERS followers: the repost is merged from the outbox at its own time too.
    const hot = await t.signUp();
    const crowd = await signUps(4);
    for (const u of [follower, ...crowd]) await follow(t, u.token, hot.id);
    const newest = await createPost(t, friend!.token, 'newer still');
    await waitForQueueToDrain(t);
    await repost(hot, old);
    expect(shown((await homePage(follower, { first: 2 })).entries)).toEqual([
      { id: old, repostedBy: hot.handle },
      { id: newest, repostedBy: null },
    ]);
    await repost(hot, old, 'unrepost');
    expect((await homeEntries(follower)).map((e) => e.id)).toEqual([newest, ownPost, newer]);
  });

  it('add no second entry where the post is already, also when two followed accounts repost it at once; unrepost and deletePost take the entries back', async () => {
    const [author, first, second] = await signUps(3);
    const [both, withAuthor] = await signUps(2);
    for (const r of [first!, second!]) {
      await follow(t, both!.token, r.id);
      await follow(t, withAuthor!.token, r.id);
    }
    await follow(t, withAuthor!.token, author!.id);
    const postId = await createPost(t, author!.token, 'reposted twice at once');
    await expect
      .poll(async () => shown(await homeEntries(withAuthor!)), WORKER_WAIT)
      .toEqual([{ id: postId, repostedBy: null }]);
    const later = await createPost(t, author!.token, 'later, by the author');
    await waitForQueueToDrain(t);

    await Promise.all([repost(first!, postId), repost(second!, postId)]);
    await waitForQueueToDrain(t);
    // One entry, at the top, shown with one of the two reposts.
    const [top, ...rest] = await homeEntries(both!);
    expect(top!.id).toBe(postId);
    expect([first!.handle, second!.handle]).toContain(top!.repostedBy);
    expect(rest).toEqual([]);
    // Following the author, the follower had the post first: it stays where it is, as the original.
    expect(shown(await homeEntries(withAuthor!))).toEqual([
      { id: later, repostedBy: null },
      { id: postId, repostedBy: null },
    ]);

    // The reason shown goes: the other repost keeps the entry where it is.
    const shownReposter = top!.repostedBy === first!.handle ? first! : second!;
    const other = shownReposter === first! ? second! : first!;
    await repost(shownReposter, postId, 'unrepost');
    await waitForQueueToDrain(t);
    expect(shown(await homeEntries(both!))).toEqual([{ id: postId, repostedBy: other.handle }]);

    // Unfollowing the author keeps the post where a followed account also reposted it, shown with that repost.
    await unfollow(t, withAuthor!.token, author!.id);
    await waitForQueueToDrain(t);
    expect(shown(await homeEntries(withAuthor!))).toEqual([{ id: postId, repostedBy: other.handle }]);

    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: postId }, author!.token);
    await waitForQueueToDrain(t);
    for (const u of [both!, withAuthor!, other]) expect(await entriesOf(u, postId)).toEqual([]);
  });

  it('page forwards and backwards across reposts without losing or repeating an entry', async () => {
    const [author, reposter, friend] = await signUps(3);
    const follower = await t.signUp();
    await follow(t, follower.token, reposter!.id);
    await follow(t, follower.token, friend!.id);
    const [old1, old2] = [await createPost(t, author!.token, 'old 1'), await createPost(t, author!.token, 'old 2')];
    /** The follower's timeline as it should be, newest first. */
    const expected: { id: string; repostedBy: string | null }[] = [];
    const post = async (text: string) =>
      expected.unshift({ id: await createPost(t, friend!.token, text), repostedBy: null });
    const reposted = async (postId: string) => {
      await repost(reposter!, postId);
      await waitForQueueToDrain(t);
      expected.unshift({ id: postId, repostedBy: reposter!.handle });
    };
    await post('q1');
    await post('q2');
    await reposted(old1);
    await post('q3');
    await reposted(old2);
    await post('q4');
    await waitForQueueToDrain(t);

    const forwards: { id: string; repostedBy: string | null; cursor: string }[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await homePage(follower, { first: 2, after });
      forwards.push(...page.entries);
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(shown(forwards)).toEqual(expected);

    // Pull-to-refresh from the oldest entry back to the newest.
    const backwards: { id: string; repostedBy: string | null }[] = [];
    let before = forwards.at(-1)!.cursor;
    for (;;) {
      const page = await homePage(follower, { last: 2, before });
      backwards.unshift(...page.entries);
      if (!page.hasPreviousPage) break;
      before = page.startCursor;
    }
    expect(shown(backwards)).toEqual(expected.slice(0, -1));
  });
});

describe('a followed account’s reposts of an outbox author’s posts', () => {
  it('leave no post of the home partition behind on a walk of any page size', async () => {
    const [outboxAuthor, friend, fanned] = await signUps(3);
    const reader = await t.signUp();
    // Five followers, past FANOUT_MAX_FOLLOWERS (4): the author's posts stay in its outbox, merged at read time.
    for (const u of [reader, ...(await signUps(4))]) await follow(t, u.token, outboxAuthor!.id);
    for (const u of [friend!, fanned!]) await follow(t, reader.token, u.id);
    const originals = [await createPost(t, outboxAuthor!.token, 'y1'), await createPost(t, outboxAuthor!.token, 'y2')];
    const between = [await createPost(t, fanned!.token, 'b1'), await createPost(t, fanned!.token, 'b2')];
    await waitForQueueToDrain(t);
    // The friend's reposts come first in the home partition; showing each post once swaps them for the originals.
    for (const postId of originals) await repost(friend!, postId);
    await waitForQueueToDrain(t);
    for (const first of [1, 2, 3]) {
      const seen = new Set<string>();
      for (let after: string | null = null; ;) {
        const page = await homePage(reader, { first, after });
        for (const entry of page.entries) seen.add(entry.id);
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      expect([...seen].sort(), `first: ${first}`).toEqual([...originals, ...between].sort());
    }
  });
});

describe('an author page', () => {
  it('shows the author’s reposts with their reason unless includeReposts is false', async () => {
    const [author, other] = await signUps(2);
    const own = await createPost(t, author!.token, 'mine');
    const theirs = await createPost(t, other!.token, 'theirs');
    await repost(author!, theirs);
    await repost(author!, own);
    const page = (includeReposts?: boolean) =>
      t.gql(
        'query($id: ID!, $r: Boolean) { user(id: $id) { posts(includeReposts: $r) { edges { node { id } repostedBy { handle } } } } }',
        {
          id: author!.id,
          ...(includeReposts === undefined ? {} : { r: includeReposts }),
        },
      );
    // A repost of one's own post shows the post once, as the original.
    expect((await page()).data!.user.posts.edges).toEqual([
      { node: { id: theirs }, repostedBy: { handle: author!.handle } },
      { node: { id: own }, repostedBy: null },
    ]);
    expect((await page(false)).data!.user.posts.edges).toEqual([{ node: { id: own }, repostedBy: null }]);
  });
});

describe('likedBy and repostedBy', () => {
  it('page through the users newest first, with totalCount equal to the count', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'popular');
    const users = await signUps(5);
    for (const u of users) {
      await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, u.token);
      await repost(u, postId);
    }
    // An unlike and an unrepost leave the lists too.
    await t.gql('mutation($id: ID!) { unlikePost(postId: $id) { post { id } } }', { id: postId }, users[1]!.token);
    await repost(users[3]!, postId, 'unrepost');
    for (const [field, count, left] of [
      ['likedBy', 'likeCount', users.filter((_, i) => i !== 1)],
      ['repostedBy', 'repostCount', users.filter((_, i) => i !== 3)],
    ] as const) {
      const totals: number[] = [];
      const ids = await idsOfEveryPage(async (after) => {
        const result = await t.gql(
          `query($id: ID!, $after: String) { post(id: $id) { ${count} ${field}(first: 2, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }`,
          { id: postId, after },
        );
        if (result.errors) throw new Error(JSON.stringify(result.errors));
        totals.push(result.data!.post[field].totalCount, result.data!.post[count]);
        return result.data!.post[field];
      });
      expect(ids, field).toEqual(left.map((u) => u.id).reverse());
      expect(new Set(totals), field).toEqual(new Set([4]));
    }
    const bad = await t.gql('query($id: ID!) { post(id: $id) { likedBy(after: "bm90IGEgY3Vyc29y") { totalCount } } }', {
      id: postId,
    });
    expect(errorCodes(bad)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('mentions', () => {
  it('resolve @handles of existing users when a post or comment is written, in order of first mention', async () => {
    const [author, named, other] = await signUps(3);
    const text = `hi @${named!.handle.toUpperCase()} and @${other!.handle}, again @${named!.handle}; not @nobody_${Date.now()} nor me@${other!.handle}`;
    const created = await t.gql(
      'mutation($text: String!) { createPost(input: { text: $text }) { post { id mentions { id handle } } } }',
      { text },
      author!.token,
    );
    expect(created.data!.createPost.post.mentions).toEqual([
      { id: named!.id, handle: named!.handle },
      { id: other!.id, handle: other!.handle },
    ]);
    const postId = created.data!.createPost.post.id;
    const comment = await t.gql(
      'mutation($id: ID!, $text: String!) { addComment(postId: $id, text: $text) { comment { mentions { id } } } }',
      { id: postId, text: `@${author!.handle} thanks` },
      other!.token,
    );
    expect(comment.data!.addComment.comment.mentions).toEqual([{ id: author!.id }]);
    const read = await t.gql(
      'query($id: ID!) { post(id: $id) { mentions { id } comments { edges { node { mentions { id } } } } } }',
      { id: postId },
    );
    expect(read.data!.post.mentions).toEqual([{ id: named!.id }, { id: other!.id }]);
    expect(read.data!.post.comments.edges[0].node.mentions).toEqual([{ id: author!.id }]);
  });
});
