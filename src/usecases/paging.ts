import { decodeCursor, encodeCursor, isString } from '../domain/cursor.js';
import { badInput } from '../domain/errors.js';
import { pageSize } from '../domain/validation.js';
import type { IdPage, NewerPageArgs, PageArgs } from '../stores/graph/graph-store.js';

/** The page arguments a client gave, checked: `first` 1-100 (default 20), `after` a cursor we gave out. */
export function pageArgs(first: number | null | undefined, after: string | null | undefined): PageArgs {
  return { first: pageSize(first), after: decodeCursor(after, 'after', isString) };
}

/** A list that pages both ways: `first`/`after`, or `last`/`before` (what is newer than a cursor), not both. */
export interface TwoWayArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export const isBackward = (args: TwoWayArgs) => args.last != null || args.before != null;

/** Backwards when `last` or `before` is given, then refusing `first` and `after`: the same error on every list. */
export function isBackwardOnly(args: TwoWayArgs): boolean {
  if (!isBackward(args)) return false;
  if (args.first != null || args.after != null)
    throw badInput(args.first != null ? 'first' : 'after', 'cannot be given with last or before');
  return true;
}

/** As pageArgs, or backwards when `last` or `before` is given: then `before` is required, and `first`/`after` refused. */
export function twoWayPageArgs(
  args: TwoWayArgs,
  isCursor: (value: unknown) => value is string = isString,
): PageArgs | NewerPageArgs {
  if (!isBackwardOnly(args)) return { first: pageSize(args.first), after: decodeCursor(args.after, 'after', isCursor) };
  const last = pageSize(args.last, 'last');
  const before = decodeCursor(args.before, 'before', isCursor);
  if (before === null) throw badInput('before', 'is required with last: the cursor of the newest entry the client has');
  return { last, before };
}

/** Wraps the backend's own list positions into the API's opaque cursors. */
export function withOpaqueCursors<P extends IdPage>(page: P): P {
  return { ...page, items: page.items.map((item) => ({ id: item.id, cursor: encodeCursor(item.cursor) })) };
}
