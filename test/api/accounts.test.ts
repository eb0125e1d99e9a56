import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import {
  TEST_PASSWORD,
  capturingLogger,
  errorCodes,
  startTestApp,
  uniqueHandle,
  type GraphQLResponse,
  type LogEntry,
  type TestApp,
} from '../helpers/app.js';
import { scanTable } from '../helpers/table.js';

let t: TestApp;
const logs: LogEntry[] = [];

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'debug' }, { logger: capturingLogger(logs) });
});
afterAll(async () => {
  await t.stop();
});

const SESSION_FIELDS = 'token refreshToken expiresAt user { id handle }';
const SIGN_UP = `mutation($input: SignUpInput!) { signUp(input: $input) { ${SESSION_FIELDS} } }`;
const SIGN_IN = `mutation($input: SignInInput!) { signIn(input: $input) { ${SESSION_FIELDS} } }`;
const REFRESH = `mutation($refreshToken: String!) { refreshSession(refreshToken: $refreshToken) { ${SESSION_FIELDS} } }`;

interface SessionResult {
  token: string;
  refreshToken: string;
  expiresAt: string;
  user: { id: string; handle: string };
}

function signIn(handle: string, password = TEST_PASSWORD): Promise<GraphQLResponse<{ signIn: SessionResult }>> {
  return t.gql(SIGN_IN, { input: { handle, password } });
}

function refresh(refreshToken: string): Promise<GraphQLResponse<{ refreshSession: SessionResult }>> {
  return t.gql(REFRESH, { refreshToken });
}

async function viewerId(token: string): Promise<{ status: number; id: string | null; codes: string[] }> {
  const result = await t.gql<{ viewer: { id: string } | null }>('{ viewer { id } }', {}, token);
  return { status: result.status, id: result.data?.viewer?.id ?? null, codes: errorCodes(result) };
}

describe('passwords', () => {
  it('are required by signUp, 12-256 characters, and a refused sign-up creates nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'input.password'],
      [{ password: null }, 'input.password'],
      [{ password: 'x'.repeat(11) }, 'input.password'],
      [{ password: 'x'.repeat(257) }, 'input.password'],
      [{ password: 'twelve chars\uD800' }, 'input.password'],
    ];
    for (const [extra, field] of cases) {
      const handle = uniqueHandle('pw');
      const result = await t.gql(SIGN_UP, { input: { handle, ...extra } });
      expect({ extra, codes: errorCodes(result), field: result.errors?.[0]?.extensions?.field }).toEqual({
        extra,
        codes: ['BAD_USER_INPUT'],
        field,
      });
      expect((await t.gql(`{ user(handle: "${handle}") { id } }`)).data!.user).toBeNull();
    }
    // 12 and 256 characters (code points, not UTF-16 units) are fine.
    for (const password of ['x'.repeat(12), '🔑'.repeat(256)]) {
      expect((await t.gql(SIGN_UP, { input: { handle: uniqueHandle('pw'), password } })).data!.signUp).toBeTruthy();
    }
  });
});

