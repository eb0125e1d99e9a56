import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { PostCountsMigration } from '../../scripts/post-counts-migration.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runScript } from '../helpers/scripts.js';

let t: TestApp;
let client: DynamoDBDocumentClient;
let table: string;

beforeAll(async () => {
  t = await startTestApp({ REACTION_KINDS: 'clap,wow' });
  table = tableName(t.tablePrefix);
  client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
});
afterAll(async () => {
  client.destroy();
  await t.stop();
});

const script = (name: string) => runScript(t, name);

const COUNTS = 'likeCount viewCount commentCount repostCount reactionCounts { kind count }';

async function countsOf(postId: string) {
  const read = await t.gql(`query($id: ID!) { post(id: $id) { ${COUNTS} } }`, { id: postId });
  return read.data!.post;
}

async function createPost(token: string, text: string): Promise<string> {
  const made = await t.gql(
    'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }',
    { text },
    token,
  );
  return made.data!.createPost.post.id;
}

/** Puts a post's counts back where they were before they moved onto the post item: a `COUNT#0` item of its own. */
async function asBeforeTheMove(postId: string): Promise<void> {
  const { Item: post } = await client.send(
    new GetCommand({ TableName: table, Key: keys.post(postId), ConsistentRead: true }),
  );
  const { likeCount, viewCount, commentCount, repostCount, reactions } = post!;
  await client.send(
    new PutCommand({
      TableName: table,
      Item: { ...keys.counterShard(postId, 0), likeCount, viewCount, commentCount, repostCount, reactions },
    }),
  );
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: keys.post(postId),
      UpdateExpression: 'REMOVE likeCount, viewCount, commentCount, repostCount, reactions',
    }),
  );
}

describe('stored items: npm run counters:migrate', { timeout: 180_000 }, () => {
  it('moves the counts of posts written before onto their items, exactly, also beside likes made meanwhile', async () => {
    const author = await t.signUp();
    const fans = await Promise.all(Array.from({ length: 12 }, () => t.signUp()));
    const postId = await createPost(author.token, 'counted before the move');
    await Promise.all(
      fans.slice(0, 6).map(async (fan) => {
        await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token);
        await t.gql(
          'mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }',
          { id: postId },
          fan.token,
        );
      }),
    );
    await t.gql(
      'mutation($id: ID!) { addComment(postId: $id, text: "first") { comment { id } } }',
      { id: postId },
      fans[0]!.token,
    );
    const before = await countsOf(postId);
    expect(before).toMatchObject({ likeCount: 6, commentCount: 1, reactionCounts: [{ kind: 'wow', count: 6 }] });

    await asBeforeTheMove(postId);
    const unmoved = await script('counters-verify');
    // Every count still matches its records; only the shard is where readers no longer look.
    expect(unmoved.code).toBe(1);
    expect(unmoved.output).toContain('no drift');
    expect(unmoved.output).toContain(`counter shard of a post with one shard`);
    expect(unmoved.output).toContain(`POST#${postId} COUNT#0`);

    // Six more likes race the move: none is lost or counted twice.
    const migration = new PostCountsMigration({ client, tableName: table });
    const [moved] = await Promise.all([
      migration.migrate(postId),
      ...fans
        .slice(6)
        .map((fan) => t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token)),
    ]);
    expect(moved).toBe(true);
    expect(await countsOf(postId)).toEqual({ ...before, likeCount: 12 });
    const { Item: shard } = await client.send(
      new GetCommand({ TableName: table, Key: keys.counterShard(postId, 0), ConsistentRead: true }),
    );
    expect(shard).toBeUndefined();
    expect(await script('counters-verify')).toEqual({ code: 0, output: expect.stringContaining('no drift') });

    // Moved already: the script finds nothing more to do.
    expect(await migration.migrate(postId)).toBe(false);
    expect((await script('counters-migrate')).output).toMatch(/counts moved onto \d+ post items/);
    expect(await countsOf(postId)).toEqual({ ...before, likeCount: 12 });
  });

  it("gives a raised post's item the reactions map it now starts with, and keeps its shards", async () => {
    const author = await t.signUp();
    const fan = await t.signUp();
    const postId = await createPost(author.token, 'raised before the move');
    expect(await t.app.stores.counters.raiseShards({ id: postId, counterShards: 1 }, 4)).toBe(true);
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token);
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.post(postId),
        UpdateExpression: 'REMOVE likeCount, viewCount, commentCount, repostCount, reactions',
      }),
    );
    expect((await script('counters-migrate')).output).toMatch(/counts moved onto [1-9]\d* post items/);
    const { Item: post } = await client.send(
      new GetCommand({ TableName: table, Key: keys.post(postId), ConsistentRead: true }),
    );
    expect(post!.reactions).toEqual({});
    expect((await countsOf(postId)).likeCount).toBe(1);
    await t.gql('mutation($id: ID!) { react(postId: $id, kind: "clap") { post { id } } }', { id: postId }, fan.token);
    expect((await countsOf(postId)).reactionCounts).toEqual([{ kind: 'clap', count: 1 }]);
    expect(await script('counters-verify')).toEqual({ code: 0, output: expect.stringContaining('no drift') });
  });
});
