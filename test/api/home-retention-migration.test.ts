import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idTime } from '../../src/domain/ids.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, retiredPrefixes, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { scriptOutput } from '../helpers/scripts.js';
import { createPost, follow, homeIds, newestFirst } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ QUEUE_POLL_MS: '50' });
});
afterAll(async () => {
  await t.stop();
});

async function migrate(): Promise<string> {
  return scriptOutput(t, 'timelines-retention');
}

describe('stored items: npm run timelines:retention', () => {
  it('gives home entries and repost markers written without an expiry theirs, and deletes the size estimates', async () => {
    const [reader, author, reposter, fan] = [await t.signUp(), await t.signUp(), await t.signUp(), await t.signUp()];
    await follow(t, reader.token, author.id);
    await follow(t, fan.token, reposter.id);
    const posts = [await createPost(t, author.token, 'first'), await createPost(t, author.token, 'second')];
    // The fan gets the post through the repost: an entry at the repost's position and a marker.
    await t.gql('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: posts[0] }, reposter.token);
    await waitForQueueToDrain(t);

    const table = tableName(t.tablePrefix);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
    const items = async (pk: string) =>
      (
        await client.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
          }),
        )
      ).Items!;
    const partitionsOf = [reader, author, reposter, fan].flatMap((user) => [
      partitions.home(user.id),
      partitions.homeMarkers(user.id),
    ]);
    const sizeEstimate = { pk: `${retiredPrefixes.homeSize}${reader.id}`, sk: 'SIZE' };
    try {
      // As the previous version stored them: no expiry, and a sampled size estimate beside the timeline.
      let stripped = 0;
      for (const pk of partitionsOf) {
        for (const item of await items(pk)) {
          await client.send(
            new UpdateCommand({ TableName: table, Key: { pk, sk: item.sk }, UpdateExpression: 'REMOVE expiresAt' }),
          );
          stripped += 1;
        }
      }
      // The reader's and the author's two entries, the reposter's and the fan's repost entry and marker.
      expect(stripped).toBe(8);
      await client.send(new PutCommand({ TableName: table, Item: { ...sizeEstimate, estimate: 812 } }));

      expect(await migrate()).toMatch(
        new RegExp(`set on ${stripped} home entries and markers; 1 size estimates deleted$`, 'm'),
      );
      const retentionMs = t.app.config.homeRetentionDays * 24 * 3600 * 1000;
      const due = (position: string) => Math.ceil((idTime(position) + retentionMs) / 1000);
      for (const pk of partitionsOf) {
        for (const item of await items(pk)) {
          expect(item.expiresAt, `${pk} ${item.sk}`).toBe(due((item.position as string | undefined) ?? item.sk));
        }
      }
      expect(await items(sizeEstimate.pk)).toEqual([]);
      expect(await homeIds(t, reader)).toEqual(newestFirst(posts));
      expect(await homeIds(t, fan)).toEqual([posts[0]]);
      // Again: nothing left to do.
      expect(await migrate()).toMatch(/set on 0 home entries and markers; 0 size estimates deleted$/m);
    } finally {
      client.destroy();
    }
  });
});
