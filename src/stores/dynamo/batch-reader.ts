import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Cost, currentCostMeter } from '../../observability/cost.js';
import { batchGet } from './batch.js';
import type { Key } from './keys.js';

type Item = Record<string, unknown>;

/** An attribute to read: a top-level name, or a path into a map (['reactions', kind]). */
export type AttributePath = string | readonly string[];

export interface ReadOptions {
  /** Strongly consistent (after a write) instead of eventually consistent. */
  consistent?: boolean;
  /** The attributes the caller uses (pk and sk always come along); all of the item when absent. */
  attributes?: readonly AttributePath[];
  /**
   * Lookups of a group are combined only with each other. Projected lookups share the union of
   * their attributes, so a read of a few large attributes (a graph node's id sets) keeps out of
   * the batch of many small ones (other nodes' follow counts) that would otherwise carry them too.
   */
  group?: string;
  /** What is read changes with every counter write (a post item's counts): a cache keeps it for the counter TTL. */
  counters?: boolean;
}

/** What the stores read items through: the BatchReader, or the cache in front of it (CachedReader). */
export interface ItemReader {
  /** The items of `keys`, aligned with them (undefined where missing). */
  get(keys: readonly Key[], options?: ReadOptions): Promise<(Item | undefined)[]>;
}

interface Waiter {
  keys: readonly Key[];
  resolve: (items: (Item | undefined)[]) => void;
  reject: (error: unknown) => void;
}

interface PendingBatch {
  waiters: Waiter[];
  /** Paths joined by a NUL (never part of an attribute name), so that equal paths are asked once; null: whole items. */
  paths: Map<string, readonly string[]> | null;
  consistent: boolean;
}

/** Lookups made outside any operation (the worker, the seed) share this meter slot. */
const NO_METER = {};

/**
 * Coalesces the lookups of one operation in one tick, of any item kind, into as few BatchGetItem calls as the
 * 100-key limit allows. Only lookups of the same operation, consistency and shape combine, so costs stay per operation.
 */
export class BatchReader implements ItemReader {
  private readonly pending = new Map<object, Map<string, PendingBatch>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly coalesce: boolean,
  ) {}

  /** The items of `keys`, aligned with them (undefined where missing). */
  get(keys: readonly Key[], options: ReadOptions = {}): Promise<(Item | undefined)[]> {
    if (keys.length === 0) return Promise.resolve([]);
    const consistent = options.consistent === true;
    if (!this.coalesce)
      return batchGet(this.client, this.tableName, keys, {
        consistent,
        ...projectionOf(options.attributes && pathsOf(options.attributes)),
      });
    const meter: Cost | object = currentCostMeter() ?? NO_METER;
    const batches = this.pending.get(meter) ?? this.pending.set(meter, new Map()).get(meter)!;
    const shape = `${consistent}/${options.attributes ? 'projected' : 'whole'}/${options.group ?? ''}`;
    let batch = batches.get(shape);
    if (!batch) {
      batch = { waiters: [], paths: options.attributes ? new Map() : null, consistent };
      batches.set(shape, batch);
      // After the current tick's loads (DataLoader dispatches its batches in process.nextTick), so they all join.
      setImmediate(() => {
        batches.delete(shape);
        if (batches.size === 0 && this.pending.get(meter) === batches) this.pending.delete(meter);
        void this.send(batch!);
      });
    }
    if (batch.paths && options.attributes)
      for (const [id, path] of pathsOf(options.attributes)) batch.paths.set(id, path);
    return new Promise((resolve, reject) => batch.waiters.push({ keys, resolve, reject }));
  }

  private async send(batch: PendingBatch): Promise<void> {
    try {
      const keys = batch.waiters.flatMap((waiter) => waiter.keys);
      const items = await batchGet(this.client, this.tableName, keys, {
        consistent: batch.consistent,
        ...projectionOf(batch.paths),
      });
      let next = 0;
      for (const waiter of batch.waiters) {
        waiter.resolve(items.slice(next, next + waiter.keys.length));
        next += waiter.keys.length;
      }
    } catch (error) {
      for (const waiter of batch.waiters) waiter.reject(error);
    }
  }
}

function pathsOf(attributes: readonly AttributePath[]): Map<string, readonly string[]> {
  return new Map(
    attributes.map((attribute) => {
      const path = typeof attribute === 'string' ? [attribute] : attribute;
      return [path.join('\u0000'), path] as const;
    }),
  );
}

/** A ProjectionExpression of pk, sk and the paths, every name a placeholder (attribute names may be reserved words). */
function projectionOf(paths: Map<string, readonly string[]> | null | undefined): {
  projection?: string;
  names?: Record<string, string>;
} {
  if (!paths) return {};
  const placeholders = new Map<string, string>();
  const placeholder = (name: string) =>
    placeholders.get(name) ?? placeholders.set(name, `#a${placeholders.size}`).get(name)!;
  const expressions = ['pk', 'sk', ...[...paths.values()].map((path) => path.map(placeholder).join('.'))];
  const names =
    placeholders.size > 0 ? Object.fromEntries([...placeholders].map(([name, ph]) => [ph, name])) : undefined;
  return { projection: [...new Set(expressions)].join(', '), names };
}
