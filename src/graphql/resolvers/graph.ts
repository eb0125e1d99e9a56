import type { GraphQLResolveInfo } from 'graphql';
import type { UserRecord } from '../../domain/models.js';
import { type CountedPage, NOBODY } from '../../stores/graph/graph-store.js';
import type { BlockedAccounts } from '../../usecases/relationships.js';
import type { GraphQLContext } from '../context.js';
import { userConnection } from '../feeds.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { type Loaders, loadAll } from '../loaders.js';
import type { UserConnectionModel } from '../models.js';

/** Users by id through the per-request loader (one batch), in order, leaving out ids with no user. */
export async function loadUsers(loaders: Loaders, ids: readonly string[]): Promise<UserRecord[]> {
  return (await loadAll(loaders.user, ids)).filter((user): user is UserRecord => user !== null);
}

async function loadUser(loaders: Loaders, id: string): Promise<UserRecord> {
  const user = await loaders.user.load(id);
  if (!user) throw new Error(`The graph names user ${id}, which does not exist`);
  return user;
}

/** The accounts in a block with the request's viewer, read at most once per request. */
export function blockedAccounts(context: GraphQLContext): BlockedAccounts {
  const { viewerId, loaders } = context;
  return async () => (viewerId ? loaders.blockedAccounts.load(viewerId) : NOBODY);
}

/** A page that came with its list's size (network, known followers, mutuals) as a UserConnection. */
export function countedUserConnection(page: CountedPage, context: GraphQLContext, info: GraphQLResolveInfo): Promise<UserConnectionModel> {
  return userConnection(page, context, info, async () => page.totalCount);
}

export const graph: Pick<Resolvers, 'Suggestion' | 'Separation'> = {
  Suggestion: {
    user: (suggestion, _args, { loaders }) => loadUser(loaders, suggestion.userId),
    mutualCount: (suggestion) => suggestion.mutualCount,
    via: (suggestion, _args, { loaders }) => loadUsers(loaders, suggestion.viaIds),
  },
  Separation: {
    degrees: (separation) => separation.degrees,
    path: (separation, _args, { loaders }) => loadUsers(loaders, separation.pathIds),
  },
};