describe('signIn', () => {
  it('returns a session: a short-lived access token, a refresh token and when the access token expires', async () => {
    const user = await t.signUp(uniqueHandle('Sign'));
    const result = await signIn(user.handle.toUpperCase());
    expect(result.errors).toBeUndefined();
    const session = result.data!.signIn;
    expect(session.user).toEqual({ id: user.id, handle: user.handle });
    expect(session.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(session.token);
    expect(claims.sub).toBe(user.id);
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(Date.parse(session.expiresAt)).toBe(claims.exp! * 1000);
    expect((await viewerId(session.token)).id).toBe(user.id);
  });

  it('answers a wrong password and an unknown handle alike, with UNAUTHENTICATED', async () => {
    const user = await t.signUp(uniqueHandle('wrong'));
    const wrong = await signIn(user.handle, 'not the password at all');
    const unknown = await signIn(uniqueHandle('nobody'));
    for (const result of [wrong, unknown]) {
      expect(result.data!.signIn).toBeNull();
      expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
    }
    expect(wrong.errors![0]!.message).toBe(unknown.errors![0]!.message);
  });

  it('signUp returns a session too, whose refresh token works', async () => {
    const handle = uniqueHandle('fresh');
    const result = await t.gql<{ signUp: SessionResult }>(SIGN_UP, { input: { handle, password: TEST_PASSWORD } });
    const { token, refreshToken, expiresAt } = result.data!.signUp;
    expect(Date.parse(expiresAt)).toBe(decodeJwt(token).exp! * 1000);
    const next = await refresh(refreshToken);
    expect(next.errors).toBeUndefined();
    expect(next.data!.refreshSession.user.handle).toBe(handle);
  });
});

describe('refreshSession', () => {
  it('rotates: the new session works, the used refresh token is refused, and presenting it again ends the whole session', async () => {
    const user = await t.signUp(uniqueHandle('rot'));
    const first = (await signIn(user.handle)).data!.signIn;
    const second = (await refresh(first.refreshToken)).data!.refreshSession;
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.user.id).toBe(user.id);
    expect((await viewerId(second.token)).id).toBe(user.id);

    // The replay: refused, and the thief's or the owner's newer refresh token is now refused as well.
    const replay = await refresh(first.refreshToken);
    expect(errorCodes(replay)).toEqual(['UNAUTHENTICATED']);
    expect(replay.data!.refreshSession).toBeNull();
    expect(errorCodes(await refresh(second.refreshToken))).toEqual(['UNAUTHENTICATED']);
    expect(logs.some((entry) => entry.level === 'warn' && entry.fields.userId === user.id)).toBe(true);

    // Other sessions of the account go on.
    const other = (await signIn(user.handle)).data!.signIn;
    expect((await refresh(other.refreshToken)).data!.refreshSession.user.id).toBe(user.id);
  });

  it('lets exactly one of two concurrent refreshes with one token through, and ends that session', async () => {
    const user = await t.signUp(uniqueHandle('race'));
    const session = (await signIn(user.handle)).data!.signIn;
    const results = await Promise.all([refresh(session.refreshToken), refresh(session.refreshToken)]);
    const winners = results.filter((r) => r.data?.refreshSession);
    expect(winners).toHaveLength(1);
    for (const winner of winners)
      expect(errorCodes(await refresh(winner.data!.refreshSession.refreshToken))).toEqual(['UNAUTHENTICATED']);
  });

  it('refuses strings that are no refresh token, and tokens never issued', async () => {
    for (const token of ['', 'rt_short', `rt_${'A'.repeat(43)}`, 'x'.repeat(5000)]) {
      const result = await refresh(token);
      expect({ token: token.slice(0, 10), codes: errorCodes(result) }).toEqual({
        token: token.slice(0, 10),
        codes: ['UNAUTHENTICATED'],
      });
    }
  });
});

const SIGN_OUT =
  'mutation($refreshToken: String, $everywhere: Boolean) { signOut(refreshToken: $refreshToken, everywhere: $everywhere) }';
const CHANGE_PASSWORD =
  'mutation($current: String!, $next: String!) { changePassword(currentPassword: $current, newPassword: $next) }';

