import { newId } from '../domain/ids.js';
import type { PostRecord, UserRecord } from '../domain/models.js';
import { activityItem } from '../stores/dynamo/activity-items.js';
import { postCounterFields } from '../stores/dynamo/counter-items.js';
import { counterRecordItem, likerEntryItem } from '../stores/dynamo/dynamo-counter-store.js';
import { followItems, graphNodeItem } from '../stores/dynamo/graph/items.js';
import { outboxAuthorItem, postItems } from '../stores/dynamo/dynamo-post-store.js';
import { repostItems } from '../stores/dynamo/dynamo-repost-store.js';
import { taskItem } from '../stores/dynamo/dynamo-task-queue.js';
import { fanOutProgressItem } from '../stores/dynamo/dynamo-fanout-progress-store.js';
import { notificationGroupItem } from '../stores/dynamo/notification-items.js';
import { RECENT_ACTORS } from '../stores/notification-store.js';
import { homeEntryItem, homeMarkerItem, repostHomeEntryItem } from '../stores/dynamo/dynamo-timeline-store.js';
import { repostPosition } from '../stores/timeline-store.js';
import { userItems } from '../stores/dynamo/dynamo-user-store.js';
import { keys } from '../stores/dynamo/keys.js';
import { itemSize } from './item-size.js';

/** Bytes of each item kind the model counts (DynamoDB's item size: names and values, without the 100-byte storage overhead). */
export interface ItemSizes {
  user: number;
  handleClaim: number;
  /** A graph node with an average user's following set (ids up to FOLLOWING_SET_MAX). */
  graphNode: number;
  followEdge: number;
  followListEntry: number;
  post: number;
  authorPostEntry: number;
  /** A public, tag or outbox timeline entry. */
  timelineEntry: number;
  /** A home entry at a post id, with its expiry. */
  homeEntry: number;
  /** A counter shard with every configured reaction kind counted once. */
  counterShard: number;
  outboxAuthor: number;
  task: number;
  likeRecord: number;
  /** A like's entry in the post's likers list. */
  likerEntry: number;
  activity: number;
  repostRecord: number;
  /** A repost's entry in the post's reposters list. */
  reposterEntry: number;
  /** The reposter's own entry (REPOSTS#<user>), and the outbox entry of a reposter not fanned out: the same fields. */
  userRepostEntry: number;
  /** A home entry a repost wrote: a home entry with its reason. */
  repostHomeEntry: number;
  /** The repost marker written with it: where the entry is, and the post's reasons in the timeline. */
  homeMarker: number;
  /** A notification group with one recent actor. */
  notificationGroup: number;
  /** What each further recent actor adds to a group (up to RECENT_ACTORS). */
  recentActor: number;
  /** The fan-out progress record createPost writes beside a post. */
  fanOutProgress: number;
}

export interface SampleShape {
  /** Characters of an average post's text. */
  postChars: number;
  tagsPerPost: number;
  /** Users mentioned in an average post (its `mentionIds`). */
  mentionsPerPost: number;
  /** Accounts an average user follows (its graph node keeps their ids, up to the set's bound). */
  followsPerUser: number;
  followingSetMax: number;
  reactionKinds: readonly string[];
  counterShards: number;
}

/**
 * The sizes of the items the service writes, measured on items built by the stores' own builders
 * (the ones createPost, fan-out, follow, like and the seed use), filled with ids and text of
 * realistic length: change an item's shape in a store and the model follows.
 */
