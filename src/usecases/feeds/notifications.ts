import { encodeCursor } from '../../domain/cursor.js';
import type { PostRecord, UserRecord } from '../../domain/models.js';
import { pageSize } from '../../domain/validation.js';
import type { NotificationGroup } from '../../stores/notification-store.js';
import type { NotificationUseCases } from '../notifications.js';
import {
  type Feed,
  type FeedContext,
  type Hydrated,
  type ReadOn,
  type ShownPage,
  type SkeletonPage,
  isShown,
  shownEntries,
} from './pipeline.js';
import { hiddenUsers } from './visibility.js';

/** Actor ids the skeleton reads per group: what `actors` shows without a read of its own (its default page). */
export const ACTOR_PREVIEW = 20;

export interface NotificationParams {
  /** The recipient. */
  userId: string;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

interface GroupEntry {
  cursor: string;
  group: NotificationGroup;
  /** Its newest actors, at most ACTOR_PREVIEW. */
  actorIds: string[];
}

interface HydratedGroup extends Hydrated<NotificationGroup> {
  actorIds: string[];
  /** Null for a FOLLOW group, or when the post is gone. */
  post: PostRecord | null;
  users: ReadonlyMap<string, UserRecord | null>;
  /** Actors the viewer does not see: a block either way, or a mute. */
  hiddenActors: ReadonlySet<string>;
  /** What the rules keep of its actors. */
  actors: UserRecord[];
}

/** A group as a page shows it, with the actors of its preview that the viewer sees. */
export interface ShownGroup {
  cursor: string;
  node: NotificationGroup;
  actors: UserRecord[];
  /** Whether the preview held all of the group's actors. */
  complete: boolean;
}

export interface NotificationPage {
  items: ShownGroup[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** The first and last group read, even when the rules left them out, so that a page they emptied still leads on. */
  startCursor: string | null;
  endCursor: string | null;
}

/**
 * User.notifications: the recipient's groups, newest first, or backwards (`last`/`before`, for
 * catching up after a reconnect) those newer than the cursor. Only the recipient may read them.
 */
export class NotificationFeed implements Feed<NotificationParams, GroupEntry, HydratedGroup, NotificationPage> {
  constructor(private readonly notifications: Pick<NotificationUseCases, 'list' | 'actors'>) {}

  /** A page of groups, each with its newest actors' ids, which the group keeps: no read per group. */
  async skeleton(params: NotificationParams, ctx: FeedContext): Promise<SkeletonPage<GroupEntry>> {
    const page = await this.notifications.list(ctx.viewerId, params.userId, params);
    return {
      items: await this.withActors(page.items),
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
    };
  }

  /** A backward page is what it read: the client asks again from its start. */
  readOn({ userId, first, last }: NotificationParams, ctx: FeedContext): ReadOn<GroupEntry> | null {
    if ((last ?? null) !== null) return null;
    return { size: pageSize(first), after: (after) => this.skeleton({ userId, first, after }, ctx) };
  }

  /** The groups' posts, their actors, and the actors the viewer does not see, in one wave. */
  async hydration(
    page: SkeletonPage<GroupEntry>,
    _params: NotificationParams,
    { viewerId, hydrator }: FeedContext,
  ): Promise<HydratedGroup[]> {
    const postIds = [
      ...new Set(page.items.flatMap((entry) => (entry.group.postId === null ? [] : [entry.group.postId]))),
    ];
    const actorIds = [...new Set(page.items.flatMap((entry) => entry.actorIds))];
    const [posts, users, hiddenActors] = await Promise.all([
      hydrator.posts(postIds),
      hydrator.users(actorIds),
      hiddenUsers(viewerId, actorIds, true, hydrator),
    ]);
    const postById = new Map(postIds.map((id, i) => [id, posts[i] ?? null]));
    const userById = new Map(actorIds.map((id, i) => [id, users[i] ?? null]));
    return page.items.map(({ cursor, group, actorIds }) => ({
      cursor,
      node: group,
      actorIds,
      post: group.postId === null ? null : (postById.get(group.postId) ?? null),
      users: userById,
      hiddenActors,
      actors: [],
    }));
  }

  /**
   * A group is left out when the viewer sees none of its actors (blocks, mutes, deleted accounts), or
   * when its post is gone or by an account in a block with the viewer (a mention under it, say).
   */
  async rules(
    entries: HydratedGroup[],
    _params: NotificationParams,
    { viewerId, hydrator }: FeedContext,
  ): Promise<HydratedGroup[]> {
    const blockedAuthors = await hiddenUsers(
      viewerId,
      entries.flatMap((entry) => (entry.post ? [entry.post.authorId] : [])),
      false,
      hydrator,
    );
    return entries.map((entry) => {
      const postGone = entry.node?.postId != null && (entry.post === null || blockedAuthors.has(entry.post.authorId));
      const actors = visibleActors(entry.actorIds, entry.users, entry.hiddenActors);
      return { ...entry, actors, node: !postGone && actors.length > 0 ? entry.node : null };
    });
  }

  presentation({ items, hasNextPage, endCursor, read }: ShownPage<GroupEntry, HydratedGroup>): NotificationPage {
    return {
      items: items.map(shownGroup),
      hasNextPage,
      hasPreviousPage: read.hasPreviousPage ?? false,
      startCursor: read.items[0]?.cursor ?? null,
      endCursor,
    };
  }

  /** A group that changed (notificationReceived), through the same hydration and rules: null when a page would leave it out. */
  async live(group: NotificationGroup, ctx: FeedContext): Promise<ShownGroup | null> {
    const items = await this.withActors([{ cursor: encodeCursor(group.position), node: group }]);
    const [entry] = await shownEntries(this, { items, hasNextPage: false }, { userId: group.recipientId }, ctx);
    return entry && isShown(entry) ? shownGroup(entry) : null;
  }

  /** A group's newest `first` actors that the viewer sees, read for an `actors` field that its preview does not cover. */
  async actors(group: NotificationGroup, first: number, { viewerId, hydrator }: FeedContext): Promise<UserRecord[]> {
    const ids = await this.notifications.actors(group, first);
    const [users, hidden] = await Promise.all([hydrator.users(ids), hiddenUsers(viewerId, ids, true, hydrator)]);
    return visibleActors(ids, new Map(ids.map((id, i) => [id, users[i] ?? null])), hidden);
  }

  private withActors(items: readonly { cursor: string; node: NotificationGroup }[]): Promise<GroupEntry[]> {
    return Promise.all(
      items.map(async ({ cursor, node }) => ({
        cursor,
        group: node,
        actorIds: await this.notifications.actors(node, ACTOR_PREVIEW),
      })),
    );
  }
}

function shownGroup(entry: HydratedGroup & { node: NotificationGroup }): ShownGroup {
  return {
    cursor: entry.cursor,
    node: entry.node,
    actors: entry.actors,
    complete: entry.actorIds.length < ACTOR_PREVIEW,
  };
}

/** The actors the viewer sees, in the order given. */
function visibleActors(
  actorIds: readonly string[],
  users: ReadonlyMap<string, UserRecord | null>,
  hidden: ReadonlySet<string>,
): UserRecord[] {
  return actorIds.flatMap((id) => {
    const user = users.get(id);
    return user && !hidden.has(id) ? [user] : [];
  });
}
