import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, SessionEndedError, memoryStore, type RefreshLock } from '../../examples/session.js';
import { fetchHonoringRetryAfter } from '../../examples/transport.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expiringIn, requestRecorder } from '../helpers/clients.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

/** One lock for the whole page, as `navigator.locks.request('session-refresh', …)` is one for every tab of an origin. */
function pageLock(): RefreshLock {
  let tail: Promise<unknown> = Promise.resolve();
  return (refresh) => {
    const run = tail.then(refresh);
    tail = run.catch(() => {});
    return run;
  };
}

describe('the examples’ session', () => {
  it('refreshes once for two tabs that share their tokens and a lock, and the session goes on', async () => {
    const user = await t.signUp();
    const requests = requestRecorder();
    // Tabs share storage of their origin (localStorage in a browser) and the lock.
    const store = memoryStore();
    const lock = pageLock();
    const tabs = [0, 1].map(() => new Session({ url: `${t.url}/graphql`, store, lock, fetch: requests.fetch }));
    store.set(await expiringIn(t, { token: user.token, refreshToken: user.refreshToken, expiresAt: '' }, -60));

    const tokens = await Promise.all([...tabs, ...tabs].map((tab) => tab.accessToken()));
    expect(new Set(tokens)).toEqual(new Set([store.get()!.token]));
    expect(requests.named('RefreshSession')).toEqual([
      { operationName: 'RefreshSession', authorization: null, status: 200 },
    ]);
    // The rotated refresh token was presented once only: the session refreshes again.
    // (Two access tokens signed in one second for one user are equal, so count the refreshes instead.)
    const next = await tabs[1]!.refreshAfter(tokens[0]!);
    expect(requests.named('RefreshSession').map(({ status }) => status)).toEqual([200, 200]);
    expect((await t.gql('{ viewer { id } }', {}, next)).data).toEqual({ viewer: { id: user.id } });
  });

  it('ends the session when two tabs without a lock present one refresh token twice', async () => {
    const user = await t.signUp();
    const store = memoryStore();
    const tabs = [0, 1].map(() => new Session({ url: `${t.url}/graphql`, store }));
    store.set(await expiringIn(t, { token: user.token, refreshToken: user.refreshToken, expiresAt: '' }, -60));

    const outcomes = await Promise.allSettled(tabs.map((tab) => tab.accessToken()));
    // One tab got a token; the other's second use of the refresh token ended the session for both.
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')!.reason).toBeInstanceOf(SessionEndedError);
    // Whichever answer came last left the store, but no tab can refresh any more.
    const stored = store.get();
    await expect(
      new Session({ url: `${t.url}/graphql`, store }).refreshAfter(stored?.token ?? ''),
    ).rejects.toBeInstanceOf(SessionEndedError);
    const survivor = outcomes.find((outcome) => outcome.status === 'fulfilled')!.value!;
    expect((await t.gql('{ viewer { id } }', {}, survivor)).data).toEqual({ viewer: { id: user.id } });
  });
});

describe('the examples’ fetch', () => {
  /** 120 points: the public timeline (80) and 20 posts with their authors; the bucket holds one, and regains it in two seconds. */
  const PAGE = JSON.stringify({ query: '{ publicTimeline(first: 20) { edges { node { id author { handle } } } } }' });
  let limited: TestApp;

  beforeAll(async () => {
    limited = await startTestApp({
      RATE_LIMIT_POINTS: '120',
      RATE_LIMIT_POINTS_PER_SECOND: '60',
      MAX_QUERY_COST: '120',
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
    });
  });
  afterAll(async () => {
    await limited.app.stop();
  });

  it('waits out a 429 for its Retry-After and sends once more; a longer wait reaches the app', async () => {
    const requests = requestRecorder();
    const page = (maxWaitSeconds?: number) =>
      fetchHonoringRetryAfter({ fetch: requests.fetch, maxWaitSeconds })(`${limited.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: PAGE,
      });

    expect((await page()).status).toBe(200);
    const waited = await page();
    expect(waited.status).toBe(200);
    expect(requests.sent.map((request) => request.status)).toEqual([200, 429, 200]);

    const refused = await page(0);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'RATE_LIMITED',
    );
  });
});
