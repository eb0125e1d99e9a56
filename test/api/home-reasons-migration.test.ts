import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, homeEntries, repostAs } from '../helpers/posts.js';
import { WORKER_WAIT, waitForQueueToDrain } from '../helpers/queue.js';
import { scriptOutput } from '../helpers/scripts.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ QUEUE_POLL_MS: '50' });
});
afterAll(async () => {
  await t.stop();
});

type User = Awaited<ReturnType<TestApp['signUp']>>;

async function mute(user: User, otherId: string) {
  const result = await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: otherId }, user.token);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
}

const entriesOf = async (user: User, postId: string) => (await homeEntries(t, user)).filter((e) => e.id === postId);

describe('stored items: npm run timelines:reasons', () => {
  it('copies a repost marker’s reasons onto an entry written without them, so a hidden reposter gives way', async () => {
    const [author, muted, friend, reader, follower] = await Promise.all(Array.from({ length: 5 }, () => t.signUp()));
    await follow(t, reader!.token, muted!.id);
    await follow(t, reader!.token, friend!.id);
    await follow(t, follower!.token, muted!.id);
    const postId = await createPost(t, author!.token, 'reposted, then reposted again');
    const undone = await createPost(t, author!.token, 'reposted, then unreposted');
    const expired = await createPost(t, author!.token, 'its entry gone before its marker');
    for (const id of [postId, undone, expired]) await repostAs(t, muted!, id);
    await expect
      .poll(() => entriesOf(reader!, postId), WORKER_WAIT)
      .toEqual([{ id: postId, repostedBy: muted!.handle }]);
    // The reader gains a second reposter, the follower the original (the follow's backfill); the follower's marker
    // of the unreposted post is left with the original alone, one reason: nothing to copy.
    for (const id of [postId, expired]) await repostAs(t, friend!, id);
    await follow(t, follower!.token, author!.id);
    await waitForQueueToDrain(t);
    await repostAs(t, muted!, undone, 'unrepost');
    await waitForQueueToDrain(t);

    const table = tableName(t.tablePrefix);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
    const repostEntries = async (user: User, post: string) => {
      const { Items } = await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: 'postId = :post',
          ExpressionAttributeValues: { ':pk': partitions.home(user.id), ':post': post },
        }),
      );
      return Items!.filter((item) => item.sk !== post);
    };
    try {
      // As the previous version left them: repost entries without the reasons their markers hold.
      const old = [
        ...(await repostEntries(reader!, postId)),
        ...(await repostEntries(follower!, postId)),
        ...(await repostEntries(follower!, undone)),
      ];
      expect(old).toHaveLength(3);
      for (const item of old) {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'REMOVE original, reposters',
          }),
        );
      }
      // An entry that expired before its marker: the migration must not write it back.
      const [gone] = await repostEntries(reader!, expired);
      await client.send(new DeleteCommand({ TableName: table, Key: { pk: gone!.pk, sk: gone!.sk } }));
      await mute(reader!, muted!.id);
      await mute(follower!, muted!.id);
      // Each shows only the reason it was placed for, which is hidden.
      expect(await entriesOf(reader!, postId)).toEqual([]);
      expect(await entriesOf(follower!, postId)).toEqual([]);

      // Four markers hold two reasons (each user's of the first post and of the expired one's); the follower's entry
      // of the expired post already carries them, the reader's is gone.
      expect(await scriptOutput(t, 'timelines-reasons')).toMatch(
        /^reasons copied onto 2 repost entries \(4 markers hold more than one\)$/m,
      );
      expect(await entriesOf(reader!, postId)).toEqual([{ id: postId, repostedBy: friend!.handle }]);
      expect(await entriesOf(follower!, postId)).toEqual([{ id: postId, repostedBy: null }]);
      expect(await entriesOf(follower!, undone)).toEqual([{ id: undone, repostedBy: null }]);
      expect(await repostEntries(reader!, expired)).toEqual([]);
      // Again: nothing left to do.
      expect(await scriptOutput(t, 'timelines-reasons')).toMatch(
        /^reasons copied onto 0 repost entries \(4 markers hold more than one\)$/m,
      );
    } finally {
      client.destroy();
    }
  });
});
