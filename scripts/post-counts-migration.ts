import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, scanPages, transactWrite } from '../src/stores/dynamo/batch.js';
import { type CounterField } from '../src/stores/dynamo/counter-items.js';
import { keys } from '../src/stores/dynamo/keys.js';

type Item = Record<string, unknown>;

const FIELDS: readonly CounterField[] = ['likeCount', 'viewCount', 'commentCount', 'repostCount'];

export interface PostCountsTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * Moves the counts of posts with one counter shard from their `COUNT#0` item onto the post item, where
 * readers now find them with the post (`npm run counters:migrate`); a post with more shards keeps them and
 * gets the empty `reactions` map its item now starts with. Idempotent: a post item with `reactions` is done.
 */
export class PostCountsMigration {
  constructor(private readonly table: PostCountsTable) {}

  /** The ids of post items without a `reactions` map, the shape of before the move: a whole-table scan. */
  async *postsToMigrate(): AsyncGenerator<string[]> {
    const pages = scanPages(this.table.client, this.table.tableName, {
      FilterExpression: 'sk = :post AND attribute_not_exists(reactions)',
      ExpressionAttributeValues: { ':post': 'POST' },
      ProjectionExpression: 'id',
    });
    for await (const items of pages) yield items.map((item) => item.id as string);
  }

  /** False when there was nothing to do (done already, or gone). */
  async migrate(postId: string): Promise<boolean> {
    const { client, tableName } = this.table;
    for (let attempt = 0; attempt < 5; attempt++) {
      const { Item: post } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.post(postId),
          ConsistentRead: true,
          ProjectionExpression: 'counterShards, reactions',
        }),
      );
      if (!post || post.reactions !== undefined) return false;
      const { Item: shard } =
        Number(post.counterShards ?? 1) > 1
          ? { Item: undefined }
          : await client.send(
              new GetCommand({ TableName: tableName, Key: keys.counterShard(postId, 0), ConsistentRead: true }),
            );
      try {
        await transactWrite(client, { TransactItems: moveItems(tableName, postId, shard) });
        return true;
      } catch (error) {
        // Counted meanwhile (by a service still running): read again.
        if (!cancellationReasons(error)?.includes('ConditionalCheckFailed')) throw error;
      }
    }
    throw new Error(`the counts of post ${postId} kept changing while they were moved`);
  }
}

/**
 * The post item gets the shard's counts (ADD, so that counts written to it meanwhile stay) and its reactions map,
 * and the shard goes — on condition that it still holds what was read, so that no count is lost or counted twice.
 */
function moveItems(tableName: string, postId: string, shard: Item | undefined) {
  const present = FIELDS.filter((field) => shard?.[field] !== undefined);
  const reactions = (shard?.reactions as Record<string, number> | undefined) ?? {};
  const kinds = Object.keys(reactions);
  const post = {
    Update: {
      TableName: tableName,
      Key: keys.post(postId),
      UpdateExpression: `SET reactions = :reactions${present.length > 0 ? ` ADD ${present.map((f) => `${f} :${f}`).join(', ')}` : ''}`,
      // Still one shard: a raise by an older instance since the read would leave its writes to COUNT#0 nowhere.
      ConditionExpression: shard
        ? 'attribute_exists(pk) AND attribute_not_exists(reactions) AND (attribute_not_exists(counterShards) OR counterShards = :one)'
        : 'attribute_exists(pk) AND attribute_not_exists(reactions)',
      ExpressionAttributeValues: {
        ':reactions': reactions,
        ...(shard ? { ':one': 1 } : {}),
        ...Object.fromEntries(present.map((f) => [`:${f}`, Number(shard![f])])),
      },
    },
  };
  if (!shard) return [post];
  const unchanged = [
    ...FIELDS.map((f) => (present.includes(f) ? `${f} = :${f}` : `attribute_not_exists(${f})`)),
    shard.reactions === undefined ? 'attribute_not_exists(reactions)' : 'size(reactions) = :kinds',
    ...kinds.map((_, i) => `reactions.#k${i} = :k${i}`),
  ];
  return [
    post,
    {
      Delete: {
        TableName: tableName,
        Key: keys.counterShard(postId, 0),
        ConditionExpression: unchanged.join(' AND '),
        ExpressionAttributeNames: kinds.length > 0 ? Object.fromEntries(kinds.map((k, i) => [`#k${i}`, k])) : undefined,
        ExpressionAttributeValues: nonEmpty({
          ...Object.fromEntries(present.map((f) => [`:${f}`, Number(shard[f])])),
          ...(shard.reactions === undefined ? {} : { ':kinds': kinds.length }),
          ...Object.fromEntries(kinds.map((k, i) => [`:k${i}`, Number(reactions[k])])),
        }),
      },
    },
  ];
}

/** DynamoDB refuses an empty map of expression values. */
function nonEmpty(values: Item): Item | undefined {
  return Object.keys(values).length > 0 ? values : undefined;
}
