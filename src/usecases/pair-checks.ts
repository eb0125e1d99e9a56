import { badInput, notFound, unauthenticated } from '../domain/errors.js';
import { requireIdOf } from '../domain/ids.js';
import type { UserRecord } from '../domain/models.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import type { UserStore } from '../stores/user-store.js';

/** An account deleteAccount closed is readable until its deletion task ends, but takes no new relationship. */
const open = (user: UserRecord | null): user is UserRecord => user !== null && user.closedAt === undefined;

/**
 * The viewer and another existing user, checked for the end of a relationship between them (`verb`: unfollow,
 * unblock, unmute): signed in, not the viewer itself, an account that exists, closed or not.
 */
export function checkPair(users: UserStore, viewerId: string | null, userId: string, verb: string): Promise<string> {
  return checkUsers(users, viewerId, userId, verb, (user) => user !== null);
}

/** As checkPair, for a new relationship (`verb`: follow, block, mute): the other account must also be open. */
export function checkNewPair(users: UserStore, viewerId: string | null, userId: string, verb: string): Promise<string> {
  return checkUsers(users, viewerId, userId, verb, open);
}

async function checkUsers(
  users: UserStore,
  viewerId: string | null,
  userId: string,
  verb: string,
  found: (user: UserRecord | null) => boolean,
): Promise<string> {
  if (!viewerId) throw unauthenticated();
  if (userId === viewerId) throw badInput('userId', `you cannot ${verb} yourself`);
  requireIdOf('usr', userId, 'userId');
  // Strongly consistent: an account created a moment ago must be followable.
  const [user] = await users.getMany([userId], { consistent: true });
  if (!found(user ?? null)) throw notFound('User', userId);
  return viewerId;
}

/**
 * Takes back a new follow, block or mute when either account was closed meanwhile (its check saw it open), and
 * removes the node the write recreated for an account whose deletion has removed it (see
 * docs/design/account-deletion.md). Fails as `checkNewPair` would.
 */
export async function failIfClosedMeanwhile(
  users: UserStore,
  graph: GraphStore,
  viewerId: string,
  userId: string,
  undo: () => Promise<unknown>,
): Promise<void> {
  const [viewer, user] = await users.getMany([viewerId, userId], { consistent: true });
  if (open(viewer ?? null) && open(user ?? null)) return;
  try {
    await undo();
  } finally {
    // A closed account's node is its deletion's to remove.
    await Promise.all([viewer ? null : graph.removeNode(viewerId), user ? null : graph.removeNode(userId)]);
  }
  if (open(viewer ?? null)) throw notFound('User', userId);
  throw unauthenticated(viewer ? 'The account of this token was deleted' : 'The account of this token does not exist');
}
