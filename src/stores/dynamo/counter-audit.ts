import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { classifyKey, keys, type Key } from './keys.js';

/**
 * Recomputes every counter from the records it counts and reports (and on request repairs)
 * the difference: post likes, views, comments, reposts and reactions against their records, users'
 * postCount against their posts, and — on the embedded graph backend — follower and
 * following counts against the follow edges. Neo4j computes its counts, so they cannot drift.
 * On the embedded graph backend it also checks that every follow edge has its two list
 * entries and names two accounts, and every list entry its edge: the lists are what the API
 * shows, so a count agrees with its list only when both hold.
 */
export interface Drift {
  counter: string;
  key: Key;
  field: string;
  recorded: number;
  actual: number;
}

/** Follow records that disagree with each other. Not a counter, so not repaired: see the README. */
export interface FollowMismatch {
  problem: string;
  key: Key;
}

export interface Audit {
  drift: Drift[];
  mismatches: FollowMismatch[];
}

type Tally = Map<string, number>;
const bump = (tally: Tally, id: string, by = 1) => tally.set(id, (tally.get(id) ?? 0) + by);

interface Census {
  posts: Set<string>;
  shardSums: Map<string, { likeCount: number; viewCount: number; commentCount: number; repostCount: number; reactions: Tally }>;
  likes: Tally;
  reposts: Tally;
  views: Tally;
  comments: Tally;
  reactions: Map<string, Tally>;
  userPostCounts: Tally;
  authorPosts: Tally;
  graphNodes: Map<string, { followerCount: number; followingCount: number }>;
  followers: Tally;
  following: Tally;
  edges: { key: Key; followerId: string; followeeId: string; atMs: number }[];
  /** Every following and followers list entry, by entryKey. */
  listEntries: Map<string, Key>;
}

/** An item as DynamoDB sends it. The audit reads these, not the document client's objects, whose maps lose a `__proto__` key. */
type RawItem = Record<string, AttributeValue>;
const numberOf = (item: RawItem, name: string) => Number(item[name]?.N ?? 0);
const entryKey = (key: Key) => `${key.pk}\u0000${key.sk}`;

const SCAN_SEGMENTS = 4;

async function takeCensus(client: DynamoDBDocumentClient, tableName: string): Promise<Census> {
  const census: Census = {
    posts: new Set(),
    shardSums: new Map(),
    likes: new Map(),
    reposts: new Map(),
    views: new Map(),
    comments: new Map(),
    reactions: new Map(),
    userPostCounts: new Map(),
    authorPosts: new Map(),
    graphNodes: new Map(),
    followers: new Map(),
    following: new Map(),
    edges: [],
    listEntries: new Map(),
  };
  const visit = (item: RawItem) => {
    const key = { pk: item.pk?.S ?? '', sk: item.sk?.S ?? '' };
    const found = classifyKey(key);
    if (!found) return;
    switch (found.kind) {
      case 'user':
        census.userPostCounts.set(found.userId, numberOf(item, 'postCount'));
        break;
      case 'authorPost':
        bump(census.authorPosts, found.authorId);
        break;
      case 'graphNode':
        census.graphNodes.set(found.userId, { followerCount: numberOf(item, 'followerCount'), followingCount: numberOf(item, 'followingCount') });
        break;
      case 'followEdge':
        bump(census.following, found.followerId);
        bump(census.followers, found.followeeId);
        census.edges.push({ key, followerId: found.followerId, followeeId: found.followeeId, atMs: numberOf(item, 'atMs') });
        break;
      case 'followListEntry':
        census.listEntries.set(entryKey(key), key);
        break;
      case 'post':
        census.posts.add(found.postId);
        break;
      case 'counterShard': {
        const sum = census.shardSums.get(found.postId) ?? { likeCount: 0, viewCount: 0, commentCount: 0, repostCount: 0, reactions: new Map() };
        sum.likeCount += numberOf(item, 'likeCount');
        sum.viewCount += numberOf(item, 'viewCount');
        sum.commentCount += numberOf(item, 'commentCount');
        sum.repostCount += numberOf(item, 'repostCount');
        for (const [kind, count] of Object.entries(item.reactions?.M ?? {})) bump(sum.reactions, kind, Number(count.N ?? 0));
        census.shardSums.set(found.postId, sum);
        break;
      }
      case 'like':
        bump(census.likes, found.postId);
        break;
      case 'view':
        bump(census.views, found.postId);
        break;
      case 'repost':
        bump(census.reposts, found.postId);
        break;
      case 'commentEntry':
        bump(census.comments, found.postId);
        break;
      case 'reaction': {
        const kinds = census.reactions.get(found.postId) ?? new Map();
        bump(kinds, found.reaction);
        census.reactions.set(found.postId, kinds);
        break;
      }
    }
  };
  await Promise.all(
    Array.from({ length: SCAN_SEGMENTS }, async (_, segment) => {
      let start: RawItem | undefined;
      do {
        // The SDK's own ScanCommand, sent through the document client, answers in the wire format.
        const page = await client.send(
          new ScanCommand({ TableName: tableName, Segment: segment, TotalSegments: SCAN_SEGMENTS, ExclusiveStartKey: start, ConsistentRead: true }),
        );
        for (const item of page.Items ?? []) visit(item);
        start = page.LastEvaluatedKey;
      } while (start);
    }),
  );
  return census;
}

