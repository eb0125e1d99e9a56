import type { UserRecord } from '../../domain/models.js';
import type { IdPage, Relation } from '../../stores/graph/graph-store.js';
import type { FeedContext, Hydrated, Hydrator } from './pipeline.js';

/** What a page shows of each user, from the request's selection: hydration fetches nothing more. */
export interface UserNeeds {
  followCounts: boolean;
  viewerFollows: boolean;
  followsViewer: boolean;
  viewerBlocks: boolean;
  blocksViewer: boolean;
  viewerMutes: boolean;
}

const NO_USER_NEEDS: UserNeeds = {
  followCounts: false,
  viewerFollows: false,
  followsViewer: false,
  viewerBlocks: false,
  blocksViewer: false,
  viewerMutes: false,
};

/** Hydrates a page of users in one wave: the users and, as far as `needs` asks (null: nothing), their follow counts and flags. */
export async function hydrateUsers(
  page: IdPage,
  { viewerId, hydrator }: FeedContext,
  needs: UserNeeds | null,
): Promise<Hydrated<UserRecord>[]> {
  const ids = page.items.map((item) => item.id);
  const related = hydrateUserRelations(ids, viewerId, needs ?? NO_USER_NEEDS, hydrator);
  const users = await hydrator.users(ids);
  await related;
  return page.items.map((item, i) => ({ cursor: item.cursor, node: users[i] ?? null }));
}

/** The users' follow counts and the viewer's flags and relations with them, as far as `needs` asks; never fails (the fields report their own errors). */
export function hydrateUserRelations(
  userIds: readonly string[],
  viewerId: string | null,
  needs: UserNeeds,
  hydrator: Hydrator,
): Promise<unknown> {
  // Anonymous, the flags are false without a lookup (see the User resolvers).
  const flags = viewerId !== null && userIds.length > 0;
  // Nobody blocks or mutes themselves: no lookup for the viewer's own account. Only the directions shown are asked.
  const others = flags ? userIds.filter((id) => id !== viewerId) : [];
  const relations: Relation[] = [
    ...(needs.viewerBlocks ? others.map((id) => ({ kind: 'blocks' as const, from: viewerId!, to: id })) : []),
    ...(needs.blocksViewer ? others.map((id) => ({ kind: 'blocks' as const, from: id, to: viewerId! })) : []),
    ...(needs.viewerMutes ? others.map((id) => ({ kind: 'mutes' as const, from: viewerId!, to: id })) : []),
  ];
  return settled([
    needs.followCounts ? hydrator.followCounts(userIds) : null,
    flags && needs.viewerFollows ? hydrator.follows(userIds.map((id) => ({ from: viewerId, to: id }))) : null,
    flags && needs.followsViewer ? hydrator.follows(userIds.map((id) => ({ from: id, to: viewerId }))) : null,
    relations.length > 0 ? hydrator.relations(relations) : null,
  ]);
}

/** Waits for every lookup, whatever its outcome: hydration only fills the cache. */
export async function settled(lookups: (Promise<unknown> | null)[]): Promise<void> {
  await Promise.allSettled(lookups);
}
