import type { NotificationCause, NotificationKind } from '../../domain/models.js';
import type { NotificationGroup } from '../notification-store.js';
import { RECENT_ACTORS } from '../notification-store.js';
import { cancellationReasons } from './batch.js';
import { keys } from './keys.js';

export type Item = Record<string, unknown>;

const DAY_MS = 86_400_000;

/** The group a cause belongs in: its kind and post, or FOLLOW and the (UTC) day. */
export function groupKeyOf(cause: NotificationCause, atMs: number): string {
  return cause.kind === 'FOLLOW'
    ? `FOLLOW#${new Date(Math.floor(atMs / DAY_MS) * DAY_MS).toISOString().slice(0, 10)}`
    : `${cause.kind}#${cause.postId}`;
}

/** Recent actors are kept as `<ms, 15 digits>#<actorId>`, newest first, so that they sort as the actor entries do. */
export const actorIdOf = (recent: string) => recent.slice(recent.indexOf('#') + 1);

/** An actor entry of a group as one of its recent actors. */
export const recentActorOf = (entry: Item) =>
  keys.followListPosition(Number((entry.sk as string).split('#').at(-2)), entry.actorId as string);

/** The recent actors after `actorId` acted at `atMs` (moved to its place if it was there). */
export function withRecentActor(recent: readonly string[], actorId: string, atMs: number): string[] {
  const entry = keys.followListPosition(atMs, actorId);
  return [...recent.filter((other) => actorIdOf(other) !== actorId), entry]
    .sort((a, b) => (a < b ? 1 : -1))
    .slice(0, RECENT_ACTORS);
}

/** A notification group as addActor writes it: unread, with its actors' count and the newest of them. */
export function notificationGroupItem(group: {
  recipientId: string;
  groupKey: string;
  kind: NotificationKind;
  postId: string | null;
  generation: string;
  actorCount: number;
  recentActors: string[];
  updatedAtMs: number;
  version: number;
}): Item {
  const { postId, ...fields } = group;
  return {
    ...keys.notificationGroup(group.recipientId, group.groupKey),
    ...fields,
    ...(postId === null ? {} : { postId }),
    unread: true,
  };
}

export function toGroup(item: Item): NotificationGroup {
  const updatedAtMs = Number(item.updatedAtMs);
  const groupKey = item.groupKey as string;
  const recent = item.recentActors as string[] | undefined;
  return {
    recipientId: item.recipientId as string,
    groupKey,
    kind: item.kind as NotificationKind,
    postId: (item.postId as string | undefined) ?? null,
    actorCount: Number(item.actorCount),
    updatedAtMs,
    read: item.unread !== true,
    position: keys.notificationPosition(updatedAtMs, groupKey),
    recentActorIds: recent ? recent.map(actorIdOf) : null,
  };
}

/** A lost race: another writer changed the group (or the member) since it was read. */
export function lostRace(error: unknown): boolean {
  return cancellationReasons(error)?.includes('ConditionalCheckFailed') === true;
}
