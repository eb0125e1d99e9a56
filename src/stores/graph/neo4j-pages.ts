import neo4j, { type RecordShape } from 'neo4j-driver';
import { badInput } from '../../domain/errors.js';
import { idPattern } from '../../domain/ids.js';
import type { CypherName } from './cypher.js';
import {
  type CountedPage,
  type IdPage,
  type NewerPageArgs,
  type PageArgs,
  type ReadBudget,
  chargeIntersection,
  chargeListPage,
} from './graph-store.js';

/** How the Neo4j store runs one statement of the catalog in a read transaction. */
export type ReadStatement = (name: CypherName, params: Record<string, unknown>) => Promise<RecordShape[]>;

/** List cursors on this backend: "<follow time>|<user id>", the keyset position of a page's last item. */
const POSITION = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)\\|(${idPattern('usr')})$`);

export function keysetParams(page: PageArgs) {
  if (page.after === null) return { afterAt: null, afterId: null, limit: neo4j.int(page.first + 1) };
  const match = POSITION.exec(page.after);
  if (!match) throw badInput('after', 'is not a cursor this API gave out');
  return { afterAt: match[1]!, afterId: match[2]!, limit: neo4j.int(page.first + 1) };
}

/** A newest-first page of a follow or relation list, from below the page's cursor. */
export async function listPage(
  read: ReadStatement,
  name: 'followers' | 'following' | 'blocked' | 'muted',
  userId: string,
  page: PageArgs,
  budget: ReadBudget,
): Promise<IdPage> {
  const keyset = keysetParams(page);
  chargeListPage(budget, page.first);
  const rows = await read(name, { userId, ...keyset });
  return {
    items: rows
      .slice(0, page.first)
      .map((row) => ({ id: row.id as string, cursor: `${row.at as string}|${row.id as string}` })),
    hasNextPage: rows.length > page.first,
  };
}

/** Backwards: the `last` entries of a list newer than its cursor, returned newest first. */
export async function newerListPage(
  read: ReadStatement,
  name: 'followersNewer' | 'followingNewer' | 'blockedNewer' | 'mutedNewer',
  userId: string,
  page: NewerPageArgs,
  budget: ReadBudget,
): Promise<IdPage> {
  const match = POSITION.exec(page.before);
  if (!match) throw badInput('before', 'is not a cursor this API gave out');
  chargeListPage(budget, page.last);
  const rows = await read(name, { userId, beforeAt: match[1]!, beforeId: match[2]!, limit: neo4j.int(page.last + 1) });
  const items = rows
    .slice(0, page.last)
    .map((row) => ({ id: row.id as string, cursor: `${row.at as string}|${row.id as string}` }));
  return { items: items.reverse(), hasNextPage: false, hasPreviousPage: rows.length > page.last };
}

/** A page of an intersection of two follow lists and its size, charged as the embedded backend reads it: from the shorter list, of `size` entries. */
export async function countedPage(
  read: ReadStatement,
  name: 'knownFollowers' | 'mutuals',
  params: Record<string, unknown>,
  size: number,
  first: number,
  budget: ReadBudget,
): Promise<CountedPage> {
  if (size === 0) return { items: [], hasNextPage: false, totalCount: 0 };
  chargeIntersection(budget, size);
  const [row] = await read(name, params);
  const entries = (row?.page ?? []) as { id: string; at: string }[];
  return {
    items: entries.slice(0, first).map((e) => ({ id: e.id, cursor: `${e.at}|${e.id}` })),
    hasNextPage: entries.length > first,
    totalCount: Number(row?.total ?? 0),
  };
}
