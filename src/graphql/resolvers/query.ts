import { badInput } from '../../domain/errors.js';
import { idKind } from '../../domain/ids.js';
import { MAX_BATCH } from '../loaders.js';
import type { QueryResolvers } from '../generated/resolvers-types.js';
import { normalizeHandle } from '../../domain/validation.js';
import { notImplemented } from './not-implemented.js';

export const Query: QueryResolvers = {
  viewer: (_parent, _args, { viewerId, loaders }) => (viewerId ? loaders.user.load(viewerId) : null),

  user: async (_parent, { id, handle }, { loaders }) => {
    if ((id == null) === (handle == null)) throw badInput('id', 'give exactly one of id and handle');
    if (id != null) return loaders.user.load(id);
    const userId = await loaders.userIdByHandle.load(normalizeHandle(handle!, 'handle'));
    return userId ? loaders.user.load(userId) : null;
  },

  users: async (_parent, { ids }, { loaders }) => {
    if (ids.length > MAX_BATCH) throw badInput('ids', `at most ${MAX_BATCH} ids`);
    return loaders.user.loadMany(ids).then((users) =>
      users.map((user) => {
        if (user instanceof Error) throw user;
        return user;
      }),
    );
  },

  node: async (_parent, { id }, { loaders }) => {
    switch (idKind(id)) {
      case 'usr':
        return loaders.user.load(id);
      default:
        return null;
    }
  },

  post: () => notImplemented('Query.post'),
  tagTimeline: () => notImplemented('Query.tagTimeline'),
  publicTimeline: () => notImplemented('Query.publicTimeline'),
  suggestedFollows: () => notImplemented('Query.suggestedFollows'),
  degreesOfSeparation: () => notImplemented('Query.degreesOfSeparation'),
  network: () => notImplemented('Query.network'),
};
