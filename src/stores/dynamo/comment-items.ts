import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CommentRecord } from '../../domain/models.js';
import type { CommentDeletion, CommentPage, CommentSlice } from '../post-store.js';
import { type TransactItem, counterIncrement } from './counter-items.js';
import { TOP_LEVEL_PREFIX, keys, partitions, replyPrefix } from './keys.js';

type Item = Record<string, unknown>;

/** Past every character of an id: the upper end of a prefix's range. */
const RANGE_END = '~';
/** Items one Query of a whole page's replies reads (DynamoDB stops at 1 MB anyway); parents it does not reach are read one by one. */
const THREAD_RANGE_ITEMS = 400;

export function toCommentRecord(item: Item): CommentRecord {
  return {
    id: item.id as string,
    postId: item.postId as string,
    authorId: (item.authorId as string | undefined) ?? null,
    text: (item.text as string | undefined) ?? null,
    createdAt: item.createdAt as string,
    mentionIds: (item.mentionIds as string[] | undefined) ?? [],
    ancestorIds: (item.ancestorIds as string[] | undefined) ?? [],
    replyCount: Number(item.replyCount ?? 0),
    deleted: item.deleted === true,
    replyToAuthorId: (item.replyToAuthorId as string | undefined) ?? null,
  };
}

/** The attributes a new comment is stored with, in its list entry and its record: no count and no tombstone yet. */
export function commentAttributes(comment: CommentRecord): Item {
  const { replyCount: _count, deleted: _deleted, replyToAuthorId, ...rest } = comment;
  return { ...rest, ...(replyToAuthorId ? { replyToAuthorId } : {}) };
}

/** The path of a comment: the top-level comment first, itself last. */
export const pathOf = (comment: Pick<CommentRecord, 'ancestorIds' | 'id'>): string[] => [
  ...comment.ancestorIds,
  comment.id,
];

/** Where a comment's activity item points: its top-level entry key, whatever its depth, so that it never moves. */
export const commentActivityKey = (authorId: string, comment: Pick<CommentRecord, 'postId' | 'id'>) =>
  keys.activity(authorId, keys.commentEntry(comment.postId, comment.id));

/** Counts a reply on its parent, in its list entry and its record: only while the parent is there and not a tombstone. */
export function countReplyItems(
  tableName: string,
  parent: CommentRecord,
  delta: number,
  condition = 'attribute_exists(pk)',
): TransactItem[] {
  return [keys.threadEntry(parent), keys.comment(parent.id)].map((Key) => ({
    Update: {
      TableName: tableName,
      Key,
      UpdateExpression: 'ADD replyCount :delta',
      ConditionExpression: condition,
      ExpressionAttributeValues: { ':delta': delta },
    },
  }));
}

/**
 * The transaction of a deletion: the comment turned into a tombstone (it has replies), or deleted with the
 * tombstones it leaves without replies, its parent (or the first ancestor kept) counting one reply less; the
 * post's commentCount down by one, and the author's activity item gone. Every item is conditioned on what the
 * plan was made from, so that a reply written meanwhile cancels it.
 */
export function deletionItems(
  tableName: string,
  { comment, post, emptied, keptAncestor }: CommentDeletion,
): TransactItem[] {
  const both = (c: CommentRecord) => [keys.threadEntry(c), keys.comment(c.id)];
  const items: TransactItem[] = [];
  if (emptied === null) {
    for (const Key of both(comment)) {
      items.push({
        Update: {
          TableName: tableName,
          Key,
          UpdateExpression: 'SET deleted = :true REMOVE #text, mentionIds',
          ConditionExpression: 'replyCount > :zero AND attribute_not_exists(deleted)',
          ExpressionAttributeNames: { '#text': 'text' },
          ExpressionAttributeValues: { ':true': true, ':zero': 0 },
        },
      });
    }
  } else {
    for (const Key of both(comment)) {
      items.push({
        Delete: {
          TableName: tableName,
          Key,
          ConditionExpression:
            'attribute_exists(pk) AND attribute_not_exists(deleted) AND (attribute_not_exists(replyCount) OR replyCount = :zero)',
          ExpressionAttributeValues: { ':zero': 0 },
        },
      });
    }
    for (const tombstone of emptied) {
      for (const Key of both(tombstone)) {
        items.push({
          Delete: {
            TableName: tableName,
            Key,
            ConditionExpression: 'deleted = :true AND replyCount = :one',
            ExpressionAttributeValues: { ':true': true, ':one': 1 },
          },
        });
      }
    }
    if (keptAncestor) items.push(...countReplyItems(tableName, keptAncestor, -1));
  }
  items.push(counterIncrement(tableName, post.id, post.counterShards, 'commentCount', -1));
  if (comment.authorId)
    items.push({ Delete: { TableName: tableName, Key: commentActivityKey(comment.authorId, comment) } });
  return items;
}

