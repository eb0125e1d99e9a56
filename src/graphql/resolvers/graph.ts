import type { UserRecord } from '../../domain/models.js';
import type { IdPage } from '../../stores/graph/graph-store.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import type { Loaders } from '../loaders.js';
import type { UserConnectionModel } from '../models.js';

/** Users by id through the per-request loader (one batch), in order, leaving out ids with no user. */
export async function loadUsers(loaders: Loaders, ids: readonly string[]): Promise<UserRecord[]> {
  const users = await loaders.user.loadMany(ids);
  return users.flatMap((user) => {
    if (user instanceof Error) throw user;
    return user ? [user] : [];
  });
}

async function loadUser(loaders: Loaders, id: string): Promise<UserRecord> {
  const user = await loaders.user.load(id);
  if (!user) throw new Error(`The graph names user ${id}, which does not exist`);
  return user;
}

/** A page of user ids from the graph as a UserConnection, its users loaded in one batch. */
export async function userConnection(page: IdPage, loaders: Loaders, totalCount: () => Promise<number>): Promise<UserConnectionModel> {
  const users = await loaders.user.loadMany(page.items.map((item) => item.id));
  const items = page.items.flatMap((item, i) => {
    const user = users[i];
    if (user instanceof Error) throw user;
    return user ? [{ cursor: item.cursor, node: user }] : [];
  });
  return { page: { items, hasNextPage: page.hasNextPage }, totalCount };
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
