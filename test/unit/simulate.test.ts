import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { newId } from '../../src/domain/ids.js';
import { homeEntryItem } from '../../src/stores/dynamo/dynamo-timeline-store.js';
import { itemSize } from '../../src/simulate/item-size.js';
import { type ItemSizes, measureItems } from '../../src/simulate/items.js';
import { ON_DEMAND_US_EAST_1, SECONDS_PER_MONTH } from '../../src/simulate/dynamodb-capacity.js';
import { runModel } from '../../src/simulate/model.js';
import { runScriptWith } from '../helpers/scripts.js';
import type { ModelInput } from '../../src/simulate/model-types.js';
import { powerLawFollowers } from '../../src/simulate/network.js';

/** Every item 100 bytes (one write unit, half a read unit), but a 2,000-byte post and a 5,000-byte graph node. */
const SIZES: ItemSizes = {
  user: 100,
  handleClaim: 100,
  graphNode: 5000,
  followEdge: 100,
  followListEntry: 100,
  post: 2000,
  authorPostEntry: 100,
  timelineEntry: 100,
  homeEntry: 100,
  counterShard: 100,
  outboxAuthor: 100,
  task: 100,
  likeRecord: 100,
  likerEntry: 100,
  activity: 100,
  repostRecord: 100,
  reposterEntry: 100,
  userRepostEntry: 100,
  repostHomeEntry: 100,
  homeMarker: 100,
  notificationGroup: 100,
  recentActor: 200,
  fanOutProgress: 100,
};

/**
 * Four users: A has 3 followers, B and C one each, D none (5 follows). FANOUT_MAX_FOLLOWERS 2 puts
 * A in the outbox; HOT_AUTHOR_FOLLOWERS 3 gives A's posts 4 counter shards. Every user is active
 * and, per second across the network, posts once (mentioning one user), reads 2 home pages (of 2
 * posts), likes once and reposts once.
 */
const TINY: ModelInput = {
  followers: [
    { followers: 3, users: 1 },
    { followers: 1, users: 2 },
    { followers: 0, users: 1 },
  ],
  workload: {
    activeShare: 1,
    postsPerDay: 21_600,
    homeReadsPerDay: 43_200,
    likesPerDay: 21_600,
    repostsPerDay: 21_600,
    followsPerDay: 0,
    tagsPerPost: 1,
    mentionsPerPost: 1,
    topTagShare: 0.5,
    pageSize: 2,
    peakToAverage: 1,
    retentionDays: 1,
    apiInstances: 1,
    pollingWorkers: 1,
  },
  settings: {
    fanoutMaxFollowers: 2,
    hotAuthorFollowers: 3,
    counterShards: 4,
    counterShardsMax: 64,
    counterShardWritesPerSecond: 50,
    homeRetentionDays: 30,
    followBackfillPosts: 10,
    timelineShards: 2,
    queueShards: 2,
    queuePollMs: 500,
    fanoutPageSize: 1,
    outboxAuthorsTtlMs: 1000,
    bulkWriteApi: 'batchWrite',
  },
  sizes: SIZES,
  prices: ON_DEMAND_US_EAST_1,
};

