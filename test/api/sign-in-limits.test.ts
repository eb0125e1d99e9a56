import { request } from 'node:http';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import {
  TEST_PASSWORD,
  errorCodes,
  startTestApp,
  uniqueHandle,
  type GraphQLResponse,
  type TestApp,
} from '../helpers/app.js';

let t: TestApp;

/**
 * Failures are counted in fixed windows (they start at multiples of their length), and a check
 * weighs the previous window's count by how much of it is still within the last window: with the
 * default 60 s, a test's failures could straddle a boundary and weigh less. These tests count, so
 * they use a day, which only a run across midnight UTC can straddle (the tables are new for every
 * run); the window's end is tested on its own with 2 s, the weighing in test/unit/sign-in-limits.test.ts.
 */
const COUNTING_WINDOW = { SIGNIN_WINDOW_SECONDS: String(24 * 3600) };

beforeAll(async () => {
  t = await startTestApp(COUNTING_WINDOW);
});
afterAll(async () => {
  await t.stop();
});

const SIGN_IN = 'mutation($input: SignInInput!) { signIn(input: $input) { user { id } } }';

/**
 * Sends an operation from a loopback address of the test's choosing (all of 127.0.0.0/8 reaches
 * the service on Linux), so that a test can be several clients.
 */
function gqlFrom(
  app: TestApp,
  localAddress: string,
  query: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<GraphQLResponse & { retryAfter?: string }> {
  const body = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const req = request(
      `${app.url}/graphql`,
      {
        method: 'POST',
        localAddress,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            retryAfter: response.headers['retry-after'],
            ...JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function signInFrom(app: TestApp, address: string, handle: string, password: string) {
  return gqlFrom(app, address, SIGN_IN, { input: { handle, password } });
}

function refusal(result: GraphQLResponse) {
  return { codes: errorCodes(result), retryAfterSeconds: result.errors?.[0]?.extensions?.retryAfterSeconds };
}

describe('failed sign-ins', () => {
  it('past 10 for one handle, refuse every attempt at that handle from any address, right password or wrong', async () => {
    const target = await t.signUp(uniqueHandle('target'));
    const bystander = await t.signUp(uniqueHandle('bystander'));
    for (let i = 0; i < 10; i++)
      expect(errorCodes(await signInFrom(t, '127.0.0.2', target.handle, `wrong password ${i}`))).toEqual([
        'UNAUTHENTICATED',
      ]);

    const right = await signInFrom(t, '127.0.0.3', target.handle, TEST_PASSWORD);
    expect(right.data!.signIn).toBeNull();
    const { codes, retryAfterSeconds } = refusal(right);
    expect(codes).toEqual(['RATE_LIMITED']);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(24 * 3600);
    // A field's refusal: HTTP 200, with the seconds in Retry-After too for clients and proxies that read headers only.
    expect({ status: right.status, retryAfter: right.retryAfter }).toEqual({
      status: 200,
      retryAfter: String(retryAfterSeconds),
    });
    expect(refusal(await signInFrom(t, '127.0.0.3', target.handle.toUpperCase(), 'wrong again')).codes).toEqual([
      'RATE_LIMITED',
    ]);
    // Another handle from an address that has not failed is not held back.
    const bystanding = await signInFrom(t, '127.0.0.3', bystander.handle, TEST_PASSWORD);
    expect(bystanding.data!.signIn.user.id).toBe(bystander.id);
    expect(bystanding.retryAfter).toBeUndefined();
  });

  it('past 10 from one address, refuse every sign-in from it, whatever the handle', async () => {
    const handles = Array.from({ length: 10 }, () => uniqueHandle('spray'));
    for (const handle of handles)
      expect(errorCodes(await signInFrom(t, '127.0.0.4', handle, 'guessing passwords'))).toEqual(['UNAUTHENTICATED']);
    const user = await t.signUp(uniqueHandle('fromfour'));
    expect(refusal(await signInFrom(t, '127.0.0.4', user.handle, TEST_PASSWORD)).codes).toEqual(['RATE_LIMITED']);
    expect((await signInFrom(t, '127.0.0.5', user.handle, TEST_PASSWORD)).data!.signIn.user.id).toBe(user.id);
  });

  it('count wrong current passwords of changePassword too', async () => {
    const user = await t.signUp(uniqueHandle('chg'));
    for (let i = 0; i < 10; i++) {
      const wrong = await gqlFrom(
        t,
        '127.0.0.6',
        'mutation($c: String!) { changePassword(currentPassword: $c, newPassword: "a brand new passphrase") }',
        { c: `wrong ${i}` },
        user.token,
      );
      expect(errorCodes(wrong)).toEqual(['BAD_USER_INPUT']);
    }
    const right = await gqlFrom(
      t,
      '127.0.0.7',
      'mutation($c: String!) { changePassword(currentPassword: $c, newPassword: "a brand new passphrase") }',
      { c: TEST_PASSWORD },
      user.token,
    );
    expect(refusal(right).codes).toEqual(['RATE_LIMITED']);
    expect(refusal(await signInFrom(t, '127.0.0.7', user.handle, TEST_PASSWORD)).codes).toEqual(['RATE_LIMITED']);
  });
});

describe('stored items: failed sign-ins', () => {
  it('of one handle are counted in one item, shared by every instance on the table, that expires through TTL after the next window', async () => {
    const user = await t.signUp(uniqueHandle('shared'));
    const other = await startTestApp({ ...COUNTING_WINDOW, TABLE_PREFIX: t.tablePrefix, WORKER_ENABLED: 'false' });
    try {
      for (let i = 0; i < 10; i++) {
        const app = i % 2 === 0 ? t : other;
        expect(errorCodes(await signInFrom(app, '127.0.0.8', user.handle, `wrong ${i}`))).toEqual(['UNAUTHENTICATED']);
      }
      expect(refusal(await signInFrom(other, '127.0.0.9', user.handle, TEST_PASSWORD)).codes).toEqual(['RATE_LIMITED']);
      expect(refusal(await signInFrom(t, '127.0.0.9', user.handle, TEST_PASSWORD)).codes).toEqual(['RATE_LIMITED']);
    } finally {
      await other.app.stop();
    }
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      const items =
        (await client.send(new ScanCommand({ TableName: tableName(t.tablePrefix), ConsistentRead: true }))).Items ?? [];
      const counter = items.find((item) => item.pk === `FAILS#handle#${user.handle}`)!;
      expect(counter.failures).toBe(10);
      expect(Number(counter.expiresAt)).toBeGreaterThan(Date.now() / 1000);
      // The next window's end (it is read as the previous window until then), and a minute more.
      expect(Number(counter.expiresAt)).toBeGreaterThan(
        Date.now() / 1000 + Number(COUNTING_WINDOW.SIGNIN_WINDOW_SECONDS),
      );
      expect(Number(counter.expiresAt)).toBeLessThanOrEqual(
        Date.now() / 1000 + 2 * Number(COUNTING_WINDOW.SIGNIN_WINDOW_SECONDS) + 60,
      );
    } finally {
      client.destroy();
    }
  });

  it('of the previous window still count after a boundary: a burst just before it holds back the attempts just after it', async () => {
    const user = await t.signUp(uniqueHandle('boundary'));
    const day = Number(COUNTING_WINDOW.SIGNIN_WINDOW_SECONDS);
    const currentWindow = Math.floor(Date.now() / 1000 / day) * day;
    const previousWindow = currentWindow - day;
    // The failures of the previous window, as the service counts them: a burst so far past the limit
    // that its share is too until the last moment of this window. Weighed in, they refuse the right password.
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      await client.send(
        new PutCommand({
          TableName: tableName(t.tablePrefix),
          Item: {
            pk: `FAILS#handle#${user.handle}`,
            sk: String(previousWindow),
            failures: 1_000_000_000,
            expiresAt: previousWindow + 2 * day + 60,
          },
        }),
      );
    } finally {
      client.destroy();
    }
    const { codes, retryAfterSeconds } = refusal(await signInFrom(t, '127.0.0.11', user.handle, TEST_PASSWORD));
    expect(codes).toEqual(['RATE_LIMITED']);
    // Until the previous window's share has shrunk below the limit: the end of this window, all but a moment.
    const untilWindowEnds = currentWindow + day - Date.now() / 1000;
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(untilWindowEnds - 5);
    expect(retryAfterSeconds).toBeLessThanOrEqual(untilWindowEnds + 5);
  });
});

describe('password checks per address, right or wrong (PASSWORD_CHECKS_PER_ADDRESS=5)', () => {
  let limited: TestApp;
  const SIGN_UP = 'mutation($input: SignUpInput!) { signUp(input: $input) { user { id } } }';
  const CHANGE_PASSWORD =
    'mutation($c: String!) { changePassword(currentPassword: $c, newPassword: "a brand new passphrase") }';

  beforeAll(async () => {
    // The same table as `t`, whose accounts are signed up from 127.0.0.1 without this limit.
    limited = await startTestApp({
      ...COUNTING_WINDOW,
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
      PASSWORD_CHECKS_PER_ADDRESS: '5',
    });
  });
  afterAll(async () => {
    await limited.app.stop();
  });

  it('counts sign-ins, password sign-ups and current passwords alike, and refuses every one past them', async () => {
    const user = await t.signUp(uniqueHandle('checked'));
    const from = (query: string, variables: Record<string, unknown>, token?: string) =>
      gqlFrom(limited, '127.0.0.20', query, variables, token);
    // Refused before any hash: not counted.
    expect(errorCodes(await from(SIGN_UP, { input: { handle: user.handle, password: TEST_PASSWORD } }))).toEqual([
      'HANDLE_TAKEN',
    ]);
    expect(errorCodes(await from(SIGN_UP, { input: { handle: uniqueHandle('short'), password: 'short' } }))).toEqual([
      'BAD_USER_INPUT',
    ]);

    expect(
      (await from(SIGN_UP, { input: { handle: uniqueHandle('new'), password: TEST_PASSWORD } })).data!.signUp.user.id,
    ).toMatch(/^usr_/);
    for (let i = 0; i < 2; i++)
      expect(
        (await from(SIGN_IN, { input: { handle: user.handle, password: TEST_PASSWORD } })).data!.signIn.user.id,
      ).toBe(user.id);
    expect(errorCodes(await from(SIGN_IN, { input: { handle: user.handle, password: 'wrong password' } }))).toEqual([
      'UNAUTHENTICATED',
    ]);
    expect(errorCodes(await from(CHANGE_PASSWORD, { c: 'wrong password' }, user.token))).toEqual(['BAD_USER_INPUT']);

    const right = await from(SIGN_IN, { input: { handle: user.handle, password: TEST_PASSWORD } });
    const { codes, retryAfterSeconds } = refusal(right);
    expect(codes).toEqual(['RATE_LIMITED']);
    expect(right.errors![0]!.message).toMatch(/^Too many password checks from this address: try again in \d+ s$/);
    expect({ status: right.status, retryAfter: right.retryAfter }).toEqual({
      status: 200,
      retryAfter: String(retryAfterSeconds),
    });
    const handle = uniqueHandle('refused');
    expect(refusal(await from(SIGN_UP, { input: { handle, password: TEST_PASSWORD } })).codes).toEqual([
      'RATE_LIMITED',
    ]);
    expect((await t.gql('query($h: String!) { user(handle: $h) { id } }', { h: handle })).data!.user).toBeNull();
    expect(refusal(await from(CHANGE_PASSWORD, { c: TEST_PASSWORD }, user.token)).codes).toEqual(['RATE_LIMITED']);

    // Another address is not held back, and every instance on the table holds this one back.
    expect(
      (await gqlFrom(limited, '127.0.0.21', SIGN_IN, { input: { handle: user.handle, password: TEST_PASSWORD } })).data!
        .signIn.user.id,
    ).toBe(user.id);
    const sibling = await startTestApp({
      ...COUNTING_WINDOW,
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
      PASSWORD_CHECKS_PER_ADDRESS: '5',
    });
    try {
      expect(
        refusal(
          await gqlFrom(sibling, '127.0.0.20', SIGN_IN, { input: { handle: user.handle, password: TEST_PASSWORD } }),
        ).codes,
      ).toEqual(['RATE_LIMITED']);
    } finally {
      await sibling.app.stop();
    }
  });

  it('lets exactly the limit through when the checks come at once', async () => {
    const user = await t.signUp(uniqueHandle('atonce'));
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => signInFrom(limited, '127.0.0.22', user.handle, TEST_PASSWORD)),
    );
    const outcomes = answers.map((answer) => (answer.data?.signIn ? 'signed in' : errorCodes(answer).join()));
    expect(outcomes.filter((outcome) => outcome === 'signed in')).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome === 'RATE_LIMITED')).toHaveLength(7);
    for (const answer of answers.filter((a) => !a.data?.signIn))
      expect(refusal(answer).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});

describe('the password hash pool (PASSWORD_HASH_CONCURRENCY=1)', () => {
  /** Hashes of half a second or more (the production cost), so that requests sent together all reach the pool while the first one runs. */
  const SLOW_HASHES = { PASSWORD_SCRYPT_LOG2_N: '17', PASSWORD_HASH_CONCURRENCY: '1', WORKER_ENABLED: 'false' };

  it("refuses an address's hashes past the ones it may keep waiting, and still serves another address", async () => {
    const pool = await startTestApp({
      ...SLOW_HASHES,
      PASSWORD_HASH_QUEUE_PER_ADDRESS: '1',
      PASSWORD_HASH_QUEUE_TIMEOUT_MS: '60000',
    });
    try {
      const [flooder, user] = await Promise.all([
        pool.signUp(uniqueHandle('flooder')),
        pool.signUp(uniqueHandle('bystander')),
      ]);
      const flood = Array.from({ length: 6 }, () => signInFrom(pool, '127.0.0.30', flooder.handle, TEST_PASSWORD));
      // Sent once the flooder's queue is full (its first refusal), so that its own hash cannot take the flood's turn.
      await Promise.any(flood.map((answer) => answer.then((a) => (a.data?.signIn ? Promise.reject() : a))));
      const own = signInFrom(pool, '127.0.0.31', user.handle, TEST_PASSWORD);
      // One hash runs, one waits; the other four are refused without a hash.
      const answers = await Promise.all(flood);
      expect(answers.filter((answer) => answer.data?.signIn)).toHaveLength(2);
      const refused = answers.filter((answer) => !answer.data?.signIn);
      expect(refused.map((answer) => refusal(answer))).toEqual(
        Array(4).fill({ codes: ['RATE_LIMITED'], retryAfterSeconds: 60 }),
      );
      expect(refused[0]!.errors![0]!.message).toBe('The service is busy checking passwords: try again in 60 s');
      expect(refused[0]!.retryAfter).toBe('60');
      expect((await own).data!.signIn.user.id).toBe(user.id);
    } finally {
      await pool.stop();
    }
  });

  it('refuses a hash that waited PASSWORD_HASH_QUEUE_TIMEOUT_MS for its turn', async () => {
    const pool = await startTestApp({ ...SLOW_HASHES, PASSWORD_HASH_QUEUE_TIMEOUT_MS: '100' });
    try {
      const user = await pool.signUp(uniqueHandle('waiting'));
      const answers = await Promise.all(
        ['127.0.0.32', '127.0.0.33'].map((address) => signInFrom(pool, address, user.handle, TEST_PASSWORD)),
      );
      expect(answers.filter((answer) => answer.data?.signIn)).toHaveLength(1);
      expect(answers.filter((answer) => !answer.data?.signIn).map((answer) => refusal(answer))).toEqual([
        { codes: ['RATE_LIMITED'], retryAfterSeconds: 1 },
      ]);
    } finally {
      await pool.stop();
    }
  });
});

describe('behind a reverse proxy (TRUSTED_PROXY_HOPS=1)', () => {
  it('counts per address the proxy saw, the last X-Forwarded-For entry, not the proxy itself', async () => {
    const proxied = await startTestApp({
      ...COUNTING_WINDOW,
      TABLE_PREFIX: t.tablePrefix,
      TRUSTED_PROXY_HOPS: '1',
      WORKER_ENABLED: 'false',
    });
    try {
      const signInVia = (forwardedFor: string, handle: string, password: string) =>
        fetch(`${proxied.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
          body: JSON.stringify({ query: SIGN_IN, variables: { input: { handle, password } } }),
        }).then((response) => response.json() as Promise<GraphQLResponse>);
      // The client's own entries further left are its own say and count for nothing.
      for (let i = 0; i < 10; i++)
        expect(errorCodes(await signInVia(`10.0.0.${i}, 203.0.113.7`, uniqueHandle('proxied'), 'guessing'))).toEqual([
          'UNAUTHENTICATED',
        ]);
      const user = await t.signUp(uniqueHandle('proxied'));
      expect(refusal(await signInVia('203.0.113.7', user.handle, TEST_PASSWORD)).codes).toEqual(['RATE_LIMITED']);
      expect((await signInVia('203.0.113.8', user.handle, TEST_PASSWORD)).data!.signIn.user.id).toBe(user.id);
    } finally {
      await proxied.app.stop();
    }
  });
});

describe('the sign-in window', () => {
  it('lets the right password through again once the window has passed', { timeout: 60_000 }, async () => {
    const short = await startTestApp({ SIGNIN_MAX_FAILURES: '3', SIGNIN_WINDOW_SECONDS: '2' });
    try {
      const user = await short.signUp(uniqueHandle('window'));
      let limited: GraphQLResponse | undefined;
      // Failures may straddle a boundary and weigh less, so fail until the limit answers.
      for (let i = 0; i < 20 && !limited; i++) {
        const result = await signInFrom(short, '127.0.0.10', user.handle, `wrong ${i}`);
        if (errorCodes(result)[0] === 'RATE_LIMITED') limited = result;
      }
      expect(limited).toBeDefined();
      const retryAfterSeconds = refusal(limited!).retryAfterSeconds as number;
      expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(retryAfterSeconds).toBeLessThanOrEqual(2);
      await expect
        .poll(async () => (await signInFrom(short, '127.0.0.10', user.handle, TEST_PASSWORD)).data?.signIn?.user.id, {
          timeout: 10_000,
          interval: 500,
        })
        .toBe(user.id);
    } finally {
      await short.stop();
    }
  });
});
