import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { FollowCountsMigration } from '../../scripts/follow-counts-migration.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runScript } from '../helpers/scripts.js';

let t: TestApp;
let client: DynamoDBDocumentClient;
let table: string;

beforeAll(async () => {
  t = await startTestApp();
  table = tableName(t.tablePrefix);
  client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
});
afterAll(async () => {
  client.destroy();
  await t.stop();
});

const script = (name: string) => runScript(t, name);

async function countsOf(userId: string): Promise<{ followerCount: number; followingCount: number }> {
  const read = await t.gql('query($id: ID!) { user(id: $id) { followerCount followingCount } }', { id: userId });
  return read.data!.user;
}

const follow = (token: string, userId: string) =>
  t
    .gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: userId }, token)
    .then((answer) => expect(answer.errors).toBeUndefined());

/** Puts a user's follow counts back where they were before they moved onto the profile: on the graph node. */
async function asBeforeTheMove(userId: string): Promise<void> {
  const { Item: profile } = await client.send(
    new GetCommand({ TableName: table, Key: keys.user(userId), ConsistentRead: true }),
  );
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: keys.graphNode(userId),
      UpdateExpression: 'SET followerCount = :followers',
      ExpressionAttributeValues: { ':followers': profile!.followerCount ?? 0 },
    }),
  );
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: keys.user(userId),
      UpdateExpression: 'REMOVE followerCount, followingCount',
    }),
  );
}

describe('stored items: npm run graph:follow-counts', { timeout: 180_000 }, () => {
  it('moves follow counts written on graph nodes onto the profiles, exactly, also beside follows made meanwhile', async () => {
    const [star, fan] = await Promise.all([t.signUp(), t.signUp()]);
    const others = await Promise.all(Array.from({ length: 12 }, () => t.signUp()));
    await Promise.all(others.slice(0, 6).map((other) => follow(other.token, star.id)));
    await Promise.all(others.slice(0, 3).map((other) => follow(fan.token, other.id)));
    expect(await countsOf(star.id)).toEqual({ followerCount: 6, followingCount: 0 });
    expect(await countsOf(fan.id)).toEqual({ followerCount: 0, followingCount: 3 });

    await asBeforeTheMove(star.id);
    await asBeforeTheMove(fan.id);
    const unmoved = await script('counters-verify');
    expect(unmoved.code).toBe(1);
    expect(unmoved.output).toContain('no drift');
    expect(unmoved.output).toContain(`graph node still holding its user's followerCount`);
    expect(unmoved.output).toContain(`GNODE#${star.id} NODE`);

    // Six more follows of the star, and three more by the fan, race the move: none is lost or counted twice.
    const migration = new FollowCountsMigration({ client, tableName: table });
    const [movedStar, movedFan] = await Promise.all([
      migration.migrate(star.id),
      migration.migrate(fan.id),
      ...others.slice(6).map((other) => follow(other.token, star.id)),
      ...others.slice(3, 6).map((other) => follow(fan.token, other.id)),
    ]);
    expect([movedStar, movedFan]).toEqual(['moved', 'moved']);
    expect(await countsOf(star.id)).toEqual({ followerCount: 12, followingCount: 0 });
    expect(await countsOf(fan.id)).toEqual({ followerCount: 0, followingCount: 6 });
    const { Item: node } = await client.send(
      new GetCommand({ TableName: table, Key: keys.graphNode(star.id), ConsistentRead: true }),
    );
    expect(node!.followerCount).toBeUndefined();
    expect(await script('counters-verify')).toEqual({ code: 0, output: expect.stringContaining('no drift') });

    // Moved already: nothing more to do.
    expect(await migration.migrate(star.id)).toBe('done');
    expect((await script('graph-follow-counts')).output).toMatch(/follow counts moved onto \d+ profiles/);
    expect(await countsOf(star.id)).toEqual({ followerCount: 12, followingCount: 0 });
  });
});
