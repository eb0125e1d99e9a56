import { pageSize } from '../domain/validation.js';
import type { UserRecord } from '../domain/models.js';
import type { NotificationGroup } from '../stores/notification-store.js';
import { hiddenUsers } from '../usecases/feed-pipeline.js';
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

/** The GraphQL end of the notification pipeline: skeleton, hydration with rules, presentation. */
export async function notificationConnection(
  context: GraphQLContext,
  userId: string,
  args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null },
): Promise<NotificationConnectionModel> {
  const page = await context.useCases.notifications.list(context.viewerId, userId, args);
  const skeleton = await Promise.all(
    page.items.map(async (item) => ({ cursor: item.cursor, group: item.node, actorIds: await context.useCases.notifications.actors(item.node, ACTOR_PREVIEW) })),
  );
  const shown = await notificationRules(skeleton, userId, hydratorOf(context.loaders));
  const items = shown.flatMap((entry, i) => {
    if (!entry) return [];
    previews.set(entry.group, { actors: entry.actors, complete: skeleton[i]!.actorIds.length < ACTOR_PREVIEW });
    return [{ cursor: entry.cursor, node: entry.group }];
  });
  return {
    items,
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage,
    startCursor: page.items[0]?.cursor ?? null,
    endCursor: page.items.at(-1)?.cursor ?? null,
  };
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
