/** One kind of item and its keys; `<name>` stands for a value. */
export interface KeyDesignRow {
  item: string;
  pk: string;
  sk: string;
}

/**
 * Every kind of item the builders in keys.ts make. docs/reference/data-model.md is generated from
 * this list (`npm run docs`), and test/unit/keys.test.ts checks it against every builder.
 */
export const KEY_DESIGN: readonly KeyDesignRow[] = [
  {
    item: 'user profile (with `tokenGeneration`, `postCount`, `closedAt` once closed; on the embedded graph backend `followerCount`, `followingCount`)',
    pk: 'USER#<userId>',
    sk: 'PROFILE',
  },
  { item: 'login: password hash, or the linked provider identity', pk: 'USER#<userId>', sk: 'LOGIN' },
  { item: 'provider identity link', pk: 'IDENTITY#<issuer>#<subject>', sk: 'LINK' },
  { item: 'handle claim', pk: 'HANDLE#<handle>', sk: 'CLAIM' },
  {
    item: 'search index entry: a term of a user (the handle or a display-name word, folded) under each of its 1-3 character prefixes (`userId`)',
    pk: 'SEARCH#<prefix>',
    sk: '<term>#<userId>',
  },
  { item: 'session: a refresh token family (expires by TTL)', pk: 'SESSIONS#<userId>', sk: '<sessionId>' },
  { item: 'refresh token, by its SHA-256 (expires by TTL)', pk: 'REFRESH#<hash>', sk: 'TOKEN' },
  {
    item: 'failed password checks of a handle in one fixed window (expire by TTL)',
    pk: 'FAILS#handle#<handle>',
    sk: '<window start, epoch s>',
  },
  {
    item: 'failed password checks of a client address in one fixed window (expire by TTL)',
    pk: 'FAILS#address#<address>',
    sk: '<window start, epoch s>',
  },
  {
    item: 'password checks and sign-ups of a client address in one fixed window (expire by TTL)',
    pk: 'CHECKS#address#<address>',
    sk: '<window start, epoch s>',
  },
  {
    item: 'graph node: handle, interests, the following set and its `followingCount`, the relation sets (embedded graph backend)',
    pk: 'GNODE#<userId>',
    sk: 'NODE',
  },
  { item: 'follow edge (embedded graph backend)', pk: 'GNODE#<followerId>', sk: 'FOLLOWS#<followeeId>' },
  {
    item: 'following list entry, newest first (embedded graph backend)',
    pk: 'FOLLOWING#<userId>',
    sk: '<follow ms, 15 digits>#<followeeId>',
  },
  {
    item: 'followers list entry, newest first (embedded graph backend)',
    pk: 'FOLLOWERS#<userId>',
    sk: '<follow ms, 15 digits>#<followerId>',
  },
  { item: 'block edge (embedded graph backend)', pk: 'GNODE#<fromId>', sk: 'BLOCKS#<toId>' },
  { item: 'mute edge (embedded graph backend)', pk: 'GNODE#<fromId>', sk: 'MUTES#<toId>' },
  {
    item: "block made, in the blocker's relation list (embedded graph backend)",
    pk: 'BLOCKS#<userId>',
    sk: 'OUT#<ms, 15 digits>#<toId>',
  },
  {
    item: "block received, in the blocked user's relation list (embedded graph backend)",
    pk: 'BLOCKS#<userId>',
    sk: 'IN#<ms, 15 digits>#<fromId>',
  },
  {
    item: "mute made, in the muter's relation list (embedded graph backend)",
    pk: 'MUTES#<userId>',
    sk: 'OUT#<ms, 15 digits>#<toId>',
  },
  {
    item: "mute received, in the muted user's relation list (embedded graph backend)",
    pk: 'MUTES#<userId>',
    sk: 'IN#<ms, 15 digits>#<fromId>',
  },
  { item: 'post (with `counterShards` and `mentionIds`)', pk: 'POST#<postId>', sk: 'POST' },
  {
    item: 'counter shard of a hot post (`counterShards` > 1): `likeCount`, `viewCount`, `commentCount`, `repostCount`, `reactions`; a post with one keeps them on its item',
    pk: 'POST#<postId>',
    sk: 'COUNT#<n>',
  },
  {
    item: "fan-out progress (`Post.fanOut`: `state`, `delivered`, `total`, the task's `position`)",
    pk: 'POST#<postId>',
    sk: 'FANOUT',
  },
  { item: 'like record', pk: 'POST#<postId>', sk: 'LIKE#<userId>' },
  { item: 'likers list entry, newest first', pk: 'POST#<postId>', sk: 'LIKED#<like ms, 15 digits>#<userId>' },
  { item: 'unique view record', pk: 'POST#<postId>', sk: 'VIEW#<userId>' },
  { item: 'reaction record', pk: 'POST#<postId>', sk: 'REACT#<kind>#<userId>' },
  {
    item: 'repost record (`atMs`, `delivery`, `position`, `counterShards`)',
    pk: 'POST#<postId>',
    sk: 'REPOST#<userId>',
  },
  { item: 'reposters list entry, newest first', pk: 'POST#<postId>', sk: 'REPOSTED#<repost ms, 15 digits>#<userId>' },
  { item: "author's posts entry", pk: 'POSTS#<authorId>', sk: '<postId>' },
  { item: "user's repost entry (merged into `User.posts`)", pk: 'REPOSTS#<userId>', sk: '<repost position>' },
  {
    item: 'home timeline entry (`postId`, `authorId`, `counterShards`, `repostedBy`; once a second reason arrives, the reasons: `original`, `reposters`, and on an original entry `version`); expires by TTL at its position + HOME_RETENTION_DAYS',
    pk: 'HOME#<userId>',
    sk: '<feed position>',
  },
  {
    item: 'home repost marker: where a repost placed the post, and its reasons (`position`, `authorId`, `original`, `reposters`, `repostedBy`, `version`); expires by TTL with its entry',
    pk: 'HOMEMARKS#<userId>',
    sk: '<postId>',
  },
  {
    item: "outbox entry of an author or reposter who is not fanned out (a repost's with `repostedBy`)",
    pk: 'OUTBOX#<authorId>',
    sk: '<feed position>',
  },
  { item: 'registry of outbox authors', pk: 'OUTBOXES', sk: '<authorId>' },
  { item: 'tag timeline entry', pk: 'TAG#<tag>#<shard>', sk: '<postId>' },
  { item: 'public timeline entry', pk: 'PUBLIC#<shard>', sk: '<postId>' },
  {
    item: 'tag count of one hour, one shard: `count` posts, `lastUsedMs` (expires by TTL); a day of a shard is one partition',
    pk: 'TRENDS#<day since epoch>#<shard>',
    sk: '<hour of day, 2 digits>#<tag>',
  },
  { item: 'tag total, one shard (`tag`, `count`)', pk: 'TAGS#<first character of tag>', sk: '<tag>#<shard>' },
  { item: 'top-level comment list entry, oldest first', pk: 'COMMENTS#<postId>', sk: '<commentId>' },
  {
    item: 'reply list entry, oldest first among its siblings (`path`: the ids from the top-level comment to its parent, `#`-separated)',
    pk: 'COMMENTS#<postId>',
    sk: 'R<depth>#<path>#<replyId>',
  },
  { item: 'comment (for `node(id)`)', pk: 'COMMENT#<commentId>', sk: 'COMMENT' },
  { item: 'queued task', pk: 'QUEUE#<shard>', sk: '<taskId>' },
  { item: 'dead-letter task (failed `QUEUE_MAX_ATTEMPTS` times)', pk: 'DEADLETTER', sk: '<taskId>' },
  { item: 'idempotency claim (expires by TTL)', pk: 'IDEM#<userId>', sk: '<operation>#<key>' },
  {
    item: "activity: a like, view, reaction, comment or repost record a user wrote (for deleting the account; a comment's, `COMMENTS#<postId>#<commentId>`, also for checking its notifications)",
    pk: 'ACTIVITY#<userId>',
    sk: '<record pk>#<record sk>',
  },
  {
    item: 'notification group about a post (`kind`, `postId`, `actorCount`, `updatedAtMs`, `unread`, `version`, `generation`)',
    pk: 'NOTIFS#<userId>',
    sk: 'GROUP#<kind>#<postId>',
  },
  {
    item: 'notification group of the follows of one day (UTC)',
    pk: 'NOTIFS#<userId>',
    sk: 'GROUP#FOLLOW#<YYYY-MM-DD>',
  },
  {
    item: 'notification member: which group an actor is in (how an undo finds it)',
    pk: 'NOTIFS#<userId>',
    sk: 'MEMBER#<kind>#<postId or ->#<actorId>',
  },
  {
    item: "notification group's actor entry, newest first",
    pk: 'NOTIFS#<userId>',
    sk: 'ACTORS#<groupKey>#<generation>#<ms, 15 digits>#<actorId>',
  },
  {
    item: 'notification list entry, moved when its group is updated',
    pk: 'NOTIFS#<userId>',
    sk: 'AT#<updated ms, 15 digits>#<groupKey>',
  },
  { item: "unread and group counts of a user's notifications", pk: 'NOTIFS#<userId>', sk: 'STATE' },
  {
    item: 'a notification member seen from its actor: the index of groups by actor (blocks, mutes, account deletion)',
    pk: 'NOTIFIED#<actorId>',
    sk: '<recipientId>#<kind>#<postId or ->',
  },
  { item: 'none: the key `/healthz` reads to see that the table answers', pk: 'HEALTH', sk: 'PROBE' },
];
