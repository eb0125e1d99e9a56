import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PROFILE_EXISTS, classifyKey, keys, type Key } from './keys.js';
import { SCAN_PAGE_ITEMS, SCAN_SEGMENTS } from './batch.js';

/**
 * Recomputes every counter from the records it counts and reports (and on request repairs)
 * the difference: post likes, views, comments, reposts and reactions against their records (summed
 * over every counter shard the post has; a tombstone is no comment), comments' replyCount against their replies
 * (in the list entry and the record), users'
 * postCount against their posts, and — on the embedded graph backend — follower and
 * following counts against the follow edges. Neo4j computes its counts, so they cannot drift.
 * It checks that each post's counter shards are the ones readers read: the post item, and `COUNT#0` …
 * `COUNT#n-1` when the post's `counterShards` n is more than one.
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

/** Records that disagree with each other (follows, or a post's counter shards). Not a counter, so not repaired: see the README. */
export interface RecordMismatch {
  records: 'follow' | 'counter shard';
  problem: string;
  key: Key;
}

export interface Audit {
  drift: Drift[];
  mismatches: RecordMismatch[];
}

type Tally = Map<string, number>;
const bump = (tally: Tally, id: string, by = 1) => tally.set(id, (tally.get(id) ?? 0) + by);

interface Census {
  /** Live post id → its counterShards. */
  posts: Map<string, number>;
  /** Post id → the shard numbers of its separate counter items. */
  shardLayouts: Map<string, number[]>;
  shardSums: Map<
    string,
    { likeCount: number; viewCount: number; commentCount: number; repostCount: number; reactions: Tally }
  >;
  likes: Tally;
  reposts: Tally;
  views: Tally;
  comments: Tally;
  /** Comment id → its replies' list entries (tombstones included). */
  replies: Tally;
  /** A comment's replyCount as its list entry and its record hold it, by comment id, with the keys. */
  replyCounts: { commentId: string; key: Key; recorded: number }[];
  reactions: Map<string, Tally>;
  userPostCounts: Tally;
  authorPosts: Tally;
  /** Each profile's follow counts. */
  followCounts: Map<string, { followerCount: number; followingCount: number }>;
  /** Each graph node's followingCount (which says whether its following set is complete), and whether it still holds a followerCount. */
  graphNodes: Map<string, { followingCount: number; unmoved: boolean }>;
  /** Profile keys holding follow counts but no profile. */
  orphanCounts: Key[];
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

/** Adds what a post item or one of its counter shards counts to the post's sums. */
function addCounts(census: Census, postId: string, item: RawItem): void {
  const sum = census.shardSums.get(postId) ?? {
    likeCount: 0,
    viewCount: 0,
    commentCount: 0,
    repostCount: 0,
    reactions: new Map(),
  };
  sum.likeCount += numberOf(item, 'likeCount');
  sum.viewCount += numberOf(item, 'viewCount');
  sum.commentCount += numberOf(item, 'commentCount');
  sum.repostCount += numberOf(item, 'repostCount');
  for (const [kind, count] of Object.entries(item.reactions?.M ?? {})) bump(sum.reactions, kind, Number(count.N ?? 0));
  census.shardSums.set(postId, sum);
}

async function takeCensus(client: DynamoDBDocumentClient, tableName: string): Promise<Census> {
  const census: Census = {
    posts: new Map(),
    shardLayouts: new Map(),
    shardSums: new Map(),
    likes: new Map(),
    reposts: new Map(),
    views: new Map(),
    comments: new Map(),
    replies: new Map(),
    replyCounts: [],
    reactions: new Map(),
    userPostCounts: new Map(),
    authorPosts: new Map(),
    followCounts: new Map(),
    graphNodes: new Map(),
    orphanCounts: [],
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
        if (item.handle === undefined) {
          census.orphanCounts.push(key);
          break;
        }
        census.userPostCounts.set(found.userId, numberOf(item, 'postCount'));
        census.followCounts.set(found.userId, {
          followerCount: numberOf(item, 'followerCount'),
          followingCount: numberOf(item, 'followingCount'),
        });
        break;
      case 'authorPost':
        bump(census.authorPosts, found.authorId);
        break;
      case 'graphNode':
        census.graphNodes.set(found.userId, {
          followingCount: numberOf(item, 'followingCount'),
          unmoved: item.followerCount !== undefined,
        });
        break;
      case 'followEdge':
        bump(census.following, found.followerId);
        bump(census.followers, found.followeeId);
        census.edges.push({
          key,
          followerId: found.followerId,
          followeeId: found.followeeId,
          atMs: numberOf(item, 'atMs'),
        });
        break;
      case 'followListEntry':
        census.listEntries.set(entryKey(key), key);
        break;
      case 'post':
        census.posts.set(found.postId, item.counterShards?.N === undefined ? 1 : Number(item.counterShards.N));
        addCounts(census, found.postId, item);
        break;
      case 'counterShard': {
        addCounts(census, found.postId, item);
        census.shardLayouts.set(found.postId, [...(census.shardLayouts.get(found.postId) ?? []), found.shard]);
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
      case 'commentEntry': {
        // A tombstone is no comment any more, but still a reply in its parent's list.
        if (item.deleted?.BOOL !== true) bump(census.comments, found.postId);
        if (found.parentId !== null) bump(census.replies, found.parentId);
        census.replyCounts.push({ commentId: item.id?.S ?? '', key, recorded: numberOf(item, 'replyCount') });
        break;
      }
      case 'comment':
        census.replyCounts.push({ commentId: found.commentId, key, recorded: numberOf(item, 'replyCount') });
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
          new ScanCommand({
            TableName: tableName,
            Segment: segment,
            TotalSegments: SCAN_SEGMENTS,
            ExclusiveStartKey: start,
            ConsistentRead: true,
            Limit: SCAN_PAGE_ITEMS,
          }),
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
  for (const postId of census.posts.keys()) {
    const sum = census.shardSums.get(postId);
    if (!sum) continue;
    // A repair adds to the post item, which every reader sums.
    const shard0 = keys.post(postId);
    check('post likes', shard0, 'likeCount', sum.likeCount, census.likes.get(postId) ?? 0);
    check('post views', shard0, 'viewCount', sum.viewCount, census.views.get(postId) ?? 0);
    check('post comments', shard0, 'commentCount', sum.commentCount, census.comments.get(postId) ?? 0);
    check('post reposts', shard0, 'repostCount', sum.repostCount, census.reposts.get(postId) ?? 0);
    const actualReactions = census.reactions.get(postId) ?? new Map<string, number>();
    for (const kind of new Set([...sum.reactions.keys(), ...actualReactions.keys()])) {
      check(
        'post reactions',
        shard0,
        `reactions.${kind}`,
        sum.reactions.get(kind) ?? 0,
        actualReactions.get(kind) ?? 0,
      );
    }
  }
  for (const { commentId, key, recorded } of census.replyCounts) {
    check('comment replies', key, 'replyCount', recorded, census.replies.get(commentId) ?? 0);
  }
  for (const [userId, postCount] of census.userPostCounts) {
    check('user posts', keys.user(userId), 'postCount', postCount, census.authorPosts.get(userId) ?? 0);
  }
  if (includeGraph) {
    for (const [userId, counts] of census.followCounts) {
      // Counts still on the node are not the profile's to repair: `npm run graph:follow-counts` moves them (a mismatch).
      if (census.graphNodes.get(userId)?.unmoved) continue;
      const key = keys.user(userId);
      check('followers', key, 'followerCount', counts.followerCount, census.followers.get(userId) ?? 0);
      check('following', key, 'followingCount', counts.followingCount, census.following.get(userId) ?? 0);
    }
    for (const [userId, node] of census.graphNodes) {
      check(
        'following (graph node)',
        keys.graphNode(userId),
        'followingCount',
        node.followingCount,
        census.following.get(userId) ?? 0,
      );
    }
  }
  return drift;
}

/**
 * Every follow edge must have its entry in the follower's following list and in the followee's
 * followers list, at the edge's follow time, and name two accounts; every list entry must have
 * its edge. With the counts checked against the edges, this checks them against the lists too. Follow
 * counts live on profiles: not on a graph node (one to migrate), nor on the key of a profile that is gone.
 */
function findFollowMismatches(census: Census): RecordMismatch[] {
  const mismatches: RecordMismatch[] = [];
  const expected = new Set<string>();
  const accounts = census.userPostCounts;
  for (const edge of census.edges) {
    if (!accounts.has(edge.followerId) || !accounts.has(edge.followeeId)) {
      mismatches.push({ records: 'follow', problem: 'follow edge naming a user who has no account', key: edge.key });
    }
    const entries: [string, Key][] = [
      [
        'following',
        { pk: keys.followingList(edge.followerId), sk: keys.followListPosition(edge.atMs, edge.followeeId) },
      ],
      [
        'followers',
        { pk: keys.followersList(edge.followeeId), sk: keys.followListPosition(edge.atMs, edge.followerId) },
      ],
    ];
    for (const [list, key] of entries) {
      expected.add(entryKey(key));
      if (!census.listEntries.has(entryKey(key)))
        mismatches.push({ records: 'follow', problem: `follow edge without its ${list} list entry`, key });
    }
  }
  for (const [entry, key] of census.listEntries) {
    if (!expected.has(entry))
      mismatches.push({ records: 'follow', problem: 'follow list entry without its follow edge', key });
  }
  for (const [userId, node] of census.graphNodes) {
    if (node.unmoved)
      mismatches.push({
        records: 'follow',
        problem:
          "graph node still holding its user's followerCount, which readers find on the profile: `npm run graph:follow-counts` moves it there",
        key: keys.graphNode(userId),
      });
  }
  for (const key of census.orphanCounts)
    mismatches.push({ records: 'follow', problem: 'follow counts on the key of a profile that is gone', key });
  return mismatches;
}

/**
 * Readers sum the post item and, when its `counterShards` n is more than one, the separate shards
 * `COUNT#0` … `COUNT#n-1`: a shard outside them holds counts no reader sees (a `COUNT#0` of a post
 * with one shard is one `npm run counters:migrate` has not moved yet), a missing one fails writes,
 * and a deleted post's shards go in its deleting transaction.
 */
function findShardMismatches(census: Census): RecordMismatch[] {
  const mismatches: RecordMismatch[] = [];
  for (const [postId, shards] of census.shardLayouts) {
    const counterShards = census.posts.get(postId);
    const found = new Set(shards);
    if (counterShards === undefined) {
      mismatches.push({
        records: 'counter shard',
        problem: 'counter shards of a post that is gone',
        key: keys.counterShard(postId, Math.min(...found)),
      });
      continue;
    }
    for (const shard of found) {
      if (counterShards <= 1)
        mismatches.push({
          records: 'counter shard',
          problem:
            'counter shard of a post with one shard, whose counts are on the post item: `npm run counters:migrate` moves them there',
          key: keys.counterShard(postId, shard),
        });
      else if (shard >= counterShards)
        mismatches.push({
          records: 'counter shard',
          problem: `counter shard past the post's counterShards ${counterShards}: its counts are never read`,
          key: keys.counterShard(postId, shard),
        });
    }
  }
  for (const [postId, counterShards] of census.posts) {
    const found = new Set(census.shardLayouts.get(postId) ?? []);
    for (let shard = 0; counterShards > 1 && shard < counterShards; shard++) {
      if (!found.has(shard))
        mismatches.push({
          records: 'counter shard',
          problem: `counter shard missing (the post's counterShards is ${counterShards})`,
          key: keys.counterShard(postId, shard),
        });
    }
  }
  return mismatches;
}

/** Adds the difference to the counter (on the post item for posts), so writes made meanwhile still count. */
async function repair(client: DynamoDBDocumentClient, tableName: string, item: Drift): Promise<void> {
  const delta = item.actual - item.recorded;
  const reaction = item.field.startsWith('reactions.') ? item.field.slice('reactions.'.length) : null;
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: item.key,
      ConditionExpression: item.key.sk === 'PROFILE' ? PROFILE_EXISTS : 'attribute_exists(pk)',
      // Not a COUNTS_UPDATES expression: a repair evicts the whole cached item (a profile's postCount is read with it).
      UpdateExpression: reaction
        ? 'SET reactions.#kind = if_not_exists(reactions.#kind, :zero) + :delta'
        : 'SET #field = if_not_exists(#field, :zero) + :delta',
      ExpressionAttributeNames: reaction ? { '#kind': reaction } : { '#field': item.field },
      ExpressionAttributeValues: { ':zero': 0, ':delta': delta },
    }),
  );
}

/** With `repair`, fixes the drift; mismatches are only reported. */
export async function auditCounters(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: { repair?: boolean; includeGraph: boolean },
): Promise<Audit> {
  const census = await takeCensus(client, tableName);
  const drift = findDrift(census, options.includeGraph);
  if (options.repair) for (const item of drift) await repair(client, tableName, item);
  return {
    drift,
    mismatches: [...findShardMismatches(census), ...(options.includeGraph ? findFollowMismatches(census) : [])],
  };
}