describe('the cost model, on a network computed by hand', () => {
  const result = runModel(TINY);
  const line = (item: string) => result.lines.find((l) => l.item === item)!;
  const spot = (partition: string) => result.hotSpots.find((s) => s.partition === partition)!;

  it('places posts by the service rules and derives the rates', () => {
    expect(result.network).toEqual({
      users: 4,
      follows: 5,
      meanFollowers: 1.25,
      maxFollowers: 3,
      outboxAuthors: 1,
      hotAuthors: 1,
      // B's or C's one follower, one page of FANOUT_PAGE_SIZE 1.
      largestFanOut: { entries: 1, pages: 1, writeUnits: 1 },
    });
    // 4 users × 21,600 posts a day = 1 post/s; entries: B's and C's single followers, averaged over the 4 authors.
    expect(result.rates).toEqual({
      postsPerSecond: 1,
      homeReadsPerSecond: 2,
      likesPerSecond: 1,
      repostsPerSecond: 1,
      followsPerSecond: 0,
      fanOutEntriesPerPost: 0.5,
      fanOutEntriesPerSecond: 0.5,
      outboxPostShare: 0.25,
    });
  });

  it('counts write and read units per item kind', () => {
    // A repost is placed like a post: 3 of 4 fanned out, 0.5 followers' entries and its reposter's own (1.5 entries a repost);
    // of the home entries delivered (0.5 posts', 1.5 reposts') and the author's own (1), half are reposts: a page of 2
    // shows 2 authors and 1 reposter.
    // Transactions cost 2 units a KB: post 2 KB → 4; strong reads (1 each): the post's fan-out and the repost's, each
    // at the start and after each of its 0.75 pages (2 × 1.5), and the repost's own lookup (1).
    // The home pages read their posts too: 2 pages × 2 posts × 0.5 (2 KB, eventually consistent).
    expect(line('post')).toMatchObject({ writeUnitsPerSecond: 4, readUnitsPerSecond: 4 + 2 });
    // createPost's progress record (2) and its tag's hourly and total counts (2 × 2); the fan-out's progress after
    // each of its 0.75 pages (1).
    expect(line('fan-out progress and tag counts')).toMatchObject({
      writeUnitsPerSecond: 2 + 4 + 0.75,
      readUnitsPerSecond: 0,
    });
    expect(line("author's posts entry")).toMatchObject({ writeUnitsPerSecond: 2, readUnitsPerSecond: 0 });
    expect(line('public and tag entries')).toMatchObject({ writeUnitsPerSecond: 4, readUnitsPerSecond: 0 });
    // A quarter of posts and of reposts: entry + registry (2 + 2) each. Reads: 2 pages/s × 1 outbox (≤ 8 registered: every one read) × 0.5, plus the registry once a second × 0.5.
    expect(line('outbox entry and registry')).toMatchObject({ writeUnitsPerSecond: 2, readUnitsPerSecond: 1.5 });
    // postCount in the transaction; reads: the account check, 2 authors and 1 reposter a page, 2 pages/s, 0.5 each; the mentioned handle's claim, strongly (1).
    expect(line('user profile and handle claim')).toMatchObject({ writeUnitsPerSecond: 2, readUnitsPerSecond: 5 });
    // The author's own entry (2), 0.5 fanned-out entries, 1.5 repost entries (a transaction each: the entry and its
    // marker, 2 × 2); a page's Query of 3 entries is 0.5. Before a repost entry is delivered, its
    // receiver's entry and marker are read strongly (1.5 × 2); before each of a post's 0.75 fan-out pages, its
    // reposters (0.75).
    expect(line('home entry')).toMatchObject({
      writeUnitsPerSecond: 2 + 0.5 + 1.5 * 4,
      readUnitsPerSecond: 1 + 3 + 0.75,
    });
    // Entries expire by TTL, deleted for free: nothing reads a timeline back to trim it, nor counts its size.
    expect(result.lines.map((l) => l.item).filter((item) => /trim|size/.test(item))).toEqual([]);
    // A's posts start with 4 separate shards (1 a post × 2); a like's and a repost's increment go to the post item (4)
    // or, for the 3 of 5 entries that are A's, a shard (2): 2 × (0.4 × 4 + 0.6 × 2). Reads: 2 pages × 2 posts × 2.4
    // shards an entry (A's 3 followers see 4) × 0.5; other posts' counts come with the post.
    const counts = line("counts: the post item's, or a hot post's counter shards");
    expect(counts.writeUnitsPerSecond).toBeCloseTo(7.6, 10);
    expect(counts.readUnitsPerSecond).toBeCloseTo(4.8, 10);
    // A like: record, likers entry and activity in a transaction (2 + 2 + 2); reads: viewerHasLiked and viewerHasReposted
    // are one Query a page of the reader's activity in the page's span (1.3 items, 0.5), and the liked post (strong, 1).
    expect(line('like record, likers entry and activity')).toMatchObject({
      writeUnitsPerSecond: 6,
      readUnitsPerSecond: 2,
    });
    // A repost: record, reposters entry, the reposter's entry and activity (4 × 2); reads: the record, strongly, at the start and after each page of its fan-out (1.5).
    expect(line("repost record, reposters entry, reposter's entry and activity")).toMatchObject({
      writeUnitsPerSecond: 8,
      readUnitsPerSecond: 1.5,
    });
    // Posts' and reposts' tasks alike (2 a second): enqueued in the transaction (1.5 × 2), claims 1.5 and checkpoints+completion 1.5;
    // a notify task for each like, repost and mention (3 a second): enqueued (2), claimed (1), completed (1); polling: 2 shards × 2 polls/s × 0.5.
    expect(line('queued task')).toMatchObject({ writeUnitsPerSecond: 6 + 3 * 4, readUnitsPerSecond: 2 });
    // For a post and a repost each: followers pages (0.5 for each fan-out, 3 of 4) = 0.375, and the author's or reposter's counts on the profile, strongly (1).
    expect(line("follow edge, list entries, follower's graph node, both profiles' counts")).toMatchObject({
      writeUnitsPerSecond: 0,
      readUnitsPerSecond: 2.75,
    });
    // The like's, the repost's and the mention's block checks, 2 each: missing, strongly consistent, 1 each.
    expect(line('block and mute edges')).toMatchObject({ writeUnitsPerSecond: 0, readUnitsPerSecond: 6 });
    // Each of the 3 notify tasks: checked twice (the action, 2 profiles, 2 blocks and a mute: 6 strong reads), the
    // member and the group read (2), and one transaction of the group and 5 small items (6 × 2); the mention's group
    // is new, and the recipient's groups are counted (1). A like's group holds 0.88 actors when it joins, by its
    // post's likes (A's 3 followers give its posts 2.4, B's and C's 0.8): one.
    expect(line('notification group, member, mirror, actor and list entries, unread state')).toMatchObject({
      writeUnitsPerSecond: 3 * 12,
      readUnitsPerSecond: 3 * (12 + 2) + 1,
    });
    // The rules of every home page (blocks either way and mutes of its 3 users) read the reader's node, strongly: 2 × 2 (5,000 B).
    expect(line("graph node: the viewer's relation sets")).toMatchObject({
      writeUnitsPerSecond: 0,
      readUnitsPerSecond: 4,
    });
    // Every home page reads the reader's graph node, strongly, to know which outbox authors it follows: 2 × 2 (5,000 B).
    expect(line('graph node: outbox check')).toMatchObject({ writeUnitsPerSecond: 0, readUnitsPerSecond: 4 });
    expect(result.totals.writeUnitsPerSecond).toBeCloseTo(104.85, 10);
    expect(result.totals.readUnitsPerSecond).toBeCloseTo(87.3, 10);
  });

  it('prices a month of it', () => {
    expect(result.cost.writeUnitsPerMonth).toBeCloseTo(104.85 * SECONDS_PER_MONTH, 3);
    expect(result.cost.writeUsd).toBeCloseTo(172.216125, 6);
    expect(result.cost.readUsd).toBeCloseTo(28.67805, 6);
    // A day of posts and likes: 86,400 of each; every item with its 100 bytes of overhead.
    const stored = new Map(result.storage.map((s) => [s.item, s.bytes]));
    expect(stored.get('post')).toBe(86_400 * 2100);
    // A's posts' separate shards: 1 a post on average.
    expect(stored.get("a hot post's counter shard")).toBe(86_400 * 200);
    // Home timelines hold a day of entries too (the workload keeps a day, less than HOME_RETENTION_DAYS): 1.5 originals
    // a second (0.5 fanned out, the author's own), and 1.5 repost entries each with its marker (100 bytes each).
    expect(stored.get('home entry and repost marker')).toBe(86_400 * (1.5 * 200 + 1.5 * 400));
    expect(stored.get('graph node')).toBe(4 * 5100);
    // A like's three items; a repost's four, and the outbox entry of a quarter of them: 4.25 items of 200 bytes.
    expect(stored.get('like record, likers entry and activity')).toBe(86_400 * 3 * 200);
    expect(stored.get("repost record, reposters, reposter's and outbox entries, activity")).toBeCloseTo(
      86_400 * 4.25 * 200,
      6,
    );
    expect(result.cost.storageUsd).toBeCloseTo((result.totals.storageBytes / 2 ** 30) * 0.25, 10);
  });

  it('prices the notification group a like joins by the likes its post had before it', () => {
    const busy = runModel({ ...TINY, workload: { ...TINY.workload, likesPerDay: 216_000 } });
    // 10 likes a post: A's posts get 24, B's and C's 8, and a like joins a group of half its post's likes, 8.8 on
    // average by likes ((1 × 3 × 12 + 2 × 1 × 4) / 5): 100 + 7.8 × 200 bytes, 2 write units. The 10 likes and the
    // repost write 2 × (2 + 5) each, the mention 2 × (1 + 5); reads: 12 tasks checked twice (12 each), the member
    // and group read (2) of each, and the mention's new group counted (1).
    expect(busy.lines.find((l) => l.item.startsWith('notification group'))).toMatchObject({
      writeUnitsPerSecond: 11 * 14 + 12,
      readUnitsPerSecond: 12 * 12 + 12 * 2 + 1,
    });
  });

  it('keeps home entries for HOME_RETENTION_DAYS, and as long again as TTL takes to delete them', () => {
    // 10 days of posts and likes kept, home entries 1 day and the 2 of TTL's delay.
    const short = runModel({
      ...TINY,
      workload: { ...TINY.workload, retentionDays: 10 },
      settings: { ...TINY.settings, homeRetentionDays: 1 },
    });
    const stored = new Map(short.storage.map((s) => [s.item, s]));
    expect(stored.get('home entry and repost marker')).toEqual({
      item: 'home entry and repost marker',
      items: 3 * 86_400 * 4.5,
      bytes: 3 * 86_400 * (1.5 * 200 + 1.5 * 400),
    });
    expect(stored.get('post')!.items).toBe(10 * 86_400);
  });

  it('finds the hot partitions and what relieves them', () => {
    // A's followers read 3/4 of the 2 pages/s, each showing A's newest post; a quarter of a post view is a like (1 like / (2 reads × 2 posts)).
    expect(spot('OUTBOX#<most followed author>')).toMatchObject({ readUnitsPerSecond: 1, writeUnitsPerSecond: 0 });
    // The post and its 4 shards (0.5 each) a page (the reader's like and repost come from the reader's activity); a
    // like writes its record, likers entry and a shard (2 each).
    expect(spot('POST#<viral post>')).toMatchObject({ readUnitsPerSecond: 3.75, writeUnitsPerSecond: 2.25 });
    // The rules read each reader's own node, not A's edges: no hot spot on A's node.
    expect(result.hotSpots.some((s) => s.partition.startsWith('GNODE#'))).toBe(false);
    expect(spot('POST#<viral post> COUNT#<n>')).toMatchObject({
      readUnitsPerSecond: 0.75,
      writeUnitsPerSecond: 0.1875,
    });
    expect(spot('USER#<most followed author>')).toMatchObject({ readUnitsPerSecond: 0.75 });
    // The viral post's likes and reposts (0.375 a second each) notify A: its group (1.2 actors by its post's likes:
    // 140 bytes, 2 in a transaction) and the member, actor entry and moved list entry (4 small items, 2 each); the
    // member and the group are read strongly (1 each).
    expect(spot('NOTIFS#<most followed author>')).toMatchObject({ readUnitsPerSecond: 1.5, writeUnitsPerSecond: 7.5 });
    expect(spot('NOTIFS#<most followed author>').what).toContain('its like group item alone takes 0.75 write units');
    expect(spot('PUBLIC#<n>')).toMatchObject({ writeUnitsPerSecond: 1 });
    expect(spot('TAG#<top tag>#<n>')).toMatchObject({ writeUnitsPerSecond: 0.5 });
    // The queued tasks' 18 write units a second (notify tasks' 12 among them) over 2 shards.
    expect(spot('QUEUE#<n>')).toMatchObject({ readUnitsPerSecond: 1, writeUnitsPerSecond: 9 });
    expect(spot('POST#<viral post>').ofLimit).toBeCloseTo(2.25 / 1000, 10);
    expect(spot('OUTBOX#<most followed author>').relief).toContain('FANOUT_MAX_FOLLOWERS ≥ 3 (now 2)');
    expect(result.hotSpots.map((s) => s.ofLimit)).toEqual(
      [...result.hotSpots.map((s) => s.ofLimit)].sort((a, b) => b - a),
    );
  });

  it("raises the viral post's counter shards while each instance sends a shard more than COUNTER_SHARD_WRITES_PER_SECOND", () => {
    // 0.375 likes/s on one instance: past 0.05 × 4 shards, not past 0.05 × 8, so 4 → 8 shards.
    const raised = runModel({ ...TINY, settings: { ...TINY.settings, counterShardWritesPerSecond: 0.05 } });
    const hotSpot = (partition: string) => raised.hotSpots.find((s) => s.partition === partition)!;
    expect(hotSpot('POST#<viral post> COUNT#<n>')).toMatchObject({
      readUnitsPerSecond: 0.75,
      writeUnitsPerSecond: 0.09375,
    });
    // The post and 8 shards (0.5 each) on 1.5 pages/s.
    expect(hotSpot('POST#<viral post>')).toMatchObject({ readUnitsPerSecond: 6.75, writeUnitsPerSecond: 2.25 });
    expect(hotSpot('POST#<viral post> COUNT#<n>').relief).toContain('this post has 8: 4 at creation');
    expect(
      runModel({
        ...TINY,
        settings: { ...TINY.settings, counterShardWritesPerSecond: 0.05, counterShardsMax: 6 },
      }).hotSpots.find((s) => s.partition === 'POST#<viral post> COUNT#<n>')!.writeUnitsPerSecond,
    ).toBe(0.125);
    expect(spot('POST#<viral post> COUNT#<n>').relief).toContain('this post has 4: 4 at creation');
  });

  it('moves the outbox author to fan-out when FANOUT_MAX_FOLLOWERS is raised', () => {
    const fannedOut = runModel({ ...TINY, settings: { ...TINY.settings, fanoutMaxFollowers: 3 } });
    expect(fannedOut.network.outboxAuthors).toBe(0);
    expect(fannedOut.rates.fanOutEntriesPerPost).toBe(1.25);
    expect(fannedOut.hotSpots.find((s) => s.partition.startsWith('OUTBOX#'))).toBeUndefined();
    expect(fannedOut.lines.find((l) => l.item === 'graph node: outbox check')!.readUnitsPerSecond).toBe(0);
  });
});