describe('signOut', () => {
  it('with a refresh token ends that session only; its holder needs no access token', async () => {
    const user = await t.signUp(uniqueHandle('out'));
    const phone = (await signIn(user.handle)).data!.signIn;
    const laptop = (await signIn(user.handle)).data!.signIn;
    const result = await t.gql(SIGN_OUT, { refreshToken: phone.refreshToken });
    expect(result).toMatchObject({ status: 200, data: { signOut: true } });
    expect(errorCodes(await refresh(phone.refreshToken))).toEqual(['UNAUTHENTICATED']);
    // Idempotent: signing out of an ended session says the same.
    expect((await t.gql(SIGN_OUT, { refreshToken: phone.refreshToken })).data).toEqual({ signOut: true });
    expect((await refresh(laptop.refreshToken)).data!.refreshSession.user.id).toBe(user.id);
  });

  it('with neither argument ends the session of the access token sent', async () => {
    const user = await t.signUp(uniqueHandle('here'));
    const session = (await signIn(user.handle)).data!.signIn;
    expect((await t.gql(SIGN_OUT, {}, session.token)).data).toEqual({ signOut: true });
    expect(errorCodes(await refresh(session.refreshToken))).toEqual(['UNAUTHENTICATED']);
    const anonymous = await t.gql(SIGN_OUT, {});
    expect(errorCodes(anonymous)).toEqual(['BAD_USER_INPUT']);
    expect(anonymous.errors![0]!.extensions!.field).toBe('refreshToken');
    expect(errorCodes(await t.gql(SIGN_OUT, { refreshToken: 'nope' }))).toEqual(['BAD_USER_INPUT']);
  });

  it('everywhere ends every session and makes every access token issued before refused on the next request', async () => {
    const user = await t.signUp(uniqueHandle('every'));
    const sessions = [(await signIn(user.handle)).data!.signIn, (await signIn(user.handle)).data!.signIn];
    const refreshed = (await refresh(sessions[1]!.refreshToken)).data!.refreshSession;
    expect(errorCodes(await t.gql(SIGN_OUT, { everywhere: true }))).toEqual(['UNAUTHENTICATED']);

    expect((await t.gql(SIGN_OUT, { everywhere: true }, sessions[0]!.token)).data).toEqual({ signOut: true });
    for (const token of [user.token, sessions[0]!.token, sessions[1]!.token, refreshed.token]) {
      expect(await viewerId(token)).toEqual({ status: 401, id: null, codes: ['UNAUTHENTICATED'] });
      const write = await t.gql(
        'mutation { createPost(input: { text: "after sign-out" }) { post { id } } }',
        {},
        token,
      );
      expect(write.status).toBe(401);
    }
    for (const token of [user.refreshToken, sessions[0]!.refreshToken, refreshed.refreshToken]) {
      expect(errorCodes(await refresh(token))).toEqual(['UNAUTHENTICATED']);
    }
    expect((await t.gql('query($id: ID!) { user(id: $id) { postCount } }', { id: user.id })).data!.user.postCount).toBe(
      0,
    );

    // Signing in again starts afresh.
    const again = (await signIn(user.handle)).data!.signIn;
    expect((await viewerId(again.token)).id).toBe(user.id);
    expect((await refresh(again.refreshToken)).data!.refreshSession.user.id).toBe(user.id);
  });
});

describe('changePassword', () => {
  it('refuses a wrong current password and a short new one, and changes nothing', async () => {
    const user = await t.signUp(uniqueHandle('chg'));
    const wrong = await t.gql(
      CHANGE_PASSWORD,
      { current: 'not my password!', next: 'a brand new passphrase' },
      user.token,
    );
    expect({ codes: errorCodes(wrong), field: wrong.errors![0]!.extensions!.field }).toEqual({
      codes: ['BAD_USER_INPUT'],
      field: 'currentPassword',
    });
    const short = await t.gql(CHANGE_PASSWORD, { current: TEST_PASSWORD, next: 'too short' }, user.token);
    expect({ codes: errorCodes(short), field: short.errors![0]!.extensions!.field }).toEqual({
      codes: ['BAD_USER_INPUT'],
      field: 'newPassword',
    });
    expect(
      errorCodes(await t.gql(CHANGE_PASSWORD, { current: TEST_PASSWORD, next: 'a brand new passphrase' })),
    ).toEqual(['UNAUTHENTICATED']);
    expect((await viewerId(user.token)).id).toBe(user.id);
    expect((await signIn(user.handle)).data!.signIn.user.id).toBe(user.id);
  });

  it('ends every other session and access token; this session goes on through its refresh token', async () => {
    const user = await t.signUp(uniqueHandle('chg'));
    const here = (await signIn(user.handle)).data!.signIn;
    const elsewhere = (await signIn(user.handle)).data!.signIn;
    const next = 'a brand new passphrase';
    expect((await t.gql(CHANGE_PASSWORD, { current: TEST_PASSWORD, next }, here.token)).data).toEqual({
      changePassword: true,
    });

    for (const token of [user.token, elsewhere.token, here.token]) expect((await viewerId(token)).status).toBe(401);
    for (const token of [user.refreshToken, elsewhere.refreshToken])
      expect(errorCodes(await refresh(token))).toEqual(['UNAUTHENTICATED']);
    const continued = (await refresh(here.refreshToken)).data!.refreshSession;
    expect((await viewerId(continued.token)).id).toBe(user.id);

    expect(errorCodes(await signIn(user.handle))).toEqual(['UNAUTHENTICATED']);
    expect((await signIn(user.handle, next)).data!.signIn.user.id).toBe(user.id);
    expect(JSON.stringify(logs)).not.toContain(next);
  });
});

