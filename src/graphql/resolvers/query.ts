import { badInput } from '../../domain/errors.js';
import { idKind } from '../../domain/ids.js';
import type { CommentRecord, PostRecord, UserRecord } from '../../domain/models.js';
import type { NotificationGroup } from '../../stores/notification-store.js';
import type { GraphQLContext } from '../context.js';
import { nodeTypeName } from '../node-types.js';
import { notificationById } from '../notifications.js';
import { MAX_BATCH, loadAll } from '../loaders.js';
import type { QueryResolvers } from '../generated/resolvers-types.js';
import { normalizeHandle } from '../../domain/validation.js';
import {
  blockedAccounts,
  publicConnection,
  searchConnection,
  startUserReads,
  tagConnection,
  userListConnection,
  visibleComment,
} from '../feeds.js';
import { userById } from './user.js';

const isUserId = (id: string) => idKind(id) === 'usr';

/** Any node the viewer may see by its id, through the same loaders and rules as its lists; null for the rest. */
function nodeById(context: GraphQLContext, id: string): Promise<NodeModel | null> {
  const { loaders } = context;
  switch (nodeTypeName(id)) {
    case 'User':
      return loaders.user.load(id);
    case 'Post':
      return loaders.post.load(id);
    case 'Comment':
      return visibleComment(context, id);
    case 'Notification':
      return notificationById(context, id);
    default:
      return Promise.resolve(null);
  }
}

type NodeModel = UserRecord | PostRecord | CommentRecord | NotificationGroup;

export const Query: QueryResolvers = {
  viewer: (_parent, _args, context, info) => {
    if (!context.viewerId) return null;
    startUserReads(context, info, context.viewerId);
    return userById(context, context.viewerId);
  },

  user: async (_parent, { id, handle }, context, info) => {
    const { loaders } = context;
    if ((id == null) === (handle == null)) throw badInput('id', 'give exactly one of id and handle');
    const userId =
      id != null ? (isUserId(id) ? id : null) : await loaders.userIdByHandle.load(normalizeHandle(handle!, 'handle'));
    if (!userId) return null;
    startUserReads(context, info, userId);
    return userById(context, userId);
  },

  users: async (_parent, { ids }, { loaders }) => {
    if (ids.length > MAX_BATCH) throw badInput('ids', `at most ${MAX_BATCH} ids`);
    // Ids of another shape name no user: null in their place, without a lookup.
    const users = await loadAll(loaders.user, ids.filter(isUserId));
    let next = 0;
    return ids.map((id) => (isUserId(id) ? users[next++]! : null));
  },

  node: (_parent, { id }, context) => nodeById(context, id),
  comment: (_parent, { id }, context) => (idKind(id) === 'cmt' ? visibleComment(context, id) : null),
  nodes: (_parent, { ids }, context) => {
    if (ids.length > MAX_BATCH) throw badInput('ids', `at most ${MAX_BATCH} ids`);
    return Promise.all(ids.map((id) => nodeById(context, id)));
  },

  rateLimit: (_parent, _args, { demand }) =>
    demand?.rate
      ? {
          cost: demand.estimated,
          maxCost: demand.maxCost,
          limit: demand.rate.limit,
          remaining: demand.rate.remaining,
          restoreRate: demand.rate.restoreRate,
          resetAt: new Date(demand.rate.resetAtMs).toISOString(),
        }
      : null,
  post: (_parent, { id }, { loaders }) => (idKind(id) === 'pst' ? loaders.post.load(id) : null),
  tagTimeline: (_parent, { tag, ...args }, context, info) => tagConnection(context, info, tag, args),
  publicTimeline: (_parent, args, context, info) => publicConnection(context, info, args),
  suggestedFollows: (_parent, { first }, context) =>
    context.useCases.graphQueries.suggestedFollows(
      context.viewerId,
      first,
      context.graphBudget,
      blockedAccounts(context),
      (ids) => loadAll(context.loaders.user, ids),
    ),
  degreesOfSeparation: (_parent, { from, to, maxDepth }, context) =>
    context.useCases.graphQueries.degreesOfSeparation(
      from,
      to,
      maxDepth,
      context.graphBudget,
      blockedAccounts(context),
    ),
  searchUsers: (_parent, args, context, info) => searchConnection(context, info, args),
  trendingTags: (_parent, { first }, { useCases }) => useCases.tags.trending(first),
  searchTags: (_parent, { prefix, first }, { useCases }) => useCases.tags.search(prefix, first),
  network: (_parent, args, context, info) =>
    userListConnection(
      context,
      info,
      { kind: 'network', userId: args.userId, maxDepth: args.maxDepth, interest: args.interest },
      args,
    ),
};