/** Reads comments of one post's partition between two sort keys, `exclude` (a cursor's own entry) left out. */
async function range(
  client: DynamoDBDocumentClient,
  tableName: string,
  postId: string,
  bounds: { lo: string; hi: string; exclude: string | null; size: number; backward: boolean },
): Promise<{ items: CommentRecord[]; more: boolean }> {
  const result = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':pk': partitions.comments(postId), ':lo': bounds.lo, ':hi': bounds.hi },
      ScanIndexForward: !bounds.backward,
      // One more to tell whether more follow, and one for the cursor's own entry.
      Limit: bounds.size + 2,
    }),
  );
  const items = (result.Items ?? []).filter((item) => item.sk !== bounds.exclude).map(toCommentRecord);
  return { items: items.slice(0, bounds.size), more: items.length > bounds.size };
}

/** A slice of the comments whose sort keys are `prefix` and their id ('' for the top-level ones), oldest first either way. */
export async function commentSlice(
  client: DynamoDBDocumentClient,
  tableName: string,
  postId: string,
  prefix: string,
  slice: CommentSlice,
): Promise<CommentPage> {
  const floor = prefix || TOP_LEVEL_PREFIX;
  const ceiling = floor + RANGE_END;
  if ('first' in slice) {
    const lo = slice.after === null ? floor : prefix + slice.after;
    const { items, more } = await range(client, tableName, postId, {
      lo,
      hi: ceiling,
      exclude: slice.after === null ? null : lo,
      size: slice.first,
      backward: false,
    });
    return { items, hasNextPage: more, hasPreviousPage: false };
  }
  const hi = slice.before === null ? ceiling : prefix + slice.before;
  const { items, more } = await range(client, tableName, postId, {
    lo: floor,
    hi,
    exclude: slice.before === null ? null : hi,
    size: slice.last,
    backward: true,
  });
  return { items: items.reverse(), hasNextPage: false, hasPreviousPage: more };
}

/** The sort key prefix of a comment's replies, or '' for a post's top-level comments (whose sort keys are their ids). */
export const slicePrefix = (parent: CommentRecord | null): string => (parent ? replyPrefix(pathOf(parent)) : '');

/**
 * The first `first` replies of each parent. Replies to the comments of one post at one depth sit side by side in the
 * post's partition, in the order of their parents' paths: one Query reads them all, from the first parent's to the last
 * one's; a parent past where it stopped is read on its own.
 */
export async function firstReplies(
  client: DynamoDBDocumentClient,
  tableName: string,
  parents: readonly CommentRecord[],
  first: number,
): Promise<CommentPage[]> {
  const pages = new Map<string, CommentPage>();
  const groups = new Map<string, CommentRecord[]>();
  for (const parent of parents) {
    const group = `${parent.postId}|${parent.ancestorIds.length}`;
    groups.set(group, [...(groups.get(group) ?? []), parent]);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const prefixes = group
        .map((parent) => ({ parent, prefix: slicePrefix(parent) }))
        .sort((a, b) => (a.prefix < b.prefix ? -1 : 1));
      const [{ prefix: lo }, { prefix: last }] = [prefixes[0]!, prefixes.at(-1)!];
      const read = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
          ExpressionAttributeValues: {
            ':pk': partitions.comments(group[0]!.postId),
            ':lo': lo,
            ':hi': last + RANGE_END,
          },
          Limit: THREAD_RANGE_ITEMS,
        }),
      );
      const items = read.Items ?? [];
      const reachedUpTo = read.LastEvaluatedKey ? (read.LastEvaluatedKey.sk as string) : null;
      await Promise.all(
        prefixes.map(async ({ parent, prefix }) => {
          if (reachedUpTo !== null && reachedUpTo < prefix + RANGE_END) {
            pages.set(parent.id, await commentSlice(client, tableName, parent.postId, prefix, { first, after: null }));
            return;
          }
          const replies = items.filter((item) => (item.sk as string).startsWith(prefix)).map(toCommentRecord);
          pages.set(parent.id, {
            items: replies.slice(0, first),
            hasNextPage: replies.length > first,
            hasPreviousPage: false,
          });
        }),
      );
    }),
  );
  return parents.map((parent) => pages.get(parent.id)!);
}
