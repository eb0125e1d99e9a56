/** DynamoDB on-demand's units, limits and prices, as the model counts them. */

export const SECONDS_PER_DAY = 86_400;
/** AWS prices a month as 730 hours. */
export const SECONDS_PER_MONTH = 730 * 3600;
/** DynamoDB's throughput limits of one partition (and so of one item, which never splits). */
export const PARTITION_LIMITS = { readUnits: 3000, writeUnits: 1000 } as const;
/** Bytes DynamoDB adds to every item for storage (indexing overhead). */
export const STORAGE_OVERHEAD_BYTES = 100;
/**
 * How long after its expiry a TTL delete comes, on average: AWS promises "within a few days" and charges nothing
 * for it. An assumption, not a measurement; the expired items are stored meanwhile.
 */
export const TTL_DELETION_LAG_DAYS = 2;

export interface Prices {
  region: string;
  /** When these prices were published. */
  asOf: string;
  writeRequestUnitUsdPerMillion: number;
  readRequestUnitUsdPerMillion: number;
  storageUsdPerGbMonth: number;
}

/** DynamoDB on-demand, Standard table class, us-east-1, as published after the 50% on-demand price cut of 14 November 2024. */
export const ON_DEMAND_US_EAST_1: Prices = {
  region: 'us-east-1',
  asOf: '2024-11-14',
  writeRequestUnitUsdPerMillion: 0.625,
  readRequestUnitUsdPerMillion: 0.125,
  storageUsdPerGbMonth: 0.25,
};

/** Write units of one standard write of an item under 1 KB (a member, a list entry, a count), where no builder sizes it. */
export const SMALL_ITEM_WRITE_UNITS = 1;
/** Write units of one standard write of an item: one per KB started. */
export const writeUnits = (bytes: number): number => Math.ceil(bytes / 1024);
/**
 * Read units of one item read, or of one Query given the sum of the sizes of the items it reads: one
 * per 4 KB started, half of it eventually consistent. A missing item, or an empty Query, still costs the minimum.
 */
export const readUnits = (bytes: number, consistent = false): number =>
  Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
