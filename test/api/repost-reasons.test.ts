import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, homeEntries, repostAs } from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';

/** Reposters with more than 4 followers are merged from their outboxes here (FANOUT_MAX_FOLLOWERS). */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ FANOUT_MAX_FOLLOWERS: '4', OUTBOX_AUTHORS_TTL_MS: '0' });
});
afterAll(async () => {
  await t.stop();
});

type User = Awaited<ReturnType<TestApp['signUp']>>;

async function relate(user: User, mutation: 'mute' | 'unmute', otherId: string) {
  const result = await t.gql(
    `mutation($id: ID!) { ${mutation}(userId: $id) { user { id } } }`,
    { id: otherId },
    user.token,
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
}

const entriesOf = async (user: User, postId: string) => (await homeEntries(t, user)).filter((e) => e.id === postId);

describe('a post in a home timeline for more than one reason', () => {
  it('shows another reposter when the viewer mutes the one shown, and goes when every reason left is hidden', async () => {
    const [author, muted, friend, reader] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
    await follow(t, reader!.token, muted!.id);
    await follow(t, reader!.token, friend!.id);
    const postId = await createPost(t, author!.token, 'reposted twice');
    await repostAs(t, muted!, postId);
    await expect
      .poll(() => entriesOf(reader!, postId), WORKER_WAIT)
      .toEqual([{ id: postId, repostedBy: muted!.handle }]);
    await repostAs(t, friend!, postId);
    await waitForQueueToDrain(t);

    await relate(reader!, 'mute', muted!.id);
    expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: friend!.handle }]);
    await relate(reader!, 'mute', friend!.id);
    expect(await entriesOf(reader!, postId)).toEqual([]);
    await relate(reader!, 'unmute', friend!.id);
    // A reason taken back leaves the entry too: the muted reposter's is the one left.
    await repostAs(t, friend!, postId, 'unrepost');
    await waitForQueueToDrain(t);
    expect(await entriesOf(reader!, postId)).toEqual([]);
    await relate(reader!, 'unmute', muted!.id);
    expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: muted!.handle }]);
  });

  it('shows the post as its author’s when the reader follows the author and mutes the reposter that brought it', async () => {
    const [author, muted, reader] = await Promise.all(Array.from({ length: 3 }, () => t.signUp()));
    await follow(t, reader!.token, muted!.id);
    const postId = await createPost(t, author!.token, 'reposted, then followed');
    await repostAs(t, muted!, postId);
    await expect
      .poll(() => entriesOf(reader!, postId), WORKER_WAIT)
      .toEqual([{ id: postId, repostedBy: muted!.handle }]);
    // The follow's backfill adds the original as a reason; the repost's entry stays where it is.
    await follow(t, reader!.token, author!.id);
    await waitForQueueToDrain(t);
    expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: muted!.handle }]);

    await relate(reader!, 'mute', muted!.id);
    expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: null }]);
  });

  it('shows a followed account’s repost when the newer one, merged from a muted outbox reposter, is hidden', async () => {
    const [author, hot, friend, reader] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
    const others = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
    for (const u of [reader!, ...others]) await follow(t, u.token, hot!.id);
    await follow(t, reader!.token, friend!.id);
    // An older post in the same read: had the page hidden the post at the outbox's entry, it would end past the
    // friend's entry, and no page would show the post.
    const older = await createPost(t, friend!.token, 'older');
    const postId = await createPost(t, author!.token, 'reposted by a hot account');
    await repostAs(t, friend!, postId);
    await expect.poll(() => entriesOf(reader!, postId), WORKER_WAIT).toHaveLength(1);
    await repostAs(t, hot!, postId);
    await waitForQueueToDrain(t);
    expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: hot!.handle }]);

    await relate(reader!, 'mute', hot!.id);
    expect(await homeEntries(t, reader!)).toEqual([
      { id: postId, repostedBy: friend!.handle },
      { id: older, repostedBy: null },
    ]);
  });
});
