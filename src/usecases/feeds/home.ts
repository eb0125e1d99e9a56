import { forbidden, unauthenticated } from '../../domain/errors.js';
import { pageSize } from '../../domain/validation.js';
import type { GraphStore } from '../../stores/graph/graph-store.js';
import { UNMETERED } from '../../stores/graph/traversal.js';
import { type ListRead, type TimelineEntry, type TimelineStore, isFeedPosition } from '../../stores/timeline-store.js';
import type { HomeRetention } from '../home-retention.js';
import type { OutboxAuthors } from '../outbox-authors.js';
import type { Feed, FeedContext, ReadOn, ShownPage } from './pipeline.js';
import {
  type HydratedPost,
  type PostNeeds,
  type PostPage,
  type PostPageArguments,
  type SkeletonItem,
  type TimelineSkeleton,
  WITH_MUTES,
  hydratePosts,
  listRead,
  mergedSkeleton,
  postPage,
  postRules,
} from './post-steps.js';
import { isBackward } from '../paging.js';

export interface HomeParams {
  userId: string;
  args: PostPageArguments;
  /** What the page shows of each post; null: only the posts (BATCHING=false). */
  needs: PostNeeds | null;
}

/**
 * Up to this many outboxes are read beside the follow check, keeping the page one wave; past it,
 * reading every outbox costs more than the wave it saves, and the check comes first.
 */
export const OUTBOXES_READ_BEFORE_CHECK = 8;

/**
 * User.timeline: the posts of the accounts the user follows, and what they reposted, newest first.
 * Fan-out wrote them into the user's home partition; the posts of followed authors who are not
 * fanned out are merged from their outboxes at read time. Only the user may read it, and it shows posts from the
 * last HOME_RETENTION_DAYS: every list is read down to the retention's horizon, whatever TTL has not deleted yet.
 */
export class HomeFeed implements Feed<HomeParams, SkeletonItem, HydratedPost, PostPage> {
  constructor(
    private readonly timelines: Pick<TimelineStore, 'homeLists'>,
    private readonly graph: Pick<GraphStore, 'followsAmong'>,
    private readonly outboxAuthors: OutboxAuthors,
    private readonly retention: HomeRetention,
  ) {}

  /** The home partition and the followed outboxes, one Query each, merged; backwards (pull-to-refresh), what is newer than `before`. */
  async skeleton({ userId, args }: HomeParams, { viewerId }: FeedContext): Promise<TimelineSkeleton> {
    return this.read(viewerId, userId, listRead(args, isFeedPosition));
  }

  /** A backward page is what it read: the client asks again from its start. */
  readOn({ userId, args }: HomeParams, { viewerId }: FeedContext): ReadOn<SkeletonItem> | null {
    if (isBackward(args)) return null;
    // A page's cursors are encoded: read on as a client's next page would.
    const after = (cursor: string) =>
      this.read(viewerId, userId, listRead({ first: args.first, after: cursor }, isFeedPosition));
    return { size: pageSize(args.first), after };
  }

  hydration(page: TimelineSkeleton, { needs }: HomeParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return hydratePosts(page, ctx, needs, WITH_MUTES);
  }

  /** No deleted post, and none whose author or reposter is in a block with the viewer or muted by it. */
  rules(entries: HydratedPost[], _params: HomeParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return postRules(entries, ctx, WITH_MUTES);
  }

  presentation(page: ShownPage<SkeletonItem, HydratedPost>): PostPage {
    return postPage(page);
  }

  /** The outbox authors the user follows: their posts reach the user's home timeline at read time (and live updates from their channels). */
  async followedOutboxAuthors(userId: string): Promise<string[]> {
    const candidates = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    return [...(await this.followedAmong(userId, candidates))];
  }

  private async read(viewerId: string | null, userId: string, read: ListRead): Promise<TimelineSkeleton> {
    return mergedSkeleton(
      await this.lists(viewerId, userId, (authorIds) =>
        this.timelines.homeLists(userId, authorIds, read, this.retention.horizon()),
      ),
      read,
    );
  }

  /** The home partition's list and those of the outboxes the reader follows, read with the follow check in one wave (see OUTBOXES_READ_BEFORE_CHECK). */
  private async lists(
    viewerId: string | null,
    userId: string,
    read: (outboxAuthorIds: readonly string[]) => Promise<TimelineEntry[][]>,
  ): Promise<TimelineEntry[][]> {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId) throw forbidden('Only the user may read their home timeline');
    const candidates = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    if (candidates.length > OUTBOXES_READ_BEFORE_CHECK) {
      const followed = await this.followedAmong(userId, candidates);
      return read([...followed]);
    }
    const [[home, ...outboxes], followed] = await Promise.all([
      read(candidates),
      this.followedAmong(userId, candidates),
    ]);
    return [home!, ...outboxes.filter((_, i) => followed.has(candidates[i]!))];
  }

  private async followedAmong(userId: string, authorIds: readonly string[]): Promise<Set<string>> {
    if (authorIds.length === 0) return new Set();
    // One item, the reader's graph node, while its following set is complete (see GraphStore.followsAmong).
    const follows = await this.graph.followsAmong(userId, authorIds, UNMETERED);
    return new Set(authorIds.filter((_, i) => follows[i]));
  }
}
