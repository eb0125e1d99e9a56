import type { UserRecord } from '../../domain/models.js';
import type { Resolvers } from '../generated/resolvers-types.js';
import { type Loaders, loadAll } from '../loaders.js';

/** Users by id through the per-request loader (one batch), in order, leaving out ids with no user. */
export async function loadUsers(loaders: Loaders, ids: readonly string[]): Promise<UserRecord[]> {
  return (await loadAll(loaders.user, ids)).filter((user): user is UserRecord => user !== null);
}

async function loadUser(loaders: Loaders, id: string): Promise<UserRecord> {
  const user = await loaders.user.load(id);
  if (!user) throw new Error(`The graph names user ${id}, which does not exist`);
  return user;
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
