import type { RelationKind } from '../graph/graph-store.js';

/**
 * The DynamoDB key design, in one place. Everything lives in one table with a string
 * partition key `pk` and a string sort key `sk`; no other module builds key strings.
 */
export interface Key {
  pk: string;
  sk: string;
}

/**
 * Conditions on a profile key: an account's profile has a handle, while follow counts written to the key
 * after the profile's deletion (an unfollow of the account being deleted) have none.
 */
export const PROFILE_EXISTS = 'attribute_exists(handle)';
export const PROFILE_ABSENT = 'attribute_not_exists(handle)';
/** A profile that deleteAccount has not closed: what the account's own writes need (a profile edit, a new post). */
export const PROFILE_OPEN = `${PROFILE_EXISTS} AND attribute_not_exists(closedAt)`;

export const keys = {
  /** The profile, with its follow counts (written by the graph store, see docs/design/graph.md#follow-counts). */
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  handle: (handle: string): Key => ({ pk: `HANDLE#${handle}`, sk: 'CLAIM' }),
  /** A user's term under one of its prefixes: a Query of the prefix's partition with `begins_with` finds the users. */
  searchEntry: (prefix: string, term: string, userId: string): Key => ({
    pk: partitions.search(prefix),
    sk: `${term}#${userId}`,
  }),
  /** Kept apart from the profile, so that the password hash never travels with a user record. */
  login: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'LOGIN' }),
  /** Finds the account of a provider's token; one per issuer and subject. */
  identityLink: (issuer: string, subject: string): Key => ({ pk: `IDENTITY#${issuer}#${subject}`, sk: 'LINK' }),
  /** Under the account, so that deleting it finds every session. */
  session: (userId: string, sessionId: string): Key => ({ pk: partitions.sessions(userId), sk: sessionId }),
  refreshToken: (tokenHash: string): Key => ({ pk: `REFRESH#${tokenHash}`, sk: 'TOKEN' }),
  /** Failed password checks of one handle or one client address, or (`checks`) every password check and sign-up of an address, in one fixed window. */
  signInAttempts: (scope: 'handle' | 'address' | 'checks', subject: string, windowStart: number): Key => ({
    pk: scope === 'checks' ? `CHECKS#address#${subject}` : `FAILS#${scope}#${subject}`,
    sk: String(windowStart),
  }),
  /** The embedded graph backend's copy of a user: handle, interests, its following set and count, its relation sets. */
  graphNode: (userId: string): Key => ({ pk: `GNODE#${userId}`, sk: 'NODE' }),
  /** One per follow, next to the follower's node: the existence check (and the follow time) for a pair. */
  followEdge: (followerId: string, followeeId: string): Key => ({
    pk: `GNODE#${followerId}`,
    sk: `FOLLOWS#${followeeId}`,
  }),
  /** The partitions of a user's following and followers lists; sort keys are followListPosition, read newest first. */
  followingList: (userId: string): string => `FOLLOWING#${userId}`,
  followersList: (userId: string): string => `FOLLOWERS#${userId}`,
  /** Zero-padded follow time then the other user's id: sorts by time, ties by id. */
  followListPosition: (atMs: number, otherId: string): string => `${String(atMs).padStart(15, '0')}#${otherId}`,
  /** One per block or mute, next to the node of the user who made it: the existence check for a pair. */
  relationEdge: (kind: RelationKind, fromId: string, toId: string): Key => ({
    pk: `GNODE#${fromId}`,
    sk: `${RELATION_PREFIX[kind]}#${toId}`,
  }),
  /**
   * The partition of a user's blocks (or mutes), made and received in one, so that one Query
   * reads every block either way; a sort key is the direction then a followListPosition.
   */
  relationList: (kind: RelationKind, userId: string): string => `${RELATION_PREFIX[kind]}#${userId}`,
  relationListPosition: (direction: RelationDirection, position: string): string => `${direction}#${position}`,
  /** Counters of a post, spread over `n` shards so that no single item takes every write. */
  counterShard: (postId: string, shard: number): Key => ({ pk: `POST#${postId}`, sk: `COUNT#${shard}` }),
  like: (postId: string, userId: string): Key => ({ pk: `POST#${postId}`, sk: `LIKE#${userId}` }),
  /** Who liked a post, newest first: written and deleted with the like record, whose `at` gives its position. */
  likeListEntry: (postId: string, atMs: number, userId: string): Key => ({
    pk: `POST#${postId}`,
    sk: `${listPrefixes.likers}${keys.followListPosition(atMs, userId)}`,
  }),
  repost: (postId: string, userId: string): Key => ({ pk: `POST#${postId}`, sk: `REPOST#${userId}` }),
  /** Who reposted a post, newest first: written and deleted with the repost record. */
  repostListEntry: (postId: string, atMs: number, userId: string): Key => ({
    pk: `POST#${postId}`,
    sk: `${listPrefixes.reposters}${keys.followListPosition(atMs, userId)}`,
  }),
  /** The user's reposts, merged into the user's posts (User.posts) as entries with a reason. */
  userRepost: (userId: string, position: string): Key => ({ pk: partitions.userReposts(userId), sk: position }),
  view: (postId: string, userId: string): Key => ({ pk: `POST#${postId}`, sk: `VIEW#${userId}` }),
  reaction: (postId: string, kind: string, userId: string): Key => ({
    pk: `POST#${postId}`,
    sk: `REACT#${kind}#${userId}`,
  }),
  post: (postId: string): Key => ({ pk: partitions.post(postId), sk: 'POST' }),
  /** How far the post's fan-out has got (Post.fanOut); in the post's partition, so that it goes with the post. */
  fanOutProgress: (postId: string): Key => ({ pk: partitions.post(postId), sk: 'FANOUT' }),
  authorPost: (authorId: string, postId: string): Key => ({ pk: partitions.authorPosts(authorId), sk: postId }),
  /** At the post's feed position (see feedPosition in src/stores/timeline-store.ts): its id for an original entry, the repost's position for a repost entry. */
  homeEntry: (userId: string, position: string): Key => ({ pk: partitions.home(userId), sk: position }),
  /**
   * Where a repost put the post in the user's home timeline (the entry's position) and every reason
   * it is there: one per (user, post), so that the post is there once, and so that removals find
   * its entry. An original entry (at the post id) holds its reasons itself and has no marker.
   */
  homeMarker: (userId: string, postId: string): Key => ({ pk: partitions.homeMarkers(userId), sk: postId }),
  outboxEntry: (authorId: string, position: string): Key => ({ pk: partitions.outbox(authorId), sk: position }),
  /** Registry of authors whose posts are merged into home timelines at read time instead of fanned out. */
  outboxAuthor: (authorId: string): Key => ({ pk: partitions.outboxAuthors(), sk: authorId }),
  tagEntry: (tag: string, shard: number, postId: string): Key => ({ pk: partitions.tag(tag, shard), sk: postId }),
  publicEntry: (shard: number, postId: string): Key => ({ pk: partitions.public(shard), sk: postId }),
  /**
   * A tag's count in one hour and shard (by post id, as hot counters are spread). A day of a shard is one
   * partition, its hours in order: trendingTags reads a window's days a Query each, newest hour first.
   */
  trendCount: (hour: number, shard: number, tag: string): Key => ({
    pk: partitions.trends(Math.floor(hour / 24), shard),
    sk: `${trendHourPrefix(hour)}${tag}`,
  }),
  /** A tag's all-time count, one item per shard, next to the tags that share its first character: searchTags Queries by prefix. */
  tagTotal: (tag: string, shard: number): Key => ({ pk: partitions.tagTotals(tag), sk: `${tag}#${shard}` }),
  commentEntry: (postId: string, commentId: string): Key => ({ pk: partitions.comments(postId), sk: commentId }),
  /** Where a comment's list entry is: among the post's top-level comments, or among its parent's replies. */
  threadEntry: (comment: { postId: string; id: string; ancestorIds: readonly string[] }): Key =>
    comment.ancestorIds.length === 0
      ? keys.commentEntry(comment.postId, comment.id)
      : { pk: partitions.comments(comment.postId), sk: replyPrefix(comment.ancestorIds) + comment.id },
  comment: (commentId: string): Key => ({ pk: `COMMENT#${commentId}`, sk: 'COMMENT' }),
  task: (shard: number, taskId: string): Key => ({ pk: partitions.queue(shard), sk: taskId }),
  /** A task that failed QUEUE_MAX_ATTEMPTS times, kept for inspection and replay instead of retried forever. */
  deadTask: (taskId: string): Key => ({ pk: partitions.deadLetter(), sk: taskId }),
  /** What a user's create with this idempotency key created, so that a retry returns it instead of creating again. */
  idempotencyClaim: (userId: string, operation: 'createPost' | 'addComment', key: string): Key => ({
    pk: partitions.idempotencyClaims(userId),
    sk: `${operation}#${key}`,
  }),
  /**
   * One per record a user's like, view, reaction, comment or repost wrote on a post, written and deleted
   * with that record: how deleting the account finds what it must take back from other people's posts.
   */
  activity: (userId: string, record: Key): Key => ({
    pk: partitions.activity(userId),
    sk: `${record.pk}#${record.sk}`,
  }),
  /** A recipient's notification group; everything of a recipient's notifications is in one partition. */
  notificationGroup: (userId: string, groupKey: string): Key => ({
    pk: partitions.notifications(userId),
    sk: `${notificationPrefixes.group}${groupKey}`,
  }),
  /** That the actor is in a group of this kind and post (FOLLOW: any day's), and where: how an undo finds the actor. */
  notificationMember: (userId: string, kind: string, postId: string | null, actorId: string): Key => ({
    pk: partitions.notifications(userId),
    sk: `${notificationPrefixes.member}${kind}#${postId ?? '-'}#${actorId}`,
  }),
  /** A group's actors, newest first; the generation keeps a trimmed group's leftovers out of a new group of the same key. */
  notificationActorEntry: (
    userId: string,
    groupKey: string,
    generation: string,
    atMs: number,
    actorId: string,
  ): Key => ({
    pk: partitions.notifications(userId),
    sk: `${notificationPrefixes.actors(groupKey, generation)}${keys.followListPosition(atMs, actorId)}`,
  }),
  /** A group's place in the recipient's list, by its newest actor's time: moved when that changes. */
  notificationListEntry: (userId: string, position: string): Key => ({
    pk: partitions.notifications(userId),
    sk: position,
  }),
  notificationPosition: (updatedAtMs: number, groupKey: string): string =>
    `${notificationPrefixes.list}${String(updatedAtMs).padStart(15, '0')}#${groupKey}`,
  /** The recipient's unread count and group count, written with every group change. */
  notificationState: (userId: string): Key => ({ pk: partitions.notifications(userId), sk: 'STATE' }),
  /**
   * A member item seen from its actor, written and removed with it: how a block, a mute or the
   * actor's account deletion finds the groups the actor is in (of one recipient, or of everyone).
   */
  notifiedBy: (actorId: string, recipientId: string, kind: string, postId: string | null): Key => ({
    pk: partitions.notified(actorId),
    sk: `${recipientId}#${kind}#${postId ?? '-'}`,
  }),
  /** The notifiedBy item of a recipient's member item (by its sort key). */
  notifiedByOfMember: (recipientId: string, memberSk: string): Key => {
    const [, kind, postId, actorId] = memberSk.split('#') as [string, string, string, string];
    return keys.notifiedBy(actorId, recipientId, kind, postId === '-' ? null : postId);
  },
  /** A key no item ever has: reading it tells that the table answers (see checkHealth). */
  healthProbe: (): Key => ({ pk: 'HEALTH', sk: 'PROBE' }),
};

