import { badInput, notFound, unauthenticated } from '../domain/errors.js';
import { requireIdOf } from '../domain/ids.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import type { UserStore } from '../stores/user-store.js';

/**
 * The viewer and another existing user, checked for a change of the relationship between them
 * (`verb`: follow, block, mute...): signed in, not the viewer itself, an account that exists; for a new one
 * (`making`), also not closed: an account being deleted takes no new follows, blocks or mutes, but can be let go.
 */
export async function checkPair(
  users: UserStore,
  viewerId: string | null,
  userId: string,
  verb: string,
  making: boolean,
): Promise<string> {
  if (!viewerId) throw unauthenticated();
  if (userId === viewerId) throw badInput('userId', `you cannot ${verb} yourself`);
  requireIdOf('usr', userId, 'userId');
  // Strongly consistent: an account created a moment ago must be followable.
  const [user] = await users.getMany([userId], { consistent: true });
  if (!user || (making && user.closedAt !== undefined)) throw notFound('User', userId);
  return viewerId;
}

/**
 * Takes back a follow, block or mute that landed after either account's deletion removed its graph node,
 * and removes the recreated node (see docs/design/account-deletion.md). Fails as `checkPair` would.
 */
export async function failIfDeletedMeanwhile(
  users: UserStore,
  graph: GraphStore,
  viewerId: string,
  userId: string,
  undo: () => Promise<unknown>,
): Promise<void> {
  const [viewer, user] = await users.getMany([viewerId, userId], { consistent: true });
  if (viewer && user) return;
  try {
    await undo();
  } finally {
    await Promise.all([viewer ? null : graph.removeNode(viewerId), user ? null : graph.removeNode(userId)]);
  }
  throw viewer ? notFound('User', userId) : unauthenticated('The account of this token does not exist');
}
