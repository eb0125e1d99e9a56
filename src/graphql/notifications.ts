import type { UserRecord } from '../domain/models.js';
import { pageSize } from '../domain/validation.js';
import type { ShownGroup } from '../usecases/feeds/notifications.js';
import { runFeed } from '../usecases/feeds/pipeline.js';
import type { NotificationGroup } from '../stores/notification-store.js';
import type { GraphQLContext } from './context.js';
import { feedContext } from './feeds.js';
import type { NotificationConnectionModel, NotificationEdgeModel } from './models.js';

/** The actors a page's rules kept of each group's preview, for its `actors` field (a WeakMap: groups are per-request objects). */
const previews = new WeakMap<NotificationGroup, { actors: UserRecord[]; complete: boolean }>();

function withPreview({ cursor, node, actors, complete }: ShownGroup): NotificationEdgeModel {
  previews.set(node, { actors, complete });
  return { cursor, node };
}

export async function notificationConnection(
  context: GraphQLContext,
  userId: string,
  args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null },
): Promise<NotificationConnectionModel> {
  const page = await runFeed(context.useCases.feeds.notifications, { userId, ...args }, feedContext(context));
  return { ...page, items: page.items.map(withPreview) };
}

/** A group that changed, as notificationReceived sends it: null when a page would leave it out. */
export async function notificationEvent(context: GraphQLContext, group: NotificationGroup): Promise<NotificationGroup | null> {
  const shown = await context.useCases.feeds.notifications.live(group, feedContext(context));
  return shown && withPreview(shown).node;
}

/** A group's newest `first` actors that the viewer sees: from its page's preview when it has them, else read. */
export async function notificationActors(context: GraphQLContext, group: NotificationGroup, first: number | null | undefined): Promise<UserRecord[]> {
  const size = pageSize(first);
  const preview = previews.get(group);
  if (preview && (preview.complete || preview.actors.length >= size)) return preview.actors.slice(0, size);
  return context.useCases.feeds.notifications.actors(group, size, feedContext(context));
}

/** A group's id: stable for the recipient and the group. */
export function notificationId(group: NotificationGroup): string {
  return `ntf_${Buffer.from(`${group.recipientId}|${group.groupKey}`, 'utf8').toString('base64url')}`;
}
