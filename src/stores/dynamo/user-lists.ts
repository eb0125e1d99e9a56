import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { badInput } from '../../domain/errors.js';
import { idPattern } from '../../domain/ids.js';
import type { IdPage, NewerPageArgs, PageArgs } from '../graph/graph-store.js';
import { partitions } from './keys.js';

/** Positions inside a list as followListPosition builds them; anything else is not a cursor we gave out. */
const POSITION = new RegExp(`^\\d{15}#${idPattern('usr')}$`);

/**
 * A newest-first page of one of a post's user lists (likers, reposters: entries under `prefix`
 * in the post's partition, sorted by time then user id), or backwards the `last` newer than `before`.
 * Cursors are list positions, without the prefix.
 */
export async function newestUserList(
  client: DynamoDBDocumentClient,
  tableName: string,
  postId: string,
  prefix: string,
  page: PageArgs | NewerPageArgs,
  consistent = false,
): Promise<IdPage> {
  if ('last' in page) return newerUserList(client, tableName, postId, prefix, page);
  const { first, after } = page;
  if (after !== null && !POSITION.test(after)) throw badInput('after', 'is not a cursor this API gave out');
  const result = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: after
        ? 'pk = :pk AND sk BETWEEN :start AND :before'
        : 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: after
        ? { ':pk': partitions.post(postId), ':start': prefix, ':before': `${prefix}${after}` }
        : { ':pk': partitions.post(postId), ':prefix': prefix },
      ProjectionExpression: 'sk',
      ScanIndexForward: false,
      ConsistentRead: consistent,
      Limit: first + 2,
    }),
  );
  const positions = (result.Items ?? [])
    .map((item) => (item.sk as string).slice(prefix.length))
    .filter((position) => position !== after);
  return {
    items: positions
      .slice(0, first)
      .map((position) => ({ id: position.slice(position.indexOf('#') + 1), cursor: position })),
    hasNextPage: positions.length > first,
  };
}

async function newerUserList(
  client: DynamoDBDocumentClient,
  tableName: string,
  postId: string,
  prefix: string,
  { last, before }: NewerPageArgs,
): Promise<IdPage> {
  if (!POSITION.test(before)) throw badInput('before', 'is not a cursor this API gave out');
  const result = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :after AND :end',
      ExpressionAttributeValues: {
        ':pk': partitions.post(postId),
        ':after': `${prefix}${before}#`,
        ':end': `${prefix}~`,
      },
      ProjectionExpression: 'sk',
      ScanIndexForward: true,
      Limit: last + 1,
    }),
  );
  const oldestFirst = (result.Items ?? []).map((item) => (item.sk as string).slice(prefix.length));
  const items = oldestFirst
    .slice(0, last)
    .map((position) => ({ id: position.slice(position.indexOf('#') + 1), cursor: position }));
  return { items: items.reverse(), hasNextPage: false, hasPreviousPage: oldestFirst.length > last };
}
