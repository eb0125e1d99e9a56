import { RECENT_ACTORS } from '../stores/notification-store.js';
import { SMALL_ITEM_WRITE_UNITS, readUnits, writeUnits } from './dynamodb-capacity.js';
import type { ItemSizes } from './items.js';
import type { CapacityLine } from './model-types.js';

/** What notifies, per second. */
export interface NotifyingRates {
  likes: number;
  reposts: number;
  mentions: number;
  follows: number;
}

/** A post's notification group holding `actors` recent actors (at least one, at most RECENT_ACTORS), in bytes. */
export function notificationGroupBytes(sizes: ItemSizes, actors: number): number {
  return sizes.notificationGroup + (Math.min(RECENT_ACTORS, Math.max(1, actors)) - 1) * sizes.recentActor;
}

/**
 * The notifications' reads and writes. Each like, repost, mention and follow enqueues a `notify` task in its own
 * transaction; the worker's NotifyHandler checks twice that what the actor did stands (the action's record, both
 * profiles, blocks both ways and the recipient's mute: strongly consistent, small or missing items), reads the member
 * and its group, and writes one transaction: the group (with up to RECENT_ACTORS recent actors), the member, its
 * mirror, the actor entry, and either the group's list entry moved (a delete and a put) or, for a new group, its list
 * entry and the unread state: five small items (a sixth, the unread state, when the recipient read the group since its
 * last actor, is not counted). A new group also has the recipient's groups counted (a read). `actorsOnLike` is how
 * many recent actors the group a like or repost joins holds on average; mention and follow groups are new, with one.
 */
export function notificationCosts(
  rates: NotifyingRates,
  sizes: ItemSizes,
  actorsOnLike: number,
): { tasks: number; line: CapacityLine } {
  const tasks = rates.likes + rates.reposts + rates.mentions + rates.follows;
  const likeGroup = notificationGroupBytes(sizes, actorsOnLike);
  const otherGroup = notificationGroupBytes(sizes, 1);
  const check = readUnits(0, true) + 2 * readUnits(sizes.user, true) + 3 * readUnits(0, true);
  const add = (group: number, isNew: boolean) => ({
    reads: readUnits(0, true) + readUnits(group, true) + (isNew ? readUnits(0, true) : 0),
    writes: 2 * (writeUnits(group) + 5 * SMALL_ITEM_WRITE_UNITS),
  });
  const onLike = add(likeGroup, false);
  const onOther = add(otherGroup, true);
  const liking = rates.likes + rates.reposts;
  const other = rates.mentions + rates.follows;
  return {
    tasks,
    line: {
      item: 'notification group, member, mirror, actor and list entries, unread state',
      by: 'like, repost, mention and follow: a notify task each; the worker checks twice that the action stands (strongly), reads the member and its group, and adds the actor in one transaction',
      writeUnitsPerSecond: liking * onLike.writes + other * onOther.writes,
      readUnitsPerSecond: tasks * 2 * check + liking * onLike.reads + other * onOther.reads,
    },
  };
}
