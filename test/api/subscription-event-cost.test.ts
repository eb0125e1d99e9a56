import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type LiveClient, connectLive } from '../helpers/live.js';
import { createPost, follow } from '../helpers/posts.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { stallingProxy } from '../helpers/stalling-proxy.js';
import { killWorkerProcesses, startApiProcess } from '../helpers/worker-process.js';

const JWT_SECRET = randomBytes(32).toString('hex');

/**
 * A subscriber on a second instance whose DynamoDB requests pass through a proxy that lists them: the posts are
 * made, fanned out and announced by the first instance, so what the proxy sees is the second's events.
 */
describe("a subscription event's requests", () => {
  let redis: RedisServer;
  let probe: Redis;
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startApiProcess>>;
  let proxy: Awaited<ReturnType<typeof stallingProxy>>;
  let live: LiveClient | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    probe = new Redis(redis.url);
    a = await startTestApp({ REDIS_URL: redis.url, JWT_SECRET });
    proxy = await stallingProxy(a.endpoint);
    b = await startApiProcess(a, {
      REDIS_URL: redis.url,
      JWT_SECRET,
      WORKER_ENABLED: 'false',
      DYNAMODB_ENDPOINT: proxy.endpoint,
      CACHE: 'off',
      // Read at most once in the test: a refresh of the authors who are not fanned out is an event's Query.
      OUTBOX_AUTHORS_TTL_MS: '3600000',
    });
  }, 120_000);
  afterAll(async () => {
    await live?.dispose();
    killWorkerProcesses();
    probe?.disconnect();
    proxy?.close();
    await a?.stop();
    await redis?.stop();
  });

  it('check the account in the same request as the first wave of its hydration', { timeout: 60_000 }, async () => {
    const ada = await a.signUp();
    const bob = await a.signUp();
    await follow(a, bob.token, ada.id);
    live = connectLive(b.url, bob.token);
    const events = live.subscribe(
      'subscription { timelinePostAdded { cursor node { id text author { handle } likeCount viewerHasLiked } } }',
    );
    await vi.waitFor(
      async () => {
        const [, count] = (await probe.pubsub('NUMSUB', `${a.tablePrefix}timeline:${bob.id}`)) as [string, number];
        expect(count).toBeGreaterThan(0);
      },
      { timeout: 10_000 },
    );

    // The first event may find the instance reading its registry of outbox authors (once an hour): not counted.
    await createPost(a, ada.token, 'first');
    await vi.waitFor(() => expect(events.data).toHaveLength(1), { timeout: 20_000 });
    for (const n of [2, 3]) {
      const before = proxy.targets.length;
      await createPost(a, ada.token, `post ${n}`);
      await vi.waitFor(() => expect(events.data).toHaveLength(n), { timeout: 20_000 });
      // The post's hydration is two waves; the account's read, a profile, goes in the first one's request.
      expect(proxy.targets.slice(before)).toEqual(['BatchGetItem', 'BatchGetItem']);
    }
    expect(events.errors).toEqual([]);
  });
});
