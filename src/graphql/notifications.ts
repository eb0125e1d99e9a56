import { idPattern } from '../domain/ids.js';
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
export async function notificationEvent(
  context: GraphQLContext,
  group: NotificationGroup,
): Promise<NotificationGroup | null> {
  const shown = await context.useCases.feeds.notifications.live(group, feedContext(context));
  return shown && withPreview(shown).node;
}

/** A group's newest `first` actors that the viewer sees: from its page's preview when it has them, else read. */
export async function notificationActors(
  context: GraphQLContext,
  group: NotificationGroup,
  first: number | null | undefined,
): Promise<UserRecord[]> {
  const size = pageSize(first);
  const preview = previews.get(group);
  if (preview && (preview.complete || preview.actors.length >= size)) return preview.actors.slice(0, size);
  return context.useCases.feeds.notifications.actors(group, size, feedContext(context));
}

/** A group's id: stable for the recipient and the group. */
export function notificationId(group: Pick<NotificationGroup, 'recipientId' | 'groupKey'>): string {
  return `ntf_${Buffer.from(`${group.recipientId}|${group.groupKey}`, 'utf8').toString('base64url')}`;
}

const NOTIFICATION_REF = new RegExp(
  `^(${idPattern('usr')})\\|((?:LIKE|REPOST|COMMENT|MENTION|REPLY)#${idPattern('pst')}|FOLLOW#\\d{4}-\\d{2}-\\d{2})$`,
);

/** The recipient and group a notification id names, or null when it is not one the API gives out. */
export function notificationRef(id: string): { recipientId: string; groupKey: string } | null {
  if (!/^ntf_[A-Za-z0-9_-]+$/.test(id)) return null;
  const match = NOTIFICATION_REF.exec(Buffer.from(id.slice(4), 'base64url').toString('utf8'));
  return match ? { recipientId: match[1]!, groupKey: match[2]! } : null;
}

/** A notification by its id, as the viewer's page would show it: null for another's, a gone one or one the rules leave out. */
export async function notificationById(context: GraphQLContext, id: string): Promise<NotificationGroup | null> {
  const ref = notificationRef(id);
  if (!ref || ref.recipientId !== context.viewerId) return null;
  const group = await context.loaders.notificationGroup.load(ref);
  if (!group) return null;
  const shown = await context.useCases.feeds.notifications.live(group, feedContext(context));
  return shown && withPreview(shown).node;
}
