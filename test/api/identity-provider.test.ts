import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_PASSWORD, errorCodes, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';
import { connectLive } from '../helpers/live.js';
import { createPost, follow } from '../helpers/posts.js';
import { runTaskNow } from '../helpers/queue.js';

/** A signing key of the test's identity provider, published in its JWKS under `kid`. */
interface ProviderKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  jwk: JWK;
}

async function providerKey(kid: string, alg: ProviderKey['alg']): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** An identity provider on loopback: its JWKS (what the service reads) and how many times it was read. */
let jwksServer: Server;
let published: ProviderKey[] = [];
let jwksReads = 0;
let issuer: string;
const AUDIENCE = 'social-graph-api';

let t: TestApp;
let rsa: ProviderKey;
let ec: ProviderKey;

beforeAll(async () => {
  [rsa, ec] = await Promise.all([providerKey('rsa-1', 'RS256'), providerKey('ec-1', 'ES256')]);
  published = [rsa, ec];
  jwksServer = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    jwksReads += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: published.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/`;
  t = await startTestApp(providerSettings());
});

function providerSettings(): Record<string, string> {
  return {
    OIDC_ISSUER: issuer,
    OIDC_AUDIENCE: AUDIENCE,
    OIDC_JWKS_URI: `${issuer}.well-known/jwks.json`,
    OIDC_JWKS_COOLDOWN_SECONDS: '0',
  };
}
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => jwksServer.close(resolve));
});

function providerToken(
  key: ProviderKey,
  subject: string,
  claims: { iss?: string; aud?: string; exp?: number } = {},
): Promise<string> {
  return new SignJWT({ scope: 'openid profile' })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(claims.iss ?? issuer)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? '5m')
    .sign(key.privateKey);
}

const SIGN_UP = 'mutation($input: SignUpInput!) { signUp(input: $input) { token refreshToken user { id handle } } }';

async function viewer(token: string) {
  const result = await t.gql<{ viewer: { id: string } | null }>('{ viewer { id } }', {}, token);
  return { status: result.status, id: result.data?.viewer?.id ?? null, codes: errorCodes(result) };
}

describe('a provider token', () => {
  it('whose subject has no account acts anonymous, may sign up without a password, and then acts as that account', async () => {
    const subject = `auth0|${uniqueHandle('sub')}`;
    const token = await providerToken(rsa, subject);
    expect(await viewer(token)).toEqual({ status: 200, id: null, codes: [] });
    expect(
      errorCodes(await t.gql('mutation { createPost(input: { text: "no account yet" }) { post { id } } }', {}, token)),
    ).toEqual(['UNAUTHENTICATED']);
    expect(
      errorCodes(await t.gql(SIGN_UP, { input: { handle: uniqueHandle('idp'), password: TEST_PASSWORD } }, token)),
    ).toEqual(['BAD_USER_INPUT']);

    const handle = uniqueHandle('idp');
    const created = await t.gql<{ signUp: { token: string; user: { id: string; handle: string } } }>(
      SIGN_UP,
      { input: { handle, displayName: 'From the provider' } },
      token,
    );
    expect(created.errors).toBeUndefined();
    const userId = created.data!.signUp.user.id;
    expect((await viewer(token)).id).toBe(userId);
    // Its reads before any field are paid for: the account's lookup by identity, and, linked, the account check.
    const estimated = async (bearer: string) => {
      const { estimated: points, requests } = (await t.gql('{ __typename }', {}, bearer)).extensions!.cost as {
        estimated: number;
        requests: number;
      };
      expect(requests).toBeLessThanOrEqual(points / 20);
      return points;
    };
    expect(await estimated(token)).toBe(40);
    expect(await estimated(await providerToken(rsa, `auth0|${uniqueHandle('none')}`))).toBe(20);
    expect(await estimated(created.data!.signUp.token)).toBe(20);
    // A later token of the same subject, with the other key, acts as it too; and so does the session signUp started.
    expect((await viewer(await providerToken(ec, subject))).id).toBe(userId);
    expect((await viewer(created.data!.signUp.token)).id).toBe(userId);
    const post = await t.gql(
      'mutation { createPost(input: { text: "signed in through the provider" }) { post { id author { id } } } }',
      {},
      token,
    );
    expect(post.data!.createPost.post.author.id).toBe(userId);

    // One account per identity; and the account has no password to sign in or change with.
    expect(errorCodes(await t.gql(SIGN_UP, { input: { handle: uniqueHandle('idp') } }, token))).toEqual(['FORBIDDEN']);
    expect(
      errorCodes(
        await t.gql('mutation($input: SignInInput!) { signIn(input: $input) { token } }', {
          input: { handle, password: 'any password at all' },
        }),
      ),
    ).toEqual(['UNAUTHENTICATED']);
    expect(
      errorCodes(
        await t.gql(
          'mutation { changePassword(currentPassword: "whatever it is", newPassword: "a brand new passphrase") }',
          {},
          token,
        ),
      ),
    ).toEqual(['FORBIDDEN']);
  });

  it('of two concurrent sign-ups of one identity makes exactly one account', async () => {
    const token = await providerToken(ec, `google-oauth2|${uniqueHandle('race')}`);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => t.gql(SIGN_UP, { input: { handle: uniqueHandle('race') } }, token)),
    );
    expect(results.filter((r) => r.data?.signUp)).toHaveLength(1);
    for (const loser of results.filter((r) => !r.data?.signUp)) expect(errorCodes(loser)).toEqual(['FORBIDDEN']);
  });

  it.each([
    ['from another issuer', { iss: 'https://attacker.example.com/' }],
    ['for another audience', { aud: 'another-api' }],
    ['that has expired', { exp: Math.floor(Date.now() / 1000) - 60 }],
  ])('%s is UNAUTHENTICATED (HTTP 401), even for a linked subject', async (_name, claims) => {
    const subject = `auth0|${uniqueHandle('bad')}`;
    const linked = await t.gql(SIGN_UP, { input: { handle: uniqueHandle('bad') } }, await providerToken(rsa, subject));
    expect(linked.errors).toBeUndefined();
    expect(await viewer(await providerToken(rsa, subject, claims))).toEqual({
      status: 401,
      id: null,
      codes: ['UNAUTHENTICATED'],
    });
  });

  it('signed by a key the provider does not publish, or with a key claiming another kid, is UNAUTHENTICATED', async () => {
    const subject = `auth0|${uniqueHandle('forged')}`;
    await t.gql(SIGN_UP, { input: { handle: uniqueHandle('forged') } }, await providerToken(rsa, subject));
    const stranger = await providerKey('rsa-1', 'RS256');
    expect((await viewer(await providerToken(stranger, subject))).codes).toEqual(['UNAUTHENTICATED']);
    const unknownKid = await providerKey('not-published', 'ES256');
    expect((await viewer(await providerToken(unknownKid, subject))).codes).toEqual(['UNAUTHENTICATED']);
  });

  it('signed with a rotated-in key is accepted once the JWKS has it, and a key rotated out stops working', async () => {
    const subject = `auth0|${uniqueHandle('rot')}`;
    const created = await t.gql<{ signUp: { user: { id: string } } }>(
      SIGN_UP,
      { input: { handle: uniqueHandle('rot') } },
      await providerToken(rsa, subject),
    );
    const userId = created.data!.signUp.user.id;
    const oldToken = await providerToken(rsa, subject);
    expect((await viewer(oldToken)).id).toBe(userId);

    const next = await providerKey('rsa-2', 'RS256');
    published = [next, ec];
    const readsBefore = jwksReads;
    // The service holds the old key set: a token naming the new key makes it read the JWKS again.
    expect((await viewer(await providerToken(next, subject))).id).toBe(userId);
    expect(jwksReads).toBe(readsBefore + 1);
    // Known keys are served from the cache.
    expect((await viewer(await providerToken(ec, subject))).id).toBe(userId);
    expect(jwksReads).toBe(readsBefore + 1);
    expect(await viewer(oldToken)).toEqual({ status: 401, id: null, codes: ['UNAUTHENTICATED'] });
  });

  it('of a linked account deletes it without a password; the identity is then free to sign up afresh', async () => {
    const subject = `auth0|${uniqueHandle('del')}`;
    // The EC key: the rotation test above has taken the first RSA key out of the key set.
    const token = await providerToken(ec, subject);
    const created = await t.gql<{ signUp: { token: string; user: { id: string } } }>(
      SIGN_UP,
      { input: { handle: uniqueHandle('del') } },
      token,
    );
    const userId = created.data!.signUp.user.id;
    expect(
      errorCodes(
        await t.gql('mutation { deleteAccount(password: "it has none at all") { deletedUserId } }', {}, token),
      ),
    ).toEqual(['BAD_USER_INPUT']);
    expect((await t.gql('mutation { deleteAccount { deletedUserId } }', {}, token)).data).toEqual({
      deleteAccount: { deletedUserId: userId },
    });
    expect((await viewer(created.data!.signUp.token)).status).toBe(401);
    expect(await viewer(token)).toEqual({ status: 200, id: null, codes: [] });
    await expect
      .poll(async () => (await t.gql('query($id: ID!) { user(id: $id) { id } }', { id: userId })).data!.user, {
        timeout: 30_000,
      })
      .toBeNull();
    const again = await t.gql<{ signUp: { user: { id: string } } }>(
      SIGN_UP,
      { input: { handle: uniqueHandle('del') } },
      token,
    );
    expect((await viewer(token)).id).toBe(again.data!.signUp.user.id);
  });

  it("of a deleted account ends its subscriptions at their next event, while the account's deletion has yet to run", async () => {
    // No worker: the closed account's profile stays, and the test delivers each post itself.
    const app = await startTestApp({ ...providerSettings(), WORKER_ENABLED: 'false' });
    const token = await providerToken(ec, `auth0|${uniqueHandle('live')}`);
    const live = connectLive(app.url, token);
    try {
      expect(errorCodes(await app.gql(SIGN_UP, { input: { handle: uniqueHandle('live') } }, token))).toEqual([]);
      const star = await app.signUp(uniqueHandle('star'));
      await follow(app, token, star.id);
      const delivered = async (text: string) => {
        const postId = await createPost(app, star.token, text);
        expect(await runTaskNow(app, { kind: 'fanOut', postId, authorId: star.id })).toBe('done');
        return postId;
      };
      const posts = live.subscribe('subscription { timelinePostAdded { node { id } } }');
      // graphql-ws does not say when a subscription listens: posts until one arrives.
      await vi.waitFor(
        async () => {
          if (posts.data.length === 0) await delivered('while open');
          expect(posts.data.length).toBeGreaterThan(0);
        },
        { timeout: 20_000, interval: 500 },
      );

      expect((await app.gql('mutation { deleteAccount { deletedUserId } }', {}, token)).errors).toBeUndefined();
      const after = await delivered('after the account was closed');
      await vi.waitFor(() => expect(posts.ended).toBe(true), { timeout: 10_000 });
      expect(posts.errors.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
      expect(posts.data.map((event) => event.timelinePostAdded.node.id)).not.toContain(after);
    } finally {
      await live.dispose();
      await app.stop();
    }
  });

  it('with no account has its lookup over WebSocket paid by the address before it is sent', async () => {
    const app = await startTestApp({
      ...providerSettings(),
      WORKER_ENABLED: 'false',
      RATE_LIMIT_POINTS: '40',
      RATE_LIMIT_POINTS_PER_SECOND: '1',
      MAX_QUERY_COST: '40',
    });
    const token = await providerToken(ec, `auth0|${uniqueHandle('nobody')}`);
    const reasons: string[] = [];
    try {
      // The bucket holds two lookups; the third attempt is refused before it reads anything.
      for (let i = 0; i < 3; i++) {
        const live = connectLive(app.url, token);
        await vi.waitFor(() => expect(live.closes).toHaveLength(1), { timeout: 10_000 });
        reasons.push(live.closes[0]!.reason);
        await live.dispose();
      }
      expect(reasons.slice(0, 2)).toEqual([
        'Forbidden: The token names no account',
        'Forbidden: The token names no account',
      ]);
      expect(reasons[2]).toMatch(/^Forbidden: Too many connections from this address: try again in \d+ s$/);
    } finally {
      await app.stop();
    }
  });

  it('is checked only with the algorithms of a provider: a token of the service signed with a public key is refused', async () => {
    const subject = `auth0|${uniqueHandle('alg')}`;
    await t.gql(SIGN_UP, { input: { handle: uniqueHandle('alg') } }, await providerToken(rsa, subject));
    const confused = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setSubject(subject)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JSON.stringify(rsa.jwk)));
    expect((await viewer(confused)).codes).toEqual(['UNAUTHENTICATED']);
  });
});
