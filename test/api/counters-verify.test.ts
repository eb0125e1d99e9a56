import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

async function verify(...args: string[]): Promise<{ code: number; output: string }> {
  const env = { ...process.env, DYNAMODB_ENDPOINT: t.endpoint, TABLE_PREFIX: t.tablePrefix, LOG_LEVEL: 'warn' };
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/counters-verify.ts', ...args], { env });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('npm run counters:verify', () => {
  it('finds no drift after real traffic, reports planted drift, and --repair fixes it', async () => {
    const [author, fan] = await Promise.all([t.signUp(), t.signUp()]);
    const created = await t.gql('mutation { createPost(input: { text: "counted" }) { post { id } } }', {}, author.token);
    const postId = created.data!.createPost.post.id;
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId }, fan.token);
    await t.gql('mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }', { id: postId }, fan.token);
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, fan.token);
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });

    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    await client.send(
      new UpdateCommand({
        TableName: tableName(t.tablePrefix),
        Key: keys.counterShard(postId, 0),
        UpdateExpression: 'ADD likeCount :three SET reactions.#k = :nine',
        ExpressionAttributeNames: { '#k': 'wow' },
        ExpressionAttributeValues: { ':three': 3, ':nine': 9 },
      }),
    );
    await client.send(
      new UpdateCommand({ TableName: tableName(t.tablePrefix), Key: keys.user(author.id), UpdateExpression: 'ADD postCount :one', ExpressionAttributeValues: { ':one': 1 } }),
    );
    client.destroy();

    const found = await verify();
    expect(found.code).toBe(1);
    expect(found.output).toContain('likeCount recorded 4, actual 1');
    expect(found.output).toContain('reactions.wow recorded 9, actual 1');
    expect(found.output).toContain('postCount recorded 2, actual 1');

    expect((await verify('--repair')).output).toContain('3 counters drifted, now repaired');
    expect(await verify()).toEqual({ code: 0, output: expect.stringContaining('no drift') });
    const after = await t.gql('query($id: ID!) { post(id: $id) { likeCount reactionCounts { kind count } author { postCount } } }', { id: postId });
    expect(after.data!.post).toEqual({ likeCount: 1, reactionCounts: [{ kind: 'wow', count: 1 }], author: { postCount: 1 } });
  });
});
