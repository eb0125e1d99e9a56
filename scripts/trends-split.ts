/**
 * `npm run trends:split`: a data migration, run once every instance keeps the tag counts of an hour one item
 * per tag. Moves the hourly buckets of earlier versions (`TRENDS#<hour>` / `<shard>`, a `t_<tag>` count and an
 * `l_<tag>` last use per tag) into those items and deletes them, so that trendingTags goes on counting the posts
 * made before, on the configured DynamoDB (the embedded one by default). Idempotent, and safe beside the service:
 * an item takes its bucket's count once (it is marked when it does), added to what posts write or delete meanwhile.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../src/lib/collections.js';
import { scanPages } from '../src/stores/dynamo/batch.js';
import { keys } from '../src/stores/dynamo/keys.js';
import { HOUR_MS, trendExpiresAt } from '../src/stores/dynamo/tag-count-items.js';
import { openConfiguredStores } from './configured-stores.js';

const BUCKET_PK = /^TRENDS#(\d+)$/;
const BUCKET_SK = /^\d+$/;
const COUNT = 't_';
const LAST_USE = 'l_';
/** Set on an item with the count it took from its bucket. */
const MOVED = 'movedFromBucket';

const opened = await openConfiguredStores();
const { client, table } = opened;
try {
  let buckets = 0;
  let moved = 0;
  const pages = scanPages(client, table, {
    // Today's items of an hour's tag have a `#` in their sort key; a bucket's is its shard.
    FilterExpression: 'begins_with(pk, :trends) AND NOT contains(sk, :hash)',
    ExpressionAttributeValues: { ':trends': 'TRENDS#', ':hash': '#' },
  });
  for await (const items of pages) {
    for (const bucket of items) {
      const hour = BUCKET_PK.exec(String(bucket.pk))?.[1];
      if (hour === undefined || !BUCKET_SK.test(String(bucket.sk))) continue;
      const tags = Object.keys(bucket).flatMap((name) => (name.startsWith(COUNT) ? [name.slice(COUNT.length)] : []));
      const taken = await mapConcurrently(tags, 8, async (tag) => {
        const count = Number(bucket[`${COUNT}${tag}`]);
        if (count === 0) return false;
        try {
          await client.send(
            new UpdateCommand({
              TableName: table,
              Key: keys.trendCount(Number(hour), Number(bucket.sk), tag),
              UpdateExpression:
                'ADD #count :count SET #moved = :moved, expiresAt = if_not_exists(expiresAt, :expires), lastUsedMs = if_not_exists(lastUsedMs, :at)',
              ConditionExpression: 'attribute_not_exists(#moved)',
              ExpressionAttributeNames: { '#count': 'count', '#moved': MOVED },
              ExpressionAttributeValues: {
                ':count': count,
                ':moved': true,
                ':expires': trendExpiresAt(Number(hour)),
                ':at': Number(bucket[`${LAST_USE}${tag}`] ?? Number(hour) * HOUR_MS),
              },
            }),
          );
          return true;
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) return false;
          throw error;
        }
      });
      await client.send(new DeleteCommand({ TableName: table, Key: { pk: bucket.pk, sk: bucket.sk } }));
      buckets += 1;
      moved += taken.filter(Boolean).length;
    }
  }
  console.log(`moved ${moved} tag counts out of ${buckets} hourly buckets`);
} finally {
  await opened.close();
}
