import type { Page, PostRecord, UserRecord } from '../../domain/models.js';
import type { IdPage } from '../../stores/graph/graph-store.js';
import type { CounterUseCases } from '../counters.js';
import type { FollowUseCases } from '../follows.js';
import type { GraphQueryUseCases } from '../graph-queries.js';
import type { RelationshipUseCases } from '../relationships.js';
import type { RepostUseCases } from '../reposts.js';
import { type TwoWayArgs, twoWayPageArgs } from '../paging.js';
import type { Feed, FeedContext, Hydrated, ShownPage } from './pipeline.js';
import { type UserNeeds, hydrateUsers } from './user-steps.js';

/** The lists of users the API pages through, by the field that shows each. */
export type UserList =
  | { kind: 'followers' | 'following' | 'knownFollowers' | 'mutuals' | 'blockedUsers' | 'mutedUsers'; userId: string }
  | { kind: 'likedBy' | 'repostedBy'; post: PostRecord }
  | { kind: 'network'; userId: string; maxDepth?: number | null; interest?: string | null };

/** Followers and following also page backwards (`last`/`before`); the other lists take `first`/`after` only. */
export interface UserListParams extends TwoWayArgs {
  list: UserList;
  /** Whether the selection shows the page (`edges` or `pageInfo`), not only `totalCount`. */
  pageShown: boolean;
  /** What the page shows of each user; null: only the users (BATCHING=false). */
  needs: UserNeeds | null;
}

/** The skeleton: a page of ids, and for the lists that count as they read (known followers, mutuals, network) their size. */
type UserListSkeleton = IdPage & { totalCount?: number };

type UserEntry = UserListSkeleton['items'][number];

/** A page of users and the list's size, computed only when asked. */
export interface UserListPage {
  page: Page<UserRecord>;
  totalCount: () => Promise<number>;
}

/** The use cases that read the lists: each checks its arguments and who may read it. */
export interface UserListSources {
  follows: Pick<FollowUseCases, 'followers' | 'following' | 'knownFollowers' | 'mutuals'>;
  relationships: Pick<RelationshipUseCases, 'list' | 'count'>;
  counters: Pick<CounterUseCases, 'likers'>;
  reposts: Pick<RepostUseCases, 'reposters'>;
  graphQueries: Pick<GraphQueryUseCases, 'network'>;
}

const NO_PAGE: UserListSkeleton = { items: [], hasNextPage: false };

/** Followers, following, known followers, mutuals, a post's likers and reposters, blocked and muted accounts, a network. */
export class UserListFeed implements Feed<UserListParams, UserEntry, Hydrated<UserRecord>, UserListPage> {
  constructor(private readonly sources: UserListSources) {}

  /**
   * A list whose size is kept apart (a follow count, a post's counter) is not read when the selection
   * shows only its `totalCount`, unless after a cursor: the store is what checks a cursor.
   */
  async skeleton(params: UserListParams, { viewerId, graphBudget, blocked }: FeedContext): Promise<UserListSkeleton> {
    const { list, first, after, pageShown } = params;
    const { follows, relationships, counters, reposts, graphQueries } = this.sources;
    const ifShown = (read: () => Promise<IdPage>) => {
      if (pageShown || after != null || params.before != null) return read();
      twoWayPageArgs(params);
      return NO_PAGE;
    };
    switch (list.kind) {
      case 'followers':
        return ifShown(() => follows.followers(list.userId, params, graphBudget));
      case 'following':
        return ifShown(() => follows.following(list.userId, params, graphBudget));
      case 'likedBy':
        return ifShown(() => counters.likers(list.post.id, params));
      case 'repostedBy':
        return ifShown(() => reposts.reposters(list.post.id, params));
      case 'knownFollowers':
        return follows.knownFollowers(viewerId, list.userId, first, after, graphBudget, blocked);
      case 'mutuals':
        return follows.mutuals(list.userId, first, after, graphBudget, blocked);
      case 'blockedUsers':
        return relationships.list('blocks', viewerId, list.userId, params, graphBudget);
      case 'mutedUsers':
        return relationships.list('mutes', viewerId, list.userId, params, graphBudget);
      case 'network':
        return graphQueries.network(
          { userId: list.userId, maxDepth: list.maxDepth, interest: list.interest, first, after },
          graphBudget,
          blocked,
        );
    }
  }

  /** A list's page is exact: the lists that must leave out accounts in a block with the viewer do so as they read. */
  readOn(): null {
    return null;
  }

  /** The users and what the selection shows of them (follow counts, the viewer's flags and relations), in one wave. */
  hydration(page: UserListSkeleton, { needs }: UserListParams, ctx: FeedContext): Promise<Hydrated<UserRecord>[]> {
    return hydrateUsers(page, ctx, needs);
  }

  /** An account that is gone has no node, and is left out. */
  rules(entries: Hydrated<UserRecord>[]): Promise<Hydrated<UserRecord>[]> {
    return Promise.resolve(entries);
  }

  presentation(
    { items, hasNextPage, endCursor, read }: ShownPage<UserEntry, Hydrated<UserRecord>>,
    { list }: UserListParams,
    ctx: FeedContext,
  ): UserListPage {
    return {
      page: {
        items,
        hasNextPage,
        endCursor,
        startCursor: read.items[0]?.cursor ?? null,
        ...(read.hasPreviousPage === undefined ? {} : { hasPreviousPage: read.hasPreviousPage }),
      },
      totalCount: () => this.totalCount(list, read, ctx),
    };
  }

  private async totalCount(
    list: UserList,
    read: UserListSkeleton,
    { hydrator, graphBudget }: FeedContext,
  ): Promise<number> {
    switch (list.kind) {
      case 'followers':
        return (await hydrator.followCounts([list.userId]))[0]!.followers;
      case 'following':
        return (await hydrator.followCounts([list.userId]))[0]!.following;
      case 'likedBy':
        return (await hydrator.postCounts([list.post]))[0]!.likeCount;
      case 'repostedBy':
        return (await hydrator.postCounts([list.post]))[0]!.repostCount;
      case 'blockedUsers':
        return this.sources.relationships.count('blocks', list.userId, graphBudget);
      case 'mutedUsers':
        return this.sources.relationships.count('mutes', list.userId, graphBudget);
      default:
        return read.totalCount!;
    }
  }
}