/** Sort key prefixes inside a recipient's notifications partition. */
export const notificationPrefixes = {
  group: 'GROUP#',
  member: 'MEMBER#',
  list: 'AT#',
  actors: (groupKey: string, generation: string) => `ACTORS#${groupKey}#${generation}#`,
};

/**
 * The items the cache keeps (see docs/design/cache.md): user profiles, posts and counter shards, read by
 * every page that shows them. The graph store's own reads (nodes, edges) are never cached.
 */
export type CachedKind = 'user' | 'post' | 'counter';

export function cachedKindOf(key: Key): CachedKind | null {
  if (key.sk === 'PROFILE' && key.pk.startsWith('USER#')) return 'user';
  if (key.sk === 'POST' && key.pk.startsWith('POST#')) return 'post';
  if (key.sk.startsWith('COUNT#') && key.pk.startsWith('POST#')) return 'counter';
  return null;
}

const RELATION_PREFIX = { blocks: 'BLOCKS', mutes: 'MUTES' } as const satisfies Record<RelationKind, string>;

/** A relation list entry's side: made by the list's user (OUT) or received (IN). 'IN' sorts before 'OUT'. */
export type RelationDirection = 'OUT' | 'IN';

/** Partition keys of the item collections that are read with Query; sort keys are the ids above. */
export const partitions = {
  /** The post, its counter shards and its like/view/reaction records: deleting a post clears this partition. */
  post: (postId: string) => `POST#${postId}`,
  authorPosts: (authorId: string) => `POSTS#${authorId}`,
  home: (userId: string) => `HOME#${userId}`,
  homeMarkers: (userId: string) => `HOMEMARKS#${userId}`,
  outbox: (authorId: string) => `OUTBOX#${authorId}`,
  outboxAuthors: () => 'OUTBOXES',
  tag: (tag: string, shard: number) => `TAG#${tag}#${shard}`,
  public: (shard: number) => `PUBLIC#${shard}`,
  search: (prefix: string) => `SEARCH#${prefix}`,
  tagTotals: (tag: string) => `TAGS#${Array.from(tag)[0] ?? ''}`,
  /** One day (UTC, since the epoch) of one shard's tag counts (trendCount). */
  trends: (day: number, shard: number) => `TRENDS#${day}#${shard}`,
  comments: (postId: string) => `COMMENTS#${postId}`,
  queue: (shard: number) => `QUEUE#${shard}`,
  deadLetter: () => 'DEADLETTER',
  sessions: (userId: string) => `SESSIONS#${userId}`,
  idempotencyClaims: (userId: string) => `IDEM#${userId}`,
  activity: (userId: string) => `ACTIVITY#${userId}`,
  userReposts: (userId: string) => `REPOSTS#${userId}`,
  notifications: (userId: string) => `NOTIFS#${userId}`,
  notified: (actorId: string) => `NOTIFIED#${actorId}`,
};

