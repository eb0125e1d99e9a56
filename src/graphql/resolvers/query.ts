import { badInput } from '../../domain/errors.js';
import { idKind } from '../../domain/ids.js';
import { MAX_BATCH, loadAll } from '../loaders.js';
import type { QueryResolvers } from '../generated/resolvers-types.js';
import { normalizeHandle } from '../../domain/validation.js';
import { countedUserConnection } from './graph.js';
import { loadPostPage } from './post.js';

const isUserId = (id: string) => idKind(id) === 'usr';

export const Query: QueryResolvers = {
  viewer: (_parent, _args, { viewerId, loaders }) => (viewerId ? loaders.user.load(viewerId) : null),

  user: async (_parent, { id, handle }, { loaders }) => {
    if ((id == null) === (handle == null)) throw badInput('id', 'give exactly one of id and handle');
    if (id != null) return isUserId(id) ? loaders.user.load(id) : null;
    const userId = await loaders.userIdByHandle.load(normalizeHandle(handle!, 'handle'));
    return userId ? loaders.user.load(userId) : null;
  },

  users: async (_parent, { ids }, { loaders }) => {
    if (ids.length > MAX_BATCH) throw badInput('ids', `at most ${MAX_BATCH} ids`);
    // Ids of another shape name no user: null in their place, without a lookup.
    const users = await loadAll(loaders.user, ids.filter(isUserId));
    let next = 0;
    return ids.map((id) => (isUserId(id) ? users[next++]! : null));
  },

  node: async (_parent, { id }, { loaders }) => {
    switch (idKind(id)) {
      case 'usr':
        return loaders.user.load(id);
      case 'pst':
        return loaders.post.load(id);
      case 'cmt':
        return loaders.comment.load(id);
      default:
        return null;
    }
  },

  post: (_parent, { id }, { loaders }) => (idKind(id) === 'pst' ? loaders.post.load(id) : null),
  tagTimeline: async (_parent, { tag, first, after }, { useCases, loaders }) => loadPostPage(await useCases.timelines.tag(tag, first, after), loaders),
  publicTimeline: async (_parent, { first, after }, { useCases, loaders }) => loadPostPage(await useCases.timelines.public(first, after), loaders),
  suggestedFollows: (_parent, { first }, { useCases, viewerId, graphBudget }) => useCases.graphQueries.suggestedFollows(viewerId, first, graphBudget),
  degreesOfSeparation: (_parent, { from, to, maxDepth }, { useCases, graphBudget }) =>
    useCases.graphQueries.degreesOfSeparation(from, to, maxDepth, graphBudget),
  network: async (_parent, args, { useCases, loaders, graphBudget }) => countedUserConnection(await useCases.graphQueries.network(args, graphBudget), loaders),
};