function findDrift(census: Census, includeGraph: boolean): Drift[] {
  const drift: Drift[] = [];
  const check = (counter: string, key: Key, field: string, recorded: number, actual: number) => {
    if (recorded !== actual) drift.push({ counter, key, field, recorded, actual });
  };
  // Only live posts have counters; a deleted post's records wait for the worker's cleanup.
  for (const postId of census.posts) {
    const sum = census.shardSums.get(postId);
    if (!sum) continue;
    const shard0 = keys.counterShard(postId, 0);
    check('post likes', shard0, 'likeCount', sum.likeCount, census.likes.get(postId) ?? 0);
    check('post views', shard0, 'viewCount', sum.viewCount, census.views.get(postId) ?? 0);
    check('post comments', shard0, 'commentCount', sum.commentCount, census.comments.get(postId) ?? 0);
    check('post reposts', shard0, 'repostCount', sum.repostCount, census.reposts.get(postId) ?? 0);
    const actualReactions = census.reactions.get(postId) ?? new Map<string, number>();
    for (const kind of new Set([...sum.reactions.keys(), ...actualReactions.keys()])) {
      check('post reactions', shard0, `reactions.${kind}`, sum.reactions.get(kind) ?? 0, actualReactions.get(kind) ?? 0);
    }
  }
  for (const [userId, postCount] of census.userPostCounts) {
    check('user posts', keys.user(userId), 'postCount', postCount, census.authorPosts.get(userId) ?? 0);
  }
  if (includeGraph) {
    for (const [userId, node] of census.graphNodes) {
      check('followers', keys.graphNode(userId), 'followerCount', node.followerCount, census.followers.get(userId) ?? 0);
      check('following', keys.graphNode(userId), 'followingCount', node.followingCount, census.following.get(userId) ?? 0);
    }
  }
  return drift;
}

/**
 * Every follow edge must have its entry in the follower's following list and in the followee's
 * followers list, at the edge's follow time, and name two accounts; every list entry must have
 * its edge. With the counts checked against the edges, this checks them against the lists too.
 */
function findFollowMismatches(census: Census): FollowMismatch[] {
  const mismatches: FollowMismatch[] = [];
  const expected = new Set<string>();
  const accounts = census.userPostCounts;
  for (const edge of census.edges) {
    if (!accounts.has(edge.followerId) || !accounts.has(edge.followeeId)) {
      mismatches.push({ problem: 'follow edge naming a user who has no account', key: edge.key });
    }
    const entries: [string, Key][] = [
      ['following', { pk: keys.followingList(edge.followerId), sk: keys.followListPosition(edge.atMs, edge.followeeId) }],
      ['followers', { pk: keys.followersList(edge.followeeId), sk: keys.followListPosition(edge.atMs, edge.followerId) }],
    ];
    for (const [list, key] of entries) {
      expected.add(entryKey(key));
      if (!census.listEntries.has(entryKey(key))) mismatches.push({ problem: `follow edge without its ${list} list entry`, key });
    }
  }
  for (const [entry, key] of census.listEntries) {
    if (!expected.has(entry)) mismatches.push({ problem: 'follow list entry without its follow edge', key });
  }
  return mismatches;
}

/** Adds the difference to the counter (on shard 0 for posts), so writes made meanwhile still count. */
async function repair(client: DynamoDBDocumentClient, tableName: string, item: Drift): Promise<void> {
  const delta = item.actual - item.recorded;
  const reaction = item.field.startsWith('reactions.') ? item.field.slice('reactions.'.length) : null;
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: item.key,
      ConditionExpression: 'attribute_exists(pk)',
      UpdateExpression: reaction ? 'SET reactions.#kind = if_not_exists(reactions.#kind, :zero) + :delta' : 'ADD #field :delta',
      ExpressionAttributeNames: reaction ? { '#kind': reaction } : { '#field': item.field },
      ExpressionAttributeValues: reaction ? { ':zero': 0, ':delta': delta } : { ':delta': delta },
    }),
  );
}

/** With `repair`, fixes the drift; follow mismatches are only reported. */
export async function auditCounters(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: { repair?: boolean; includeGraph: boolean },
): Promise<Audit> {
  const census = await takeCensus(client, tableName);
  const drift = findDrift(census, options.includeGraph);
  if (options.repair) for (const item of drift) await repair(client, tableName, item);
  return { drift, mismatches: options.includeGraph ? findFollowMismatches(census) : [] };
}