/** Partition key prefixes of items the service no longer writes, for the migrations that remove them. */
export const retiredPrefixes = {
  /** A home timeline's sampled size estimate (`HOMESIZE#<userId>` / `SIZE`), from when timelines were trimmed to a size. */
  homeSize: 'HOMESIZE#',
};

/** The sort key prefix of the replies to the comment whose path (top-level comment first, itself last) is `path`. */
export function replyPrefix(path: readonly string[]): string {
  return `R${path.length}#${path.join('#')}#`;
}

/** The start of the sort keys of an hour's tag counts in its day's partition: the hour of the day, two digits. */
export function trendHourPrefix(hour: number): string {
  return `${String(hour % 24).padStart(2, '0')}#`;
}

/** The top-level comments' sort keys are their ids; every reply's starts with `R`, which sorts before them. */
export const TOP_LEVEL_PREFIX = 'cmt_';

/** Sort key prefixes of the newest-first user lists inside a post's partition (likeListEntry, repostListEntry). */
export const listPrefixes = {
  likers: 'LIKED#',
  reposters: 'REPOSTED#',
};

/**
 * The items that counters are checked against, recognised from their keys (the inverse of
 * the builders above, for the counter audit that scans the table).
 */
export type CountedItem =
  | { kind: 'user'; userId: string }
  | { kind: 'authorPost'; authorId: string }
  | { kind: 'graphNode'; userId: string }
  | { kind: 'followEdge'; followerId: string; followeeId: string }
  | { kind: 'followListEntry' }
  | { kind: 'post'; postId: string }
  | { kind: 'counterShard'; postId: string; shard: number }
  | { kind: 'like' | 'view' | 'repost'; postId: string }
  | { kind: 'reaction'; postId: string; reaction: string }
  | { kind: 'commentEntry'; postId: string; parentId: string | null }
  | { kind: 'comment'; commentId: string };

