import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';
import { killWorkerProcesses, startWorkerProcess } from '../helpers/worker-process.js';

/**
 * The API runs without a worker (WORKER_ENABLED=false); the worker runs as its own process,
 * `npm run worker`'s entry point, against the same table, so that it can be killed mid-fan-out.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
});
afterAll(async () => {
  killWorkerProcesses();
  await t.stop();
});

async function fanOutStatus(
  token: string,
  postId: string,
): Promise<{ state: string; delivered: number; total: number }> {
  const result = await t.gql(
    'query($id: ID!) { post(id: $id) { fanOut { state delivered total } } }',
    { id: postId },
    token,
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!.post.fanOut;
}

function startWorker(env: Record<string, string> = {}) {
  return startWorkerProcess(t, {
    FANOUT_PAGE_SIZE: '4',
    // The follows' backfill tasks wait in the queue too; here they must not deliver the post instead of the fan-out.
    FOLLOW_BACKFILL_POSTS: '0',
    QUEUE_LEASE_MS: '1000',
    QUEUE_POLL_MS: '50',
    ...env,
  });
}

describe('fan-out worker as its own process', () => {
  // Starts, kills and restarts a worker process: about half a minute on an idle two-core machine, more under load.
  it(
    'delivers a post to every follower exactly once although the worker is killed mid-fan-out and restarted',
    { timeout: 120_000 },
    async () => {
      const author = await t.signUp();
      const followers: Awaited<ReturnType<TestApp['signUp']>>[] = [];
      for (let i = 0; i < 6; i++) followers.push(...(await Promise.all(Array.from({ length: 20 }, () => t.signUp()))));
      for (let i = 0; i < followers.length; i += 20)
        await Promise.all(followers.slice(i, i + 20).map((f) => follow(t, f.token, author.id)));

      const postId = await createPost(t, author.token, 'survives a crash');
      // No worker yet: the task waits in the queue; the author already sees the post.
      expect(await homeIds(t, author)).toEqual([postId]);
      expect(await homeIds(t, followers[0]!)).toEqual([]);
      expect(await fanOutStatus(author.token, postId)).toEqual({ state: 'PENDING', delivered: 0, total: 120 });

      const first = startWorker();
      // A checkpoint that was saved: under load a 1 s lease can lapse, and a save after it is refused (held: false).
      await first.logLine((e) => e.msg === 'task checkpoint' && e.kind === 'fanOut' && e.held === true);
      first.child.kill('SIGKILL');
      await first.exited;

      const counts = async () =>
        Promise.all(followers.map(async (f) => (await homeIds(t, f)).filter((id) => id === postId).length));
      const partial = await counts();
      expect(partial.filter((n) => n === 1).length).toBeGreaterThan(0);
      expect(partial.filter((n) => n === 0).length).toBeGreaterThan(0);
      const interrupted = await fanOutStatus(author.token, postId);
      expect(interrupted).toMatchObject({ state: 'RUNNING', total: 120 });
      expect(interrupted.delivered).toBeGreaterThan(0);
      expect(interrupted.delivered).toBeLessThan(120);

      const second = startWorker();
      const resumed = await second.logLine((e) => e.msg === 'task claimed' && e.kind === 'fanOut');
      expect(resumed.attempts).toBe(2);
      expect(resumed.checkpoint).not.toBeNull();
      await second.logLine((e) => e.msg === 'task ended' && e.kind === 'fanOut' && e.outcome === 'done');
      await expect.poll(counts, WORKER_WAIT).toEqual(followers.map(() => 1));
      // Pages written again after the crash are not counted twice.
      expect(await fanOutStatus(author.token, postId)).toEqual({ state: 'DONE', delivered: 120, total: 120 });

      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
  );

  it(
    'delivers a repost to every follower of the reposter exactly once, with its reason, although the worker is killed mid-way',
    { timeout: 120_000 },
    async () => {
      const [author, reposter] = await Promise.all([t.signUp(), t.signUp()]);
      const followers: Awaited<ReturnType<TestApp['signUp']>>[] = [];
      for (let i = 0; i < 3; i++) followers.push(...(await Promise.all(Array.from({ length: 20 }, () => t.signUp()))));
      for (let i = 0; i < followers.length; i += 20)
        await Promise.all(followers.slice(i, i + 20).map((f) => follow(t, f.token, reposter.id)));
      // A follower of the author too: whichever of the post's own fan-out and the repost reaches them first places the post, once.
      await follow(t, followers[0]!.token, author.id);
      const postId = await createPost(t, author.token, 'shared across a crash');
      const reposted = await t.gql(
        'mutation($id: ID!) { repost(postId: $id) { post { repostCount } } }',
        { id: postId },
        reposter.token,
      );
      expect(reposted.data!.repost.post.repostCount).toBe(1);

      const first = startWorker();
      // A checkpoint that was saved: under load a 1 s lease can lapse, and a save after it is refused (held: false).
      await first.logLine((e) => e.msg === 'task checkpoint' && e.kind === 'repost' && e.held === true);
      first.child.kill('SIGKILL');
      await first.exited;

      const reasons = async () =>
        Promise.all(
          followers.map(async (f) => {
            const result = await t.gql(
              'query($id: ID!) { user(id: $id) { timeline(first: 100) { edges { node { id } repostedBy { id } } } } }',
              { id: f.id },
              f.token,
            );
            return result
              .data!.user.timeline.edges.filter((e: any) => e.node.id === postId)
              .map((e: any) => e.repostedBy?.id ?? null);
          }),
        );
      const partial = (await reasons()).slice(1);
      expect(partial.filter((r) => r.length === 1).length).toBeGreaterThan(0);
      expect(partial.filter((r) => r.length === 0).length).toBeGreaterThan(0);

      const second = startWorker();
      const resumed = await second.logLine((e) => e.msg === 'task claimed' && e.kind === 'repost');
      expect(resumed.checkpoint).not.toBeNull();
      await second.logLine((e) => e.msg === 'task ended' && e.kind === 'repost' && e.outcome === 'done');
      await waitForQueueToDrain(t);
      const [ofAuthorsFollower, ...rest] = await reasons();
      expect(ofAuthorsFollower).toHaveLength(1);
      expect([null, reposter.id]).toContain(ofAuthorsFollower![0]);
      expect(rest).toEqual(followers.slice(1).map(() => [reposter.id]));

      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
  );

  it('finishes tasks queued before QUEUE_SHARDS was raised', async () => {
    const author = await t.signUp();
    const followers = await Promise.all(Array.from({ length: 8 }, () => t.signUp()));
    for (const f of followers) await follow(t, f.token, author.id);
    const posts: string[] = [];
    for (let i = 0; i < 6; i++) posts.push(await createPost(t, author.token, `before the resize ${i}`));

    // The API enqueued over its 4 shards; this worker spreads new tasks over 16.
    const worker = startWorker({ QUEUE_SHARDS: '16' });
    await vi.waitFor(async () => {
      for (const f of followers) expect(new Set(await homeIds(t, f))).toEqual(new Set(posts));
    }, WORKER_WAIT);
    await waitForQueueToDrain(t);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
