import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { newId } from '../../src/domain/ids.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runScript } from '../helpers/scripts.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const script = (name: string, ...args: string[]) => runScript(t, name, ...args);
const verify = (...args: string[]) => script('counters-verify', ...args);

// Each verify is a process of its own (tsx compiles the script), several per test.
describe('stored items: npm run counters:verify', { timeout: 180_000 }, () => {
  it("sums every shard of a post whose shards were raised, and reports a shard past the post's counterShards", async () => {
    const [author, fan] = await Promise.all([t.signUp(), t.signUp()]);
    const created = await t.gql('mutation { createPost(input: { text: "raised" }) { post { id } } }', {}, author.token);
    const postId = created.data!.createPost.post.id;
    expect(await t.app.stores.counters.raiseShards({ id: postId, counterShards: 1 }, 4)).toBe(true);
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token);
    const table = tableName(t.tablePrefix);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
    const stray = {
      ...keys.counterShard(postId, 7),
      likeCount: 0,
      viewCount: 0,
      commentCount: 0,
      repostCount: 0,
      reactions: {},
    };
    try {
      await client.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.counterShard(postId, 3),
          UpdateExpression: 'ADD likeCount :two',
          ExpressionAttributeValues: { ':two': 2 },
        }),
      );
      await client.send(new PutCommand({ TableName: table, Item: stray }));
      const found = await verify();
      expect(found.code).toBe(1);
      expect(found.output).toContain(`post likes: POST#${postId} likeCount recorded 3, actual 1`);
      expect(found.output).toContain(
        `counter shards: counter shard past the post's counterShards 4: its counts are never read: ${stray.pk} ${stray.sk}`,
      );
      expect(found.output).toContain('1 counter shard records disagree with each other (not repaired');
    } finally {
      await client.send(new DeleteCommand({ TableName: table, Key: { pk: stray.pk, sk: stray.sk } }));
      client.destroy();
    }
    expect((await verify('--repair')).output).toContain('1 counters drifted, now repaired');
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });
  });

  it('finds no drift after real traffic, reports planted drift, and --repair fixes it', async () => {
    const [author, fan] = await Promise.all([t.signUp(), t.signUp()]);
    const created = await t.gql(
      'mutation { createPost(input: { text: "counted" }) { post { id } } }',
      {},
      author.token,
    );
    const postId = created.data!.createPost.post.id;
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token);
    await t.gql('mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }', { id: postId }, fan.token);
    await t.gql('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: postId }, fan.token);
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, fan.token);
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });

    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    await client.send(
      new UpdateCommand({
        TableName: tableName(t.tablePrefix),
        Key: keys.post(postId),
        UpdateExpression: 'ADD likeCount :three, repostCount :three SET reactions.#k = :nine',
        ExpressionAttributeNames: { '#k': 'wow' },
        ExpressionAttributeValues: { ':three': 3, ':nine': 9 },
      }),
    );
    await client.send(
      new UpdateCommand({
        TableName: tableName(t.tablePrefix),
        Key: keys.user(author.id),
        UpdateExpression: 'ADD postCount :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    client.destroy();

    const found = await verify();
    expect(found.code).toBe(1);
    expect(found.output).toContain('likeCount recorded 4, actual 1');
    expect(found.output).toContain('reactions.wow recorded 9, actual 1');
    expect(found.output).toContain('repostCount recorded 4, actual 1');
    expect(found.output).toContain('postCount recorded 2, actual 1');

    expect((await verify('--repair')).output).toContain('4 counters drifted, now repaired');
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });
    const after = await t.gql(
      'query($id: ID!) { post(id: $id) { likeCount repostCount reactionCounts { kind count } author { postCount } } }',
      { id: postId },
    );
    expect(after.data!.post).toEqual({
      likeCount: 1,
      repostCount: 1,
      reactionCounts: [{ kind: 'wow', count: 1 }],
      author: { postCount: 1 },
    });
  });

  it('is exact for reaction kinds that every plain object has as a member (__proto__, constructor)', async () => {
    const [author, fan] = await Promise.all([t.signUp(), t.signUp()]);
    const created = await t.gql(
      'mutation { createPost(input: { text: "odd kinds" }) { post { id } } }',
      {},
      author.token,
    );
    const postId = created.data!.createPost.post.id;
    // Kinds outside REACTION_KINDS, as a version before kinds were bounded let anyone add: one
    // __proto__ reaction, counted right, and two constructor reactions, counted as five.
    const table = tableName(t.tablePrefix);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
    const records = [
      keys.reaction(postId, '__proto__', fan.id),
      keys.reaction(postId, 'constructor', fan.id),
      keys.reaction(postId, 'constructor', author.id),
    ];
    for (const record of records)
      await client.send(new PutCommand({ TableName: table, Item: { ...record, at: new Date().toISOString() } }));
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.post(postId),
        UpdateExpression: 'SET reactions.#proto = :one, reactions.#ctor = :five',
        ExpressionAttributeNames: { '#proto': '__proto__', '#ctor': 'constructor' },
        ExpressionAttributeValues: { ':one': 1, ':five': 5 },
      }),
    );

    const found = await verify();
    expect(found.code).toBe(1);
    expect(found.output).toContain('reactions.constructor recorded 5, actual 2');
    expect(found.output).not.toContain('__proto__');
    expect((await verify('--repair')).output).toContain('1 counters drifted, now repaired');
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });

    // Read in DynamoDB's own format, which keeps a __proto__ key.
    const shard = await client.send(
      new GetItemCommand({
        TableName: table,
        Key: { pk: { S: keys.post(postId).pk }, sk: { S: keys.post(postId).sk } },
      }),
    );
    client.destroy();
    const reactions = shard.Item!.reactions!.M!;
    expect(Object.entries(reactions).map(([kind, count]) => [kind, count.N])).toEqual(
      expect.arrayContaining([
        ['__proto__', '1'],
        ['constructor', '2'],
      ]),
    );
    // Neither is a configured kind, so neither is shown.
    const read = await t.gql('query($id: ID!) { post(id: $id) { reactionCounts { kind count } } }', { id: postId });
    expect(read.data!.post.reactionCounts).toEqual([]);
  });

  it('reports follow records that disagree with each other or name a user without an account, and repairs none of them', async () => {
    const [followee, follower] = await Promise.all([t.signUp(), t.signUp()]);
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: followee.id }, follower.token);
    expect((await verify()).code).toBe(0);

    const table = tableName(t.tablePrefix);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
    const [entry] = (
      await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.followingList(follower.id) },
        }),
      )
    ).Items!;
    const stray = {
      pk: keys.followersList(followee.id),
      sk: keys.followListPosition(1, follower.id),
      userId: follower.id,
    };
    // The follower's following list loses its entry, the followee's followers list gains one without an edge,
    // and a user without an account follows the followee (edge, list entries and counts all written).
    await client.send(new DeleteCommand({ TableName: table, Key: { pk: entry!.pk, sk: entry!.sk } }));
    await client.send(new PutCommand({ TableName: table, Item: stray }));
    const ghost = newId('usr');
    await t.app.stores.graph.follow(ghost, followee.id, new Date().toISOString());
    try {
      // What a client sees: a count that the list does not show.
      const shown = await t.gql(
        'query($id: ID!) { user(id: $id) { followerCount followers { edges { node { id } } } } }',
        { id: followee.id },
      );
      expect(shown.data!.user.followerCount).toBe(2);
      expect(shown.data!.user.followers.edges.map((e: { node: { id: string } }) => e.node.id)).not.toContain(ghost);

      const found = await verify('--repair');
      expect(found.code).toBe(1);
      expect(found.output).toContain(`follow edge without its following list entry: ${entry!.pk} ${entry!.sk}`);
      expect(found.output).toContain(`follow list entry without its follow edge: ${stray.pk} ${stray.sk}`);
      expect(found.output).toContain(
        `follow edge naming a user who has no account: GNODE#${ghost} FOLLOWS#${followee.id}`,
      );
      // The ghost's following count went to the key of a profile it never had.
      expect(found.output).toContain(`follow counts on the key of a profile that is gone: USER#${ghost} PROFILE`);
      expect(found.output).toContain('no drift');
      expect(found.output).toContain('4 follow records disagree with each other (not repaired');
      expect((await verify()).code).toBe(1);
      // A script that scans profiles passes over those counts.
      expect(await script('search-index')).toEqual({
        code: 0,
        output: expect.stringMatching(/search entries written for \d+ users/),
      });
    } finally {
      await client.send(new PutCommand({ TableName: table, Item: entry! }));
      await client.send(new DeleteCommand({ TableName: table, Key: { pk: stray.pk, sk: stray.sk } }));
      await t.app.stores.graph.unfollow(ghost, followee.id);
      await t.app.stores.graph.removeNode(ghost);
      client.destroy();
    }
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });
  });
});