describe('stored items: password hashes and refresh tokens', () => {
  it('passwords are stored only as salted scrypt hashes, and never returned or logged', async () => {
    const password = `secret ${uniqueHandle('pw')} phrase`;
    const a = await t.signUp(uniqueHandle('hash'), { password });
    const b = await t.signUp(uniqueHandle('hash'), { password });
    expect((await signIn(a.handle, password)).data!.signIn.user.id).toBe(a.id);
    expect(errorCodes(await signIn(a.handle, `${password}!`))).toEqual(['UNAUTHENTICATED']);

    const items = await scanTable(t);
    const dump = JSON.stringify(items);
    expect(dump).not.toContain(password);
    const hashes = items
      .filter((item) => item.userId === a.id || item.userId === b.id)
      .map((item) => item.passwordHash)
      .filter(Boolean) as string[];
    expect(hashes).toHaveLength(2);
    for (const hash of hashes) expect(hash).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(hashes[0]).not.toBe(hashes[1]);
    // The profile item (what the user loader reads) holds no hash.
    expect(items.find((item) => item.pk === `USER#${a.id}` && item.sk === 'PROFILE')).not.toHaveProperty(
      'passwordHash',
    );
    expect(JSON.stringify(logs)).not.toContain(password);
  });

  it('passwords made with a lower cost than configured are hashed again at the next sign-in', async () => {
    const user = await t.signUp(uniqueHandle('rehash'));
    const stronger = await startTestApp({
      TABLE_PREFIX: t.tablePrefix,
      PASSWORD_SCRYPT_LOG2_N: '11',
      WORKER_ENABLED: 'false',
    });
    try {
      const hashOf = async () =>
        (await scanTable(t)).find((item) => item.pk === `USER#${user.id}` && item.sk === 'LOGIN')!
          .passwordHash as string;
      expect(await hashOf()).toMatch(/^\$scrypt\$ln=10,/);
      const signedIn = await stronger.gql(SIGN_IN, { input: { handle: user.handle, password: TEST_PASSWORD } });
      expect(signedIn.errors).toBeUndefined();
      expect(await hashOf()).toMatch(/^\$scrypt\$ln=11,/);
      expect((await signIn(user.handle)).data!.signIn.user.id).toBe(user.id);
    } finally {
      await stronger.app.stop();
    }
  });

  it('refresh tokens are kept only as hashes that DynamoDB expires after REFRESH_TTL_SECONDS, and an expired one is refused', async () => {
    const user = await t.signUp(uniqueHandle('ttl'));
    const session = (await signIn(user.handle)).data!.signIn;
    const items = await scanTable(t);
    expect(JSON.stringify(items)).not.toContain(session.refreshToken.slice(3));
    const stored = items.filter((item) => String(item.pk).startsWith('REFRESH#') && item.userId === user.id);
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const now = Date.now() / 1000;
    for (const item of stored) expect(Number(item.expiresAt)).toBeGreaterThan(now + 30 * 24 * 3600 - 120);

    // DynamoDB deletes expired items only some time after they expire: the service does not wait for that.
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      for (const item of stored) {
        await client.send(
          new UpdateCommand({
            TableName: tableName(t.tablePrefix),
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET expiresAt = :past',
            ExpressionAttributeValues: { ':past': Math.floor(now) - 1 },
          }),
        );
      }
    } finally {
      client.destroy();
    }
    expect(errorCodes(await refresh(session.refreshToken))).toEqual(['UNAUTHENTICATED']);
  });
});
