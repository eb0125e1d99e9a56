import { shardsForWriteRate } from '../usecases/counter-heat.js';
import { placePost } from '../usecases/posts.js';
import { blocksBetween } from '../usecases/relationships.js';
import { OUTBOXES_READ_BEFORE_CHECK } from '../usecases/feeds/home.js';
import { ACTIVITY_RANGE_MAX_ITEMS } from '../stores/dynamo/activity-ranges.js';
import { RECENT_ACTORS } from '../stores/notification-store.js';
import {
  PARTITION_LIMITS,
  SECONDS_PER_DAY,
  SMALL_ITEM_WRITE_UNITS,
  SECONDS_PER_MONTH,
  STORAGE_OVERHEAD_BYTES,
  TTL_DELETION_LAG_DAYS,
  readUnits,
  writeUnits,
} from './dynamodb-capacity.js';
import type { CapacityLine, HotSpot, ModelInput, ModelResult, StorageLine } from './model-types.js';
import { notificationCosts, notificationGroupBytes } from './notifications.js';

/**
 * A steady-state cost and hot-spot model of the service on DynamoDB on-demand. Pure arithmetic on the service's
 * own placement rules and measured item sizes; docs/scaling.md explains every figure.
 */

export function runModel(input: ModelInput): ModelResult {
  const { followers, workload: w, settings: s, sizes } = input;
  const users = sum(followers, (b) => b.users);
  const follows = sum(followers, (b) => b.users * b.followers);
  const placed = followers.map((b) => ({ ...b, ...placePost(b.followers, s) }));
  const top = placed.reduce((a, b) => (b.followers > a.followers ? b : a));
  const outboxAuthors = sum(placed, (b) => (b.fanOut ? 0 : b.users));
  const largestFanOut = Math.max(0, ...placed.filter((b) => b.fanOut).map((b) => b.followers));
  const hotAuthors = sum(placed, (b) => (b.counterShards > 1 ? b.users : 0));

  // Posts are spread over users regardless of popularity (as the seed draws them), so a post's
  // expected placement is the average over users.
  const perPost = (f: (b: (typeof placed)[number]) => number) => sum(placed, (b) => b.users * f(b)) / users;
  const fanOutShare = perPost((b) => (b.fanOut ? 1 : 0));
  const entriesPerPost = perPost((b) => (b.fanOut ? b.followers : 0));
  // A post with one shard keeps its counts on its item; a hot post has separate shards.
  const separateShardsPerPost = perPost((b) => (b.counterShards > 1 ? b.counterShards : 0));
  const followerPages = (n: number) => Math.ceil(n / s.fanoutPageSize);
  /** Pages of followers a fan-out reads (one, empty, for an author without followers). */
  const pagesPerPost = perPost((b) => (b.fanOut ? Math.max(1, followerPages(b.followers)) : 0));
  const followerReadUnitsPerPost = perPost((b) => {
    if (!b.fanOut) return 0;
    const full = Math.floor(b.followers / s.fanoutPageSize);
    const rest = b.followers - full * s.fanoutPageSize;
    return (
      full * readUnits(s.fanoutPageSize * sizes.followListEntry) +
      (rest > 0 || full === 0 ? readUnits(rest * sizes.followListEntry) : 0)
    );
  });
  // A home page shows posts in proportion to their authors' followers, and likes and reposts follow what pages show.
  const byEntries = (f: (b: (typeof placed)[number]) => number) =>
    follows === 0 ? 0 : sum(placed, (b) => b.users * b.followers * f(b)) / follows;
  const separateShardsPerHomeEntry = byEntries((b) => (b.counterShards > 1 ? b.counterShards : 0));
  const hotEntryShare = byEntries((b) => (b.counterShards > 1 ? 1 : 0));
  const followedOutboxAuthors = sum(placed, (b) => (b.fanOut ? 0 : b.users * b.followers)) / users;

  const active = users * w.activeShare;
  const perSecond = (perDay: number) => (active * perDay) / SECONDS_PER_DAY;
  const posts = perSecond(w.postsPerDay);
  const homeReads = perSecond(w.homeReadsPerDay);
  const likes = perSecond(w.likesPerDay);
  const reposts = perSecond(w.repostsPerDay);
  const followsMade = perSecond(w.followsPerDay);
  const entries = posts * entriesPerPost;
  // A repost is placed by its reposter's followers as a post by its author's (placePost), and reposters are spread
  // over users like authors; each delivered repost also gets an entry in the reposter's own timeline.
  const repostEntries = reposts * (entriesPerPost + 1);

  const bulk = (bytes: number) => writeUnits(bytes) * (s.bulkWriteApi === 'transactWrite' ? 2 : 1);
  const transact = (bytes: number) => 2 * writeUnits(bytes);
  // A repost's entry is placed with its marker in one transaction; a receiver that holds the post already gains a
  // reason instead (one update, or a transaction of two where a marker holds it), not modelled.
  const repostPlacement = transact(sizes.repostHomeEntry) + transact(sizes.homeMarker);
  // Posts an average user has written: a follow reads the newest FOLLOW_BACKFILL_POSTS, and copies those of the last
  // HOME_RETENTION_DAYS.
  const postsPerAuthor = w.activeShare * w.postsPerDay * w.retentionDays;
  const backfillRead = Math.min(s.followBackfillPosts, postsPerAuthor);
  const backfilled = Math.min(backfillRead, w.activeShare * w.postsPerDay * s.homeRetentionDays);
  const homeEntriesWritten = entries + followsMade * backfilled;
  // Every entry delivered to a home timeline, posts' and reposts' alike; each expires by TTL, deleted for free.
  const deliveredEntries = homeEntriesWritten + repostEntries;
  // viewerHasLiked and viewerHasReposted: one Query of the reader's activity between the page's oldest and newest
  // post, which holds the reader's likes and reposts of posts written in the time a page spans.
  const entriesPerReaderPerDay =
    users === 0 ? 0 : ((deliveredEntries + posts) * SECONDS_PER_DAY) / (users * w.activeShare);
  const pageSpanDays = entriesPerReaderPerDay === 0 ? 0 : w.pageSize / entriesPerReaderPerDay;
  const activityPerPage = Math.min(ACTIVITY_RANGE_MAX_ITEMS, (w.likesPerDay + w.repostsPerDay) * pageSpanDays);
  // The share of home entries that are reposts: each brings its reposter to the page, to hydrate and to check.
  const repostShare = deliveredEntries + posts === 0 ? 0 : repostEntries / (deliveredEntries + posts);
  const pageUsers = w.pageSize * (1 + repostShare);
  // The block check of a repost or mention, per user; a home page's rules (blocks both ways and the viewer's mutes of
  // every user on it) are answered by the viewer's graph node, whose relation sets hold them (one read).
  const blockChecksPerUser = blocksBetween('actor', ['other']).length;
  // A relation edge is mostly missing: a strongly consistent read of nothing, the minimum.
  const relationRead = readUnits(0, true);

  // A fan-out task: enqueued with its post (transaction), claimed, a checkpoint after each page but the last, completed: 1 + pages standard writes.
  // A backfill task: enqueued after the follow, claimed, completed.
  // A repost's fan-out task: the same, enqueued with the repost.
  const fanOutTasks = posts + reposts;
  // A like lands on a post as pages show it, in proportion to its author's followers; the group it joins holds the
  // post's likes before it, half of them on average.
  const meanFollowers = follows / Math.max(1, users);
  const likesPerPost = posts === 0 ? 0 : likes / posts;
  const actorsOnLikeOf = (followers: number) =>
    Math.min(RECENT_ACTORS, (likesPerPost * followers) / Math.max(1, meanFollowers) / 2);
  const actorsOnLike = byEntries((b) => actorsOnLikeOf(b.followers));
  const notifications = notificationCosts(
    { likes, reposts, mentions: posts * w.mentionsPerPost, follows: followsMade },
    sizes,
    actorsOnLike,
  );
  const queueWriteUnits =
    fanOutTasks * fanOutShare * transact(sizes.task) +
    fanOutTasks * (fanOutShare + pagesPerPost) * writeUnits(sizes.task) +
    followsMade * 3 * writeUnits(sizes.task) +
    // A notify task: enqueued in its action's transaction, claimed and completed.
    notifications.tasks * (transact(sizes.task) + 2 * writeUnits(sizes.task));

  const lines: CapacityLine[] = [
    {
      item: 'post',
      by: "createPost (transaction); fan-out (at the start and after each page); repost (the post, strongly), its fan-out's checks; home reads (the page's posts)",
      writeUnitsPerSecond: posts * transact(sizes.post),
      readUnitsPerSecond:
        (posts + reposts) * (fanOutShare + pagesPerPost) * readUnits(sizes.post, true) +
        reposts * readUnits(sizes.post, true) +
        homeReads * w.pageSize * readUnits(sizes.post),
    },
    {
      item: 'fan-out progress and tag counts',
      by: "createPost (transaction: the post's progress record, and each tag's hourly and total counts); fan-out (the progress after each page)",
      writeUnitsPerSecond:
        posts * (transact(sizes.fanOutProgress) + 2 * w.tagsPerPost * 2 * SMALL_ITEM_WRITE_UNITS) +
        posts * pagesPerPost * writeUnits(sizes.fanOutProgress),
      readUnitsPerSecond: 0,
    },
    {
      item: "author's posts entry",
      by: 'createPost',
      writeUnitsPerSecond: posts * transact(sizes.authorPostEntry),
      readUnitsPerSecond: followsMade * readUnits(backfillRead * sizes.authorPostEntry),
    },
    {
      item: 'public and tag entries',
      by: 'createPost',
      writeUnitsPerSecond: posts * (1 + w.tagsPerPost) * transact(sizes.timelineEntry),
      readUnitsPerSecond: 0,
    },
    {
      item: 'outbox entry and registry',
      by: 'createPost and repost (authors and reposters not fanned out); home reads',
      writeUnitsPerSecond:
        posts * (1 - fanOutShare) * (transact(sizes.timelineEntry) + transact(sizes.outboxAuthor)) +
        reposts * (1 - fanOutShare) * (transact(sizes.userRepostEntry) + transact(sizes.outboxAuthor)),
      readUnitsPerSecond:
        homeReads *
          (outboxAuthors <= OUTBOXES_READ_BEFORE_CHECK ? outboxAuthors : followedOutboxAuthors) *
          readUnits((w.pageSize + 1) * sizes.timelineEntry) +
        ((w.apiInstances * 1000) / Math.max(1, s.outboxAuthorsTtlMs)) * readUnits(outboxAuthors * sizes.outboxAuthor),
    },
    {
      item: 'user profile and handle claim',
      by: "createPost (postCount; mentions: each handle's claim, strongly); home reads (account check, authors, reposters)",
      writeUnitsPerSecond: posts * transact(sizes.user),
      readUnitsPerSecond:
        homeReads * (1 + pageUsers) * readUnits(sizes.user) +
        posts * w.mentionsPerPost * readUnits(sizes.handleClaim, true),
    },
    {
      item: 'home entry',
      by: "createPost (the author's own), fan-out and backfill (bulk), repost fan-out (a transaction each: the entry and its marker); home reads; what receivers hold (entry and marker, strongly) before a backfill or repost delivery, and the post's reposters before each fan-out page; expiry after HOME_RETENTION_DAYS: TTL deletes, free",
      writeUnitsPerSecond:
        posts * transact(sizes.homeEntry) +
        homeEntriesWritten * bulk(sizes.homeEntry) +
        repostEntries * repostPlacement,
      // A post's own fan-out reads its reposters (Limit 1) per page and, finding none as nearly always, skips the holdings read.
      readUnitsPerSecond:
        homeReads * readUnits((w.pageSize + 1) * sizes.homeEntry) +
        (repostEntries + followsMade * backfilled) * 2 * readUnits(0, true) +
        posts * pagesPerPost * readUnits(0, true),
    },
    {
      item: "counts: the post item's, or a hot post's counter shards",
      by: "likes and reposts (the post item while it has one shard, else a shard); createPost (a hot post's shards); home reads (a hot post's shards: other counts come with the post)",
      writeUnitsPerSecond:
        posts * separateShardsPerPost * transact(sizes.counterShard) +
        (likes + reposts) * ((1 - hotEntryShare) * transact(sizes.post) + hotEntryShare * transact(sizes.counterShard)),
      readUnitsPerSecond: homeReads * w.pageSize * separateShardsPerHomeEntry * readUnits(sizes.counterShard),
    },
    {
      item: 'like record, likers entry and activity',
      by: "likePost (transaction); home reads (viewerHasLiked and viewerHasReposted: one Query of the reader's activity)",
      writeUnitsPerSecond: likes * (transact(sizes.likeRecord) + transact(sizes.likerEntry) + transact(sizes.activity)),
      readUnitsPerSecond: homeReads * readUnits(activityPerPage * sizes.activity) + likes * readUnits(sizes.post, true),
    },
    {
      item: "repost record, reposters entry, reposter's entry and activity",
      by: 'repost (transaction); repost fan-out (still reposted? at the start and after each page, strongly)',
      writeUnitsPerSecond:
        reposts *
        (transact(sizes.repostRecord) +
          transact(sizes.reposterEntry) +
          transact(sizes.userRepostEntry) +
          transact(sizes.activity)),
      readUnitsPerSecond: reposts * (fanOutShare + pagesPerPost) * readUnits(sizes.repostRecord, true),
    },
    {
      item: 'queued task',
      by: 'createPost, repost, follow; the worker (claim, a checkpoint after each page but the last, completion; polling)',
      writeUnitsPerSecond: queueWriteUnits,
      readUnitsPerSecond: w.pollingWorkers * s.queueShards * (1000 / s.queuePollMs) * readUnits(0),
    },
    {
      item: "follow edge, list entries, follower's graph node, both profiles' counts",
      by: "follow (transaction); fan-out and repost fan-out (followers pages); backfill (follow checks); createPost and repost (the author's or reposter's counts, on the profile)",
      writeUnitsPerSecond:
        followsMade *
        (transact(sizes.followEdge) +
          2 * transact(sizes.followListEntry) +
          transact(sizes.graphNode) +
          2 * transact(sizes.user)),
      readUnitsPerSecond:
        (posts + reposts) * (followerReadUnitsPerPost + readUnits(sizes.user, true)) +
        followsMade * 2 * readUnits(sizes.followEdge, true),
    },
    {
      item: 'block and mute edges',
      by: 'like, repost and mentions (blocks both ways); strongly consistent',
      writeUnitsPerSecond: 0,
      readUnitsPerSecond: (likes + reposts + posts * w.mentionsPerPost) * blockChecksPerUser * relationRead,
    },
    notifications.line,
    {
      item: "graph node: the viewer's relation sets",
      by: "home reads: the rules' blocks either way and mutes of every author and reposter, from the reader's relation sets (one item, strongly consistent)",
      writeUnitsPerSecond: 0,
      readUnitsPerSecond: homeReads * readUnits(sizes.graphNode, true),
    },
    {
      item: 'graph node: outbox check',
      by: "home reads: which registered outbox authors the reader follows, from the reader's following set (one item, strongly consistent)",
      writeUnitsPerSecond: 0,
      readUnitsPerSecond: outboxAuthors > 0 ? homeReads * readUnits(sizes.graphNode, true) : 0,
    },
  ];

  const retentionSeconds = w.retentionDays * SECONDS_PER_DAY;
  const postsKept = posts * retentionSeconds;
  const likesKept = likes * retentionSeconds;
  const repostsKept = reposts * retentionSeconds;
  // Home timelines hold what they received over HOME_RETENTION_DAYS, and what expired but TTL has not deleted yet.
  const homeSeconds = Math.min(w.retentionDays, s.homeRetentionDays + TTL_DELETION_LAG_DAYS) * SECONDS_PER_DAY;
  const originalsKept = (homeEntriesWritten + posts) * homeSeconds;
  const repostEntriesKept = repostEntries * homeSeconds;
  const stored = (item: string, count: number, bytes: number): StorageLine => ({
    item,
    items: count,
    bytes: count * (bytes + STORAGE_OVERHEAD_BYTES),
  });
  const storage: StorageLine[] = [
    stored('user profile and handle claim', users * 2, (sizes.user + sizes.handleClaim) / 2),
    stored('graph node', users, sizes.graphNode),
    stored('follow edge and list entries', follows * 3, (sizes.followEdge + 2 * sizes.followListEntry) / 3),
    stored('post', postsKept, sizes.post),
    stored(
      "author's posts, public, tag and outbox entries",
      postsKept * (2 + w.tagsPerPost + (1 - fanOutShare)),
      sizes.timelineEntry,
    ),
    stored("a hot post's counter shard", postsKept * separateShardsPerPost, sizes.counterShard),
    stored(
      "repost record, reposters, reposter's and outbox entries, activity",
      repostsKept * (5 - fanOutShare),
      (sizes.repostRecord + sizes.reposterEntry + (2 - fanOutShare) * sizes.userRepostEntry + sizes.activity) /
        (5 - fanOutShare),
    ),
    {
      item: 'home entry and repost marker',
      items: originalsKept + 2 * repostEntriesKept,
      bytes:
        originalsKept * (sizes.homeEntry + STORAGE_OVERHEAD_BYTES) +
        repostEntriesKept * (sizes.repostHomeEntry + sizes.homeMarker + 2 * STORAGE_OVERHEAD_BYTES),
    },
    stored(
      'like record, likers entry and activity',
      likesKept * 3,
      (sizes.likeRecord + sizes.likerEntry + sizes.activity) / 3,
    ),
  ];

  const peak = w.peakToAverage;
  const hotSpots: HotSpot[] = [];
  const hot = (spot: Omit<HotSpot, 'ofLimit'>) =>
    hotSpots.push({
      ...spot,
      ofLimit: Math.max(
        spot.readUnitsPerSecond / PARTITION_LIMITS.readUnits,
        spot.writeUnitsPerSecond / PARTITION_LIMITS.writeUnits,
      ),
    });
  // Home pages read by the most followed author's followers: their newest post is on each (a viral post).
  const topReaders = homeReads * peak * (top.followers / users);
  // Likes and reposts follow what pages show: a share of each post a page shows.
  const perView = (perDay: number) => (w.homeReadsPerDay > 0 ? perDay / (w.homeReadsPerDay * w.pageSize) : 0);
  const topLikes = topReaders * perView(w.likesPerDay);
  if (!top.fanOut) {
    const readers = outboxAuthors <= OUTBOXES_READ_BEFORE_CHECK ? homeReads * peak : topReaders;
    hot({
      partition: 'OUTBOX#<most followed author>',
      what: `read by ${outboxAuthors <= OUTBOXES_READ_BEFORE_CHECK ? 'every' : "each follower's"} home page`,
      readUnitsPerSecond: readers * readUnits((w.pageSize + 1) * sizes.timelineEntry),
      writeUnitsPerSecond: 0,
      relief: `the hot-key cache; or FANOUT_MAX_FOLLOWERS ≥ ${top.followers.toLocaleString('en-US')} (now ${s.fanoutMaxFollowers}): this author fanned out, ${top.followers.toLocaleString('en-US')} home entries a post instead`,
    });
  }
  const neededShards = Math.ceil((topLikes * transact(sizes.counterShard)) / PARTITION_LIMITS.writeUnits);
  // Each API instance sees its share of the post's likes, and raises its shards past COUNTER_SHARD_WRITES_PER_SECOND a shard.
  const topLikesPerInstance = topLikes / Math.max(1, w.apiInstances);
  const topShards = shardsForWriteRate(top.counterShards, topLikesPerInstance, s);
  hot({
    partition: 'POST#<viral post>',
    what: `the post and its ${topShards} counter shard(s) on every follower's page; its like records and likers list`,
    readUnitsPerSecond: topReaders * (readUnits(sizes.post) + topShards * readUnits(sizes.counterShard)),
    writeUnitsPerSecond:
      topLikes *
      (transact(sizes.likeRecord) +
        transact(sizes.likerEntry) +
        transact(topShards > 1 ? sizes.counterShard : sizes.post)),
    relief:
      'reads: the hot-key cache; DynamoDB splits a partition by sort key under sustained load, but never an item (next line)',
  });
  hot({
    partition: topShards > 1 ? 'POST#<viral post> COUNT#<n>' : 'POST#<viral post> POST',
    what:
      topShards > 1
        ? 'one counter shard item (writes spread over the shards, reads sum them all)'
        : 'the post item, which holds its counts while it has one shard',
    readUnitsPerSecond: topReaders * readUnits(topShards > 1 ? sizes.counterShard : sizes.post),
    writeUnitsPerSecond: (topLikes * transact(topShards > 1 ? sizes.counterShard : sizes.post)) / topShards,
    relief:
      `writes: ${Math.max(1, neededShards)} shard(s) needed; this post has ${topShards}: ${top.counterShards} at creation (COUNTER_SHARDS ${s.counterShards} from HOT_AUTHOR_FOLLOWERS ${s.hotAuthorFollowers}), ` +
      `${topShards > top.counterShards ? 'raised' : 'not raised'} as each of ${w.apiInstances} instances sends it ${Number(topLikesPerInstance.toPrecision(2))} likes/s ` +
      `(raised while past COUNTER_SHARD_WRITES_PER_SECOND ${s.counterShardWritesPerSecond} a shard, up to COUNTER_SHARDS_MAX ${s.counterShardsMax}); reads: only the cache`,
  });
  hot({
    partition: 'USER#<most followed author>',
    what: 'their profile, hydrated on every page showing their post',
    readUnitsPerSecond: topReaders * readUnits(sizes.user),
    writeUnitsPerSecond: 0,
    relief: 'the hot-key cache',
  });
  // Every like and repost of the viral post notifies its author: one group item each for likes and reposts, rewritten
  // at the version read, with the member, actor entry and the list entry moved (a delete and a put) beside it.
  const topReposts = topReaders * perView(w.repostsPerDay);
  const topGroup = notificationGroupBytes(sizes, actorsOnLikeOf(top.followers));
  const likeGroupWrites = topLikes * transact(topGroup);
  hot({
    partition: 'NOTIFS#<most followed author>',
    what: `the notifications of the viral post's likes and reposts (${Number((topLikes + topReposts).toPrecision(3))} a second); its like group item alone takes ${Number(likeGroupWrites.toPrecision(3))} write units a second`,
    readUnitsPerSecond: (topLikes + topReposts) * (readUnits(0, true) + readUnits(topGroup, true)),
    writeUnitsPerSecond: (topLikes + topReposts) * (transact(topGroup) + 4 * 2 * SMALL_ITEM_WRITE_UNITS),
    relief:
      'none built: each like rewrites the one group item at the version it read, so concurrent likes lose the race, read again and retry',
  });
  hot({
    partition: 'PUBLIC#<n>',
    what: 'one shard of the public timeline: every post is written to one',
    readUnitsPerSecond: 0,
    writeUnitsPerSecond: (posts * peak * transact(sizes.timelineEntry)) / s.timelineShards,
    relief: `TIMELINE_SHARDS ≥ ${Math.max(1, Math.ceil((posts * peak * transact(sizes.timelineEntry)) / PARTITION_LIMITS.writeUnits))} (now ${s.timelineShards})`,
  });
  hot({
    partition: 'TAG#<top tag>#<n>',
    what: 'one shard of the most used tag',
    readUnitsPerSecond: 0,
    writeUnitsPerSecond: (posts * peak * w.topTagShare * transact(sizes.timelineEntry)) / s.timelineShards,
    relief: `TIMELINE_SHARDS ≥ ${Math.max(1, Math.ceil((posts * peak * w.topTagShare * transact(sizes.timelineEntry)) / PARTITION_LIMITS.writeUnits))} (now ${s.timelineShards})`,
  });
  const queueWrites = queueWriteUnits * peak;
  hot({
    partition: 'QUEUE#<n>',
    what: 'one queue shard: enqueue, claim, checkpoints, completion; polling by every idle worker',
    readUnitsPerSecond: w.pollingWorkers * (1000 / s.queuePollMs) * readUnits(0),
    writeUnitsPerSecond: queueWrites / s.queueShards,
    relief: `writes: QUEUE_SHARDS ≥ ${Math.max(1, Math.ceil(queueWrites / PARTITION_LIMITS.writeUnits))} (now ${s.queueShards}); polling reads: QUEUE_POLL_MS (now ${s.queuePollMs})`,
  });
  hotSpots.sort((a, b) => b.ofLimit - a.ofLimit);

  const writeUnitsPerSecond = sum(lines, (line) => line.writeUnitsPerSecond);
  const readUnitsPerSecond = sum(lines, (line) => line.readUnitsPerSecond);
  const storageBytes = sum(storage, (line) => line.bytes);
  const p = input.prices;
  const writeUnitsPerMonth = writeUnitsPerSecond * SECONDS_PER_MONTH;
  const readUnitsPerMonth = readUnitsPerSecond * SECONDS_PER_MONTH;
  const storageGb = storageBytes / 2 ** 30;
  const writeUsd = (writeUnitsPerMonth / 1e6) * p.writeRequestUnitUsdPerMillion;
  const readUsd = (readUnitsPerMonth / 1e6) * p.readRequestUnitUsdPerMillion;
  const storageUsd = storageGb * p.storageUsdPerGbMonth;

  return {
    network: {
      users,
      follows,
      meanFollowers: follows / users,
      maxFollowers: top.followers,
      outboxAuthors,
      hotAuthors,
      largestFanOut: {
        entries: largestFanOut,
        pages: followerPages(largestFanOut),
        writeUnits: largestFanOut * bulk(sizes.homeEntry),
      },
    },
    rates: {
      postsPerSecond: posts,
      homeReadsPerSecond: homeReads,
      likesPerSecond: likes,
      repostsPerSecond: reposts,
      followsPerSecond: followsMade,
      fanOutEntriesPerPost: entriesPerPost,
      fanOutEntriesPerSecond: entries,
      outboxPostShare: 1 - fanOutShare,
    },
    lines,
    totals: { writeUnitsPerSecond, readUnitsPerSecond, storageBytes },
    storage,
    hotSpots,
    cost: {
      writeUnitsPerMonth,
      readUnitsPerMonth,
      storageGb,
      writeUsd,
      readUsd,
      storageUsd,
      totalUsd: writeUsd + readUsd + storageUsd,
    },
  };
}

function sum<T>(items: readonly T[], f: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += f(item);
  return total;
}
