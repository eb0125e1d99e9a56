import type { NotificationResolvers } from '../generated/resolvers-types.js';
import { notificationActors, notificationId } from '../notifications.js';

export const Notification: NotificationResolvers = {
  id: (group) => notificationId(group),
  post: (group, _args, { loaders }) => (group.postId === null ? null : loaders.post.load(group.postId)),
  actors: (group, { first }, context) => notificationActors(context, group, first),
  updatedAt: (group) => new Date(group.updatedAtMs).toISOString(),
};
