import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_FILE } from '../../src/auth/signing-secret.js';
import { newId } from '../../src/domain/ids.js';
import { readExampleOperations } from '../../src/http/graphiql-operations.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { scanTable } from '../helpers/table.js';

let t: TestApp;
const dataDirs: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A token signed with the service's own secret, so that only its claims can be wrong. */
function signedToken(
  secret: string,
  subject: string,
  options: { expires: boolean } = { expires: true },
): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setIssuedAt();
  return (options.expires ? jwt.setExpirationTime('1h') : jwt).sign(new TextEncoder().encode(secret));
}

/** Every example query and mutation, aimed at a real author and post, and the mutations the examples leave out. */
function everyOperation(
  postId: string,
  authorId: string,
): { name: string; query: string; variables: Record<string, unknown> }[] {
  // Subscriptions run over WebSocket: see subscriptions.test.ts.
  const operations = readExampleOperations()
    .filter((o) => !/^subscription\b/m.test(o.document))
    .map((o) => ({
      name: o.name,
      query: o.document,
      variables: JSON.parse(
        o.variables
          .replaceAll('pst_01JD0000000000000000000000', postId)
          .replaceAll(/usr_01JD000000000000000000000\d/g, authorId),
      ),
    }));
  operations.push(
    { name: 'viewer', query: '{ viewer { id } }', variables: {} },
    {
      name: 'unlike',
      query: 'mutation($id: ID!) { unlikePost(postId: $id) { post { id } } }',
      variables: { id: postId },
    },
    {
      name: 'delete',
      query: 'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }',
      variables: { id: postId },
    },
  );
  return operations;
}

/** A post of a real author to aim the operations at, and a validly signed token of an account that does not exist. */
async function ghostAndTarget() {
  const author = await t.signUp();
  const created = await t.gql(
    'mutation { createPost(input: { text: "target", tags: ["engines"] }) { post { id } } }',
    {},
    author.token,
  );
  const ghost = newId('usr');
  return {
    author,
    postId: created.data!.createPost.post.id as string,
    ghost,
    token: await signedToken(t.app.config.jwtSecret, ghost),
  };
}

describe('a validly signed token whose account does not exist', () => {
  it('is UNAUTHENTICATED (HTTP 401) for every query and mutation, and changes no count', async () => {
    const { author, postId, token } = await ghostAndTarget();
    for (const operation of everyOperation(postId, author.id)) {
      const result = await t.gql(operation.query, operation.variables, token);
      expect({ operation: operation.name, status: result.status, codes: errorCodes(result) }).toEqual({
        operation: operation.name,
        status: 401,
        codes: ['UNAUTHENTICATED'],
      });
      expect(result.data).toBeUndefined();
    }

    const after = await t.gql(
      'query($id: ID!, $user: ID!) { post(id: $id) { likeCount viewCount commentCount reactionCounts { kind } } user(id: $user) { postCount followerCount followers { totalCount } } }',
      { id: postId, user: author.id },
    );
    expect(after.data).toEqual({
      post: { likeCount: 0, viewCount: 0, commentCount: 0, reactionCounts: [] },
      user: { postCount: 1, followerCount: 0, followers: { totalCount: 0 } },
    });
    expect(await t.gql('{ user(handle: "ada") { id } }')).toMatchObject({ data: { user: null } });
  });

  it('is refused when its subject is not even a user id', async () => {
    const result = await t.gql('{ viewer { id } }', {}, await signedToken(t.app.config.jwtSecret, 'usr_not_an_id'));
    expect(result.status).toBe(401);
    expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
  });
});

describe('stored items: a validly signed token whose account does not exist', () => {
  it('writes no item that names its subject, and leaves every counter agreeing with its records', async () => {
    const { author, postId, ghost, token } = await ghostAndTarget();
    for (const operation of everyOperation(postId, author.id)) {
      expect((await t.gql(operation.query, operation.variables, token)).status, operation.name).toBe(401);
    }
    expect((await scanTable(t)).filter((item) => JSON.stringify(item).includes(ghost))).toEqual([]);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      expect(await auditCounters(client, tableName(t.tablePrefix), { includeGraph: true })).toEqual({
        drift: [],
        mismatches: [],
      });
    } finally {
      client.destroy();
    }
  });
});