export function classifyKey({ pk, sk }: Key): CountedItem | null {
  const [prefix, id = ''] = splitOnce(pk);
  switch (prefix) {
    case 'USER':
      return sk === 'PROFILE' ? { kind: 'user', userId: id } : null;
    case 'POSTS':
      return { kind: 'authorPost', authorId: id };
    case 'COMMENTS': {
      const path = sk.startsWith('R') ? sk.split('#').slice(1) : [];
      return { kind: 'commentEntry', postId: id, parentId: path.at(-2) ?? null };
    }
    case 'COMMENT':
      return sk === 'COMMENT' ? { kind: 'comment', commentId: id } : null;
    case 'FOLLOWING':
    case 'FOLLOWERS':
      return { kind: 'followListEntry' };
    case 'GNODE': {
      if (sk === 'NODE') return { kind: 'graphNode', userId: id };
      const [edge, followeeId = ''] = splitOnce(sk);
      return edge === 'FOLLOWS' ? { kind: 'followEdge', followerId: id, followeeId } : null;
    }
    case 'POST': {
      if (sk === 'POST') return { kind: 'post', postId: id };
      const [record, rest = ''] = splitOnce(sk);
      if (record === 'COUNT') return { kind: 'counterShard', postId: id, shard: Number(rest) };
      if (record === 'LIKE') return { kind: 'like', postId: id };
      if (record === 'VIEW') return { kind: 'view', postId: id };
      if (record === 'REPOST') return { kind: 'repost', postId: id };
      if (record === 'REACT') return { kind: 'reaction', postId: id, reaction: splitOnce(rest)[0] };
      return null;
    }
    default:
      return null;
  }
}

function splitOnce(value: string): [string, string?] {
  const at = value.indexOf('#');
  return at < 0 ? [value] : [value.slice(0, at), value.slice(at + 1)];
}

export function tableName(prefix: string): string {
  return `${prefix}main`;
}
