import { pageSize } from '../domain/validation.js';
import type { UserRecord } from '../domain/models.js';
import type { NotificationGroup } from '../stores/notification-store.js';
import { type Hydrated, fillPage, isShown } from '../usecases/feeds/pipeline.js';
import { hiddenUsers } from '../usecases/feeds/visibility.js';
import type { NotificationPage } from '../usecases/notifications.js';
import { notificationRules, visibleActors } from '../usecases/notification-pipeline.js';
import type { GraphQLContext } from './context.js';
import { hydratorOf } from './loaders.js';
import type { NotificationConnectionModel } from './models.js';

/** Actor ids the skeleton reads per group: what `actors` shows without a read of its own (its default page). */
export const ACTOR_PREVIEW = 20;

/** What the rules kept of a group: its actors of the preview, and whether the preview was all of them. */
interface Preview {
  actors: UserRecord[];
  complete: boolean;
}

/** A group's preview from its connection, by group (a WeakMap: groups are per-request objects). */
const previews = new WeakMap<NotificationGroup, Preview>();

/**
 * The GraphQL end of the notification pipeline: skeleton, hydration with rules, presentation. A
 * forward page the rules shorten reads further, as timelines do (`fillPage`); a backward page
 * (pull-to-refresh) returns what is newer than the cursor as read, and the client asks again from its start.
 */
export async function notificationConnection(
  context: GraphQLContext,
  userId: string,
  args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null },
): Promise<NotificationConnectionModel> {
  const { notifications } = context.useCases;
  const shown = (page: Pick<NotificationPage, 'items'>) => shownGroups(context, userId, page.items);
  const page = await notifications.list(context.viewerId, userId, args);
  const startCursor = page.items[0]?.cursor ?? null;
  if ((args.last ?? null) !== null) {
    const items = (await shown(page)).filter(isShown);
    return { items, hasNextPage: false, hasPreviousPage: page.hasPreviousPage, startCursor, endCursor: page.items.at(-1)?.cursor ?? null };
  }
  const readAfter = (after: string) => notifications.list(context.viewerId, userId, { first: args.first, after });
  const filled = await fillPage(pageSize(args.first), page, readAfter, shown);
  return { items: filled.items, hasNextPage: filled.hasNextPage, hasPreviousPage: false, startCursor, endCursor: filled.endCursor };
}

/**
 * The skeleton's groups through hydration and the rules, for `userId` (the recipient): aligned,
 * null where the rules leave a group out (no actor the viewer sees, or a post that is gone or by
 * an account in a block with the viewer). A page and a live event (notificationReceived) both
 * come through here. Each kept group's actors are remembered for its `actors` field.
 */
export async function shownGroups(context: GraphQLContext, userId: string, items: readonly { cursor: string; node: NotificationGroup }[]): Promise<Hydrated<NotificationGroup>[]> {
  const { notifications } = context.useCases;
  const skeleton = await Promise.all(items.map(async (item) => ({ cursor: item.cursor, group: item.node, actorIds: await notifications.actors(item.node, ACTOR_PREVIEW) })));
  const kept = await notificationRules(skeleton, userId, hydratorOf(context.loaders));
  return kept.map((entry, i) => {
    if (!entry) return { cursor: skeleton[i]!.cursor, node: null };
    previews.set(entry.group, { actors: entry.actors, complete: skeleton[i]!.actorIds.length < ACTOR_PREVIEW });
    return { cursor: entry.cursor, node: entry.group };
  });
}

/** A group's newest `first` actors that the viewer sees: from the connection's preview when it has them, else read. */
export async function notificationActors(context: GraphQLContext, group: NotificationGroup, first: number | null | undefined): Promise<UserRecord[]> {
  const size = pageSize(first);
  const preview = previews.get(group);
  if (preview && (preview.complete || preview.actors.length >= size)) return preview.actors.slice(0, size);
  const ids = await context.useCases.notifications.actors(group, size);
  const hydrator = hydratorOf(context.loaders);
  const [users, hidden] = await Promise.all([hydrator.users(ids), hiddenUsers(context.viewerId, ids, true, hydrator)]);
  return visibleActors(ids, new Map(ids.map((id, i) => [id, users[i] ?? null])), hidden);
}

/** A group's id: stable for the recipient and the group. */
export function notificationId(group: NotificationGroup): string {
  return `ntf_${Buffer.from(`${group.recipientId}|${group.groupKey}`, 'utf8').toString('base64url')}`;
}
