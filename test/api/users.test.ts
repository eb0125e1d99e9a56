import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Passwords } from '../../src/auth/passwords.js';
import { TEST_PASSWORD, errorCodes, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';

const USER_FIELDS = 'id handle displayName bio interests createdAt postCount';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

describe('signUp', () => {
  it('creates a user and returns a token that signs requests in', async () => {
    const handle = uniqueHandle('Alice').toUpperCase();
    const result = await t.gql(
      `mutation($input: SignUpInput!) { signUp(input: $input) { token user { ${USER_FIELDS} } } }`,
      {
        input: { handle, displayName: 'Alice', bio: 'hi', interests: ['Rust', 'go', 'rust'], password: TEST_PASSWORD },
      },
    );
    expect(result.errors).toBeUndefined();
    const { user, token } = result.data!.signUp;
    expect(user).toMatchObject({
      handle: handle.toLowerCase(),
      displayName: 'Alice',
      bio: 'hi',
      interests: ['rust', 'go'],
      postCount: 0,
    });
    expect(user.id).toMatch(/^usr_[0-9A-Z]{26}$/);
    expect(Date.parse(user.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const me = await t.gql('{ viewer { id handle } }', {}, token);
    expect(me.data!.viewer).toEqual({ id: user.id, handle: user.handle });
  });

  it('refuses a taken handle, compared case-insensitively, and changes nothing', async () => {
    const handle = uniqueHandle('bob');
    const first = await t.signUp(handle);
    const again = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
      input: { handle: handle.toUpperCase(), displayName: 'Other', password: TEST_PASSWORD },
    });
    expect(errorCodes(again)).toEqual(['HANDLE_TAKEN']);
    const found = await t.gql(`{ user(handle: "${handle}") { id displayName } }`);
    expect(found.data!.user).toEqual({ id: first.id, displayName: null });
  });

  it('checks the handle before it hashes the password: a taken handle costs no hash', async () => {
    const handle = uniqueHandle('taken');
    await t.signUp(handle);
    const hashes = vi.spyOn(Passwords.prototype, 'hash');
    try {
      const again = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
        input: { handle, password: TEST_PASSWORD },
      });
      expect(errorCodes(again)).toEqual(['HANDLE_TAKEN']);
      expect(hashes).not.toHaveBeenCalled();
      await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
        input: { handle: uniqueHandle('free'), password: TEST_PASSWORD },
      });
      expect(hashes).toHaveBeenCalledTimes(1);
    } finally {
      hashes.mockRestore();
    }
  });

  it('gives exactly one user when 20 sign-ups race for one handle', async () => {
    const handle = uniqueHandle('race');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { user { id } } }', {
          input: { handle, displayName: `n${i}`, password: TEST_PASSWORD },
        }),
      ),
    );
    const winners = results.filter((r) => r.data?.signUp);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => !r.data?.signUp)) expect(errorCodes(loser)).toEqual(['HANDLE_TAKEN']);
    const found = await t.gql(`{ user(handle: "${handle}") { id } }`);
    expect(found.data!.user.id).toBe(winners[0]!.data!.signUp.user.id);
  });

  it('still creates the account (and returns its token) when the graph backend fails to take the new node', async () => {
    const graph = t.app.stores.graph;
    const upsertUsers = graph.upsertUsers;
    graph.upsertUsers = () => Promise.reject(new Error('graph backend unavailable'));
    try {
      const handle = uniqueHandle('nograph');
      const result = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token user { id } } }', {
        input: { handle, password: TEST_PASSWORD },
      });
      expect(result.errors).toBeUndefined();
      const me = await t.gql('{ viewer { handle } }', {}, result.data!.signUp.token);
      expect(me.data!.viewer).toEqual({ handle });
    } finally {
      graph.upsertUsers = upsertUsers;
    }
  });

  it.each([
    ['ab', 'input.handle'],
    ['a'.repeat(31), 'input.handle'],
    ['has-dash', 'input.handle'],
    ['has space', 'input.handle'],
  ])('refuses the handle %j with BAD_USER_INPUT naming the field', async (handle, field) => {
    const result = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
      input: { handle, password: TEST_PASSWORD },
    });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe(field);
  });

  it('refuses over-long profile fields and bad interests, and creates nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ displayName: 'x'.repeat(65) }, 'input.displayName'],
      [{ bio: 'x'.repeat(281) }, 'input.bio'],
      [{ interests: Array.from({ length: 21 }, (_, i) => `i${i}`) }, 'input.interests'],
      [{ interests: ['not ok'] }, 'input.interests'],
      [{ interests: ['x'.repeat(41)] }, 'input.interests'],
    ];
    for (const [extra, field] of cases) {
      const handle = uniqueHandle('bad');
      const result = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
        input: { handle, password: TEST_PASSWORD, ...extra },
      });
      expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
      expect(result.errors![0]!.extensions!.field).toBe(field);
      const found = await t.gql(`{ user(handle: "${handle}") { id } }`);
      expect(found.data!.user).toBeNull();
    }
  });
});