describe('the account check', () => {
  it('answers a signed-in request whose operationName the document lacks with a client error, not an internal one', async () => {
    const user = await t.signUp();
    const body = await t.gql(
      'mutation CreatePost { createPost(input: { text: "x" }) { post { id } } }',
      undefined,
      user.token,
      'SignUp',
    );
    expect(errorCodes(body)).toEqual(['OPERATION_RESOLUTION_FAILURE']);
    // Nothing runs, so nothing is read: not even the account check, which no estimate paid for.
    expect(body.extensions?.cost?.requests ?? 0).toBe(0);
  });

  it('finds an account created a moment ago that an eventually consistent read does not see yet', async () => {
    const fresh = await t.signUp();
    const users = t.app.stores.users;
    const getMany = users.getMany;
    // As real DynamoDB may answer right after a sign-up: the eventually consistent read misses it.
    users.getMany = (ids, options) =>
      options?.consistent ? getMany.call(users, ids, options) : Promise.resolve(ids.map(() => null));
    try {
      const result = await t.gql('{ viewer { id } }', {}, fresh.token);
      expect(result.errors).toBeUndefined();
      expect(result.data!.viewer).toEqual({ id: fresh.id });
    } finally {
      users.getMany = getMany;
    }
  });

  it('costs no extra request when the operation reads the viewer anyway', async () => {
    const user = await t.signUp();
    const result = await t.gql('{ viewer { handle } }', {}, user.token);
    expect(result.data!.viewer).toEqual({ handle: user.handle });
    expect(result.extensions!.cost.dynamodb.requests).toBe(1);
  });

  it("runs beside a query's first reads, not before them", async () => {
    const user = await t.signUp();
    const query = '{ publicTimeline(first: 3) { edges { node { text } } } }';
    // Without the cache, which would answer the second read's posts without a wave.
    const uncached = await startTestApp({ CACHE: 'off', TABLE_PREFIX: t.tablePrefix, WORKER_ENABLED: 'false' });
    const [signedIn, anonymous] = await (async () => {
      try {
        return [await uncached.gql(query, {}, user.token), await uncached.gql(query)];
      } finally {
        await uncached.stop();
      }
    })();
    expect(signedIn.errors).toBeUndefined();
    // The check and the timeline's skeleton, then the posts: as many waves as without an account to check.
    expect(anonymous.extensions!.cost.waves).toBe(2);
    expect(signedIn.extensions!.cost.waves).toBe(2);
    expect(signedIn.extensions!.cost.dynamodb.requests).toBe(anonymous.extensions!.cost.dynamodb.requests + 1);
  });

  it("lets a mutation's payload show the viewer as the mutation left it", async () => {
    const user = await t.signUp();
    const created = await t.gql(
      'mutation { createPost(input: { text: "one" }) { post { author { postCount } } } }',
      {},
      user.token,
    );
    expect(created.data!.createPost.post.author).toEqual({ postCount: 1 });
  });
});

describe('tokens', () => {
  it('refuses a token without an expiry time', async () => {
    const user = await t.signUp();
    const result = await t.gql(
      '{ viewer { id } }',
      {},
      await signedToken(t.app.config.jwtSecret, user.id, { expires: false }),
    );
    expect(result.status).toBe(401);
    expect(errorCodes(result)).toEqual(['UNAUTHENTICATED']);
    expect(result.errors![0]!.message).toMatch(/expiry/);
  });
});

describe('without JWT_SECRET', () => {
  it('signs with a secret generated on first start into DATA_DIR (mode 0600), which tokens outlive a restart with', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'auth-data-'));
    const otherDataDir = mkdtempSync(join(tmpdir(), 'auth-data-'));
    dataDirs.push(dataDir, otherDataDir);
    const first = await startTestApp({ JWT_SECRET: '', DATA_DIR: dataDir });
    let user: { id: string; token: string };
    try {
      expect(first.app.config.jwtSecret).toBe('');
      expect(statSync(join(dataDir, SECRET_FILE)).mode & 0o777).toBe(0o600);
      user = await first.signUp();
    } finally {
      await first.stop();
    }

    // The same DATA_DIR and table, as a restarted service has.
    const restarted = await startTestApp({ JWT_SECRET: '', DATA_DIR: dataDir, TABLE_PREFIX: first.tablePrefix });
    try {
      const me = await restarted.gql('{ viewer { id } }', {}, user.token);
      expect(me.data).toEqual({ viewer: { id: user.id } });
    } finally {
      await restarted.stop();
    }

    // Another installation generates its own secret, so it cannot take this one's tokens (the table holds the account).
    const other = await startTestApp({ JWT_SECRET: '', DATA_DIR: otherDataDir, TABLE_PREFIX: first.tablePrefix });
    try {
      const refused = await other.gql('{ viewer { id } }', {}, user.token);
      expect(refused.status).toBe(401);
      expect(errorCodes(refused)).toEqual(['UNAUTHENTICATED']);
    } finally {
      await other.stop();
    }
  });

  it('does not start in production', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'auth-data-'));
    dataDirs.push(dataDir);
    await expect(startTestApp({ NODE_ENV: 'production', JWT_SECRET: '', DATA_DIR: dataDir })).rejects.toThrow(
      'JWT_SECRET',
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