describe('the network', () => {
  it('gives follower counts by a Zipf law over popularity ranks, capped at everyone else', () => {
    // 4 follows, all by the Zipf law (H = 25/12): rank r gets 1.92 / r → 2, 1, 1, 0.
    expect(powerLawFollowers({ users: 4, followsPerUser: 1, exponent: 1, uniformShare: 0 })).toEqual([
      { followers: 2, users: 1 },
      { followers: 1, users: 2 },
      { followers: 0, users: 1 },
    ]);
    // 30 follows among 3 users: nobody can have more than 2 followers.
    expect(powerLawFollowers({ users: 3, followsPerUser: 10, exponent: 1, uniformShare: 0 })).toEqual([
      { followers: 2, users: 3 },
    ]);
  });
});

describe('item sizes', () => {
  it('are counted as DynamoDB counts them', () => {
    // pk 2 + 8; n 1 + (5 digits → 3 + 1); m 1 + 3 + (1 + 1 + 2); s 1 + 2 + 2; b 1 + 1.
    expect(itemSize({ pk: 'USER#abc', n: 12345, m: { a: 'xy' }, s: new Set(['ab', 'cd']), b: true })).toBe(
      10 + 5 + 8 + 5 + 2,
    );
    // big 3 + (1 significant digit → 2); small 5 + 2; list 4 + 3 + (1 + 2) + (1 + 1).
    expect(itemSize({ big: 1_000_000, small: 0.5, list: [1, 'a'] })).toBe(5 + 7 + 12);
  });

  it("are measured on the stores' own items", () => {
    const config = loadConfig({});
    const sizes = measureItems({
      postChars: 120,
      tagsPerPost: 1,
      mentionsPerPost: 0,
      followsPerUser: 100,
      followingSetMax: 1000,
      reactionKinds: config.reactionKinds,
      counterShards: 8,
    });
    const entry = homeEntryItem({
      userId: newId('usr'),
      postId: newId('pst'),
      authorId: newId('usr'),
      counterShards: 8,
      expiresAt: Math.ceil(Date.now() / 1000) + 30 * 86_400,
    });
    expect(sizes.homeEntry).toBe(itemSize(entry));
    // 120 characters of text and the post's other fields; a following set of 100 ids of 30 bytes.
    expect(sizes.post).toBeGreaterThan(120);
    expect(sizes.graphNode).toBeGreaterThan(3000);
    // A repost's home entry carries its reason; a mention adds its id to the post.
    expect(sizes.repostHomeEntry).toBeGreaterThan(sizes.homeEntry);
    const mentioning = measureItems({
      postChars: 120,
      tagsPerPost: 1,
      mentionsPerPost: 2,
      followsPerUser: 100,
      followingSetMax: 1000,
      reactionKinds: config.reactionKinds,
      counterShards: 8,
    });
    expect(mentioning.post).toBeGreaterThan(sizes.post + 2 * 26);
    // Every counter shard fits one write unit (see docs/design/counters.md).
    expect(sizes.counterShard).toBeLessThanOrEqual(1024);
  });
});

describe('npm run simulate', () => {
  it('prints the model for each network size asked, with the settings given as flags', async () => {
    const { code, output: stdout } = await runScriptWith(
      { NODE_NO_WARNINGS: '1' },
      'simulate',
      '--users',
      '2000,5000',
      '--fanout-max-followers',
      '50',
    );
    expect(code).toBe(0);
    expect(stdout).toContain('fanoutMaxFollowers=50');
    for (const users of ['2,000', '5,000']) expect(stdout).toContain(`=== ${users} users ===`);
    for (const section of [
      'Capacity by item kind',
      'Storage after 365 days',
      'On-demand cost a month (us-east-1, prices of 2024-11-14',
      'Hottest partitions at peak',
    ]) {
      expect(stdout.split(section)).toHaveLength(3);
    }
    expect(stdout).toContain('FANOUT_MAX_FOLLOWERS');
  });
});