describe('tokens', () => {
  it('treats a request without a token as anonymous', async () => {
    const result = await t.gql('{ viewer { id } }');
    expect(result.data!.viewer).toBeNull();
  });

  it.each([
    ['garbage', 'Bearer not-a-jwt'],
    ['wrong scheme', 'Basic abc'],
  ])('rejects a %s token with UNAUTHENTICATED instead of going anonymous', async (_name, header) => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: header },
      body: JSON.stringify({ query: '{ viewer { id } }' }),
    });
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect(response.status).toBe(401);
    expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
  });

  it('rejects an expired token and one signed with another secret', async () => {
    const user = await t.signUp();
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(t.app.config.jwtSecret));
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-another'));
    for (const token of [expired, forged]) {
      const result = await t.gql('{ viewer { id } }', {}, token);
      expect(result.status).toBe(401);
      expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
    }
  });
});

describe('user lookups', () => {
  it('finds users by id, by handle (any case) and as nodes', async () => {
    const a = await t.signUp(uniqueHandle('look'));
    const byId = await t.gql(
      `query($id: ID!) { user(id: $id) { handle } node(id: $id) { id ... on User { handle } } }`,
      { id: a.id },
    );
    expect(byId.data).toEqual({ user: { handle: a.handle }, node: { id: a.id, handle: a.handle } });
    const byHandle = await t.gql(`{ user(handle: "${a.handle.toUpperCase()}") { id } }`);
    expect(byHandle.data!.user.id).toBe(a.id);
  });

  it('answers null for unknown users and nodes', async () => {
    const result = await t.gql(
      '{ user(id: "usr_00000000000000000000000000") { id } node(id: "nope") { id } missing: user(handle: "nobody_here") { id } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ user: null, node: null, missing: null });
  });

  it('wants exactly one of id and handle', async () => {
    for (const query of ['{ user { id } }', '{ user(id: "x", handle: "y") { id } }']) {
      expect(errorCodes(await t.gql(query))).toEqual(['BAD_USER_INPUT']);
    }
  });

  it('returns users(ids:) in the order asked with null for unknown ids', async () => {
    const a = await t.signUp();
    const b = await t.signUp();
    const result = await t.gql('query($ids: [ID!]!) { users(ids: $ids) { id } }', {
      ids: [b.id, 'usr_00000000000000000000000000', a.id, b.id],
    });
    expect(result.data!.users).toEqual([{ id: b.id }, null, { id: a.id }, { id: b.id }]);
  });

  it('refuses more than 100 ids', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `usr_${String(i).padStart(26, '0')}`);
    const result = await t.gql('query($ids: [ID!]!) { users(ids: $ids) { id } }', { ids });
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('updateProfile', () => {
  it('changes only the fields given, and null clears', async () => {
    const user = await t.signUp(uniqueHandle('prof'), { displayName: 'Before', bio: 'old bio', interests: ['a'] });
    const changed = await t.gql(
      'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { handle displayName bio interests } }',
      { input: { displayName: 'After', interests: ['Chess', 'go'] } },
      user.token,
    );
    expect(changed.data!.updateProfile).toEqual({
      handle: user.handle,
      displayName: 'After',
      bio: 'old bio',
      interests: ['chess', 'go'],
    });
    const cleared = await t.gql('mutation { updateProfile(input: { bio: null }) { displayName bio } }', {}, user.token);
    expect(cleared.data!.updateProfile).toEqual({ displayName: 'After', bio: null });
    const reread = await t.gql(`query($id: ID!) { user(id: $id) { displayName bio interests } }`, { id: user.id });
    expect(reread.data!.user).toEqual({ displayName: 'After', bio: null, interests: ['chess', 'go'] });
  });

  it('needs a signed-in user', async () => {
    const result = await t.gql('mutation { updateProfile(input: { bio: "x" }) { id } }');
    expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
  });

  it('refuses bad input and changes nothing', async () => {
    const user = await t.signUp(uniqueHandle('prof'), { bio: 'kept' });
    const result = await t.gql(
      'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { id } }',
      { input: { bio: 'changed', displayName: 'x'.repeat(65) } },
      user.token,
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.extensions!.field).toBe('input.displayName');
    const reread = await t.gql(`query($id: ID!) { user(id: $id) { bio displayName } }`, { id: user.id });
    expect(reread.data!.user).toEqual({ bio: 'kept', displayName: null });
  });
});

describe('HTTP', () => {
  it('answers /healthz with 200 while the stores answer', async () => {
    const response = await fetch(`${t.url}/healthz`);
    expect(response.status).toBe(200);
  });

  it('serves a landing page at /', async () => {
    const response = await fetch(`${t.url}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('/graphiql');
  });
});

describe('extensions.cost', () => {
  it('reports the backend requests and capacity of each operation', async () => {
    const user = await t.signUp();
    const result = await t.gql('query($id: ID!) { user(id: $id) { handle } }', { id: user.id });
    expect(result.extensions!.cost.dynamodb.requests).toBe(1);
    expect(result.extensions!.cost.dynamodb.readCapacityUnits).toBeGreaterThan(0);
    expect(result.extensions!.cost.graph.requests).toBe(0);
    const signUp = await t.gql('mutation($input: SignUpInput!) { signUp(input: $input) { token } }', {
      input: { handle: `${user.handle}x`, password: TEST_PASSWORD },
    });
    expect(signUp.extensions!.cost.dynamodb.writeCapacityUnits).toBeGreaterThan(0);
    expect(signUp.extensions!.cost.graph.requests).toBe(1);
  });
});