export function measureItems(shape: SampleShape): ItemSizes {
  const userId = newId('usr');
  const otherId = newId('usr');
  const now = new Date().toISOString();
  const user: UserRecord = {
    id: userId,
    handle: 'ada_lovelace_42',
    displayName: 'Ada Lovelace',
    bio: 'Into music, photography.',
    interests: ['music', 'photography'],
    createdAt: now,
    postCount: 1234,
    tokenGeneration: 0,
  };
  const tags = Array.from({ length: Math.round(shape.tagsPerPost) }, (_, i) => `topic${i}`);
  const post: PostRecord = {
    id: newId('pst'),
    authorId: userId,
    text: 'x'.repeat(shape.postChars),
    tags,
    createdAt: now,
    counterShards: shape.counterShards,
    mentionIds: Array.from({ length: Math.round(shape.mentionsPerPost) }, () => newId('usr')),
  };
  const [handleClaim, profile] = userItems(user);
  const following = Array.from({ length: Math.min(shape.followsPerUser, shape.followingSetMax) }, () => newId('usr'));
  const [edge, followingEntry] = followItems({ from: userId, to: otherId, at: now });
  const counts = { likeCount: 123_456, viewCount: 1_234_567, commentCount: 12_345, repostCount: 1_234 };
  const reactions = Object.fromEntries(shape.reactionKinds.map((kind) => [kind, 1_234]));
  // A like's group, with `actors` recent actors.
  const group = (actors: number) =>
    notificationGroupItem({
      recipientId: otherId,
      groupKey: `LIKE#${post.id}`,
      kind: 'LIKE',
      postId: post.id,
      generation: crypto.randomUUID(),
      actorCount: actors,
      recentActors: Array.from({ length: actors }, () => keys.followListPosition(Date.now(), newId('usr'))),
      updatedAtMs: Date.now(),
      version: actors,
    });
  const shard = { ...keys.counterShard(post.id, 0), ...postCounterFields(counts) };
  // A post item holds its counts while it has one shard, as most do.
  const [postItem, authorPost, publicEntry] = postItems(post, 4, false, counts);
  const like = keys.like(post.id, userId);
  const repost = repostItems(post, userId, Date.now(), 'fanOut', false, repostPosition(userId));
  // An expiry 30 days ahead: the size of any near-future epoch second.
  const expiresAt = Math.ceil(Date.now() / 1000) + 30 * 86_400;
  const repostedEntry = {
    userId,
    postId: post.id,
    authorId: otherId,
    counterShards: shape.counterShards,
    repostedBy: userId,
    position: repostPosition(userId),
    expiresAt,
  };
  return {
    user: itemSize({ ...profile, followerCount: 1234, followingCount: following.length }),
    handleClaim: itemSize(handleClaim),
    graphNode: itemSize(
      graphNodeItem({ id: userId, handle: user.handle, interests: user.interests }, following, shape.followingSetMax),
    ),
    followEdge: itemSize(edge),
    followListEntry: itemSize(followingEntry),
    post: itemSize({ ...postItem!, reactions }),
    authorPostEntry: itemSize(authorPost!),
    timelineEntry: itemSize(publicEntry!),
    homeEntry: itemSize(
      homeEntryItem({ userId, postId: post.id, authorId: otherId, counterShards: shape.counterShards, expiresAt }),
    ),
    counterShard: itemSize({ ...shard!, reactions }),
    outboxAuthor: itemSize(outboxAuthorItem(userId)),
    task: itemSize({
      ...taskItem({ id: newId('tsk'), payload: { kind: 'fanOut', postId: post.id, authorId: userId } }, 4),
      leaseUntil: Date.now(),
      leaseToken: crypto.randomUUID(),
      attempts: 1,
      checkpoint: `000001763000000000#${otherId}`,
    }),
    likeRecord: itemSize(counterRecordItem(like, now)),
    likerEntry: itemSize(likerEntryItem(post.id, Date.now(), userId)),
    activity: itemSize(
      activityItem(userId, like, { kind: 'like', postId: post.id, counterShards: shape.counterShards }),
    ),
    repostRecord: itemSize(repost.record),
    reposterEntry: itemSize(repost.reposterEntry),
    userRepostEntry: itemSize(repost.ownEntry),
    repostHomeEntry: itemSize(repostHomeEntryItem(repostedEntry)),
    homeMarker: itemSize(homeMarkerItem(repostedEntry)),
    notificationGroup: itemSize(group(1)),
    recentActor: (itemSize(group(RECENT_ACTORS)) - itemSize(group(1))) / (RECENT_ACTORS - 1),
    fanOutProgress: itemSize(fanOutProgressItem(post.id, { fanOut: true, followers: 1234 })),
  };
}
