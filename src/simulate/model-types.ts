import type { CounterHeatSettings } from '../usecases/counter-heat.js';
import type { PostSettings } from '../usecases/posts.js';
import type { Prices } from './dynamodb-capacity.js';
import type { ItemSizes } from './items.js';
import type { FollowerBucket } from './network.js';

export interface Workload {
  /** Share of users active on a day; the rates below are per active user. */
  activeShare: number;
  postsPerDay: number;
  homeReadsPerDay: number;
  likesPerDay: number;
  repostsPerDay: number;
  followsPerDay: number;
  tagsPerPost: number;
  /** Users an average post mentions: each is resolved (its handle claim) and checked for blocks when the post is written. */
  mentionsPerPost: number;
  /** Share of posts carrying the most used tag. */
  topTagShare: number;
  /** Posts per home page read. */
  pageSize: number;
  /** Peak rate over the daily average, for the hot spots (the bill is on the average). */
  peakToAverage: number;
  /** How long posts and likes are kept: the storage figure (home entries expire after HOME_RETENTION_DAYS). */
  retentionDays: number;
  /** API processes: each reads the outbox registry once per OUTBOX_AUTHORS_TTL_MS. */
  apiInstances: number;
  /** Processes that poll the queue (a worker in an API process counts too). */
  pollingWorkers: number;
}

/** The service's settings the model reads (names as in src/config.ts). */
export interface ModelSettings extends PostSettings, CounterHeatSettings {
  /** Days a home timeline keeps a post (HOME_RETENTION_DAYS): its entries expire by TTL. */
  homeRetentionDays: number;
  followBackfillPosts: number;
  timelineShards: number;
  queueShards: number;
  queuePollMs: number;
  fanoutPageSize: number;
  outboxAuthorsTtlMs: number;
  bulkWriteApi: 'batchWrite' | 'transactWrite';
}

export interface ModelInput {
  followers: readonly FollowerBucket[];
  workload: Workload;
  settings: ModelSettings;
  sizes: ItemSizes;
  prices: Prices;
}

/** One line of the capacity table: what one kind of item costs per second on average. */
export interface CapacityLine {
  item: string;
  /** The code path that writes or reads it. */
  by: string;
  writeUnitsPerSecond: number;
  readUnitsPerSecond: number;
}

export interface StorageLine {
  item: string;
  items: number;
  bytes: number;
}

export interface HotSpot {
  partition: string;
  what: string;
  /** At peak (peakToAverage times the average). */
  readUnitsPerSecond: number;
  writeUnitsPerSecond: number;
  /** The larger of the two loads over its limit: ≥ 1 throttles. */
  ofLimit: number;
  relief: string;
}

export interface ModelResult {
  network: {
    users: number;
    follows: number;
    meanFollowers: number;
    maxFollowers: number;
    /** Users past FANOUT_MAX_FOLLOWERS: their posts go to outboxes. */
    outboxAuthors: number;
    /** Users with at least HOT_AUTHOR_FOLLOWERS followers: their posts get COUNTER_SHARDS counters. */
    hotAuthors: number;
    /** The largest fan-out of one post: its followers (entries), FANOUT_PAGE_SIZE pages, and the write units of its entries. */
    largestFanOut: { entries: number; pages: number; writeUnits: number };
  };
  rates: {
    postsPerSecond: number;
    homeReadsPerSecond: number;
    likesPerSecond: number;
    repostsPerSecond: number;
    followsPerSecond: number;
    fanOutEntriesPerPost: number;
    fanOutEntriesPerSecond: number;
    outboxPostShare: number;
  };
  lines: CapacityLine[];
  totals: { writeUnitsPerSecond: number; readUnitsPerSecond: number; storageBytes: number };
  storage: StorageLine[];
  hotSpots: HotSpot[];
  cost: {
    writeUnitsPerMonth: number;
    readUnitsPerMonth: number;
    storageGb: number;
    writeUsd: number;
    readUsd: number;
    storageUsd: number;
    totalUsd: number;
  };
}
