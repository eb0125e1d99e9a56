import { decodeCursor, encodeCursor, isString } from '../domain/cursor.js';
import { pageSize } from '../domain/validation.js';
import type { IdPage, PageArgs } from '../stores/graph/graph-store.js';

/** The page arguments a client gave, checked: `first` 1-100 (default 20), `after` a cursor we gave out. */
export function pageArgs(first: number | null | undefined, after: string | null | undefined): PageArgs {
  return { first: pageSize(first), after: decodeCursor(after, 'after', isString) };
}

/** Wraps the backend's own list positions into the API's opaque cursors. */
export function withOpaqueCursors<P extends IdPage>(page: P): P {
  return { ...page, items: page.items.map((item) => ({ id: item.id, cursor: encodeCursor(item.cursor) })) };
}
