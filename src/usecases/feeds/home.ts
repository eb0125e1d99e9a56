import { forbidden, unauthenticated } from '../../domain/errors.js';
import { pageSize } from '../../domain/validation.js';
import type { GraphStore } from '../../stores/graph/graph-store.js';
import { UNMETERED } from '../../stores/graph/traversal.js';
import {
  type HomeHolding,
  type ListRead,
  type TimelineEntry,
  type TimelineStore,
  isFeedPosition,
} from '../../stores/timeline-store.js';
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
import { hiddenUsers } from './visibility.js';

/** A home entry hydrated, with where the home partition holds its post when it came from an outbox's repost. */
export interface HomeHydratedPost extends HydratedPost {
  heldAt?: HomeHolding;
}

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
export class HomeFeed implements Feed<HomeParams, SkeletonItem, HomeHydratedPost, PostPage> {
  constructor(
    private readonly timelines: Pick<TimelineStore, 'homeLists' | 'homeHoldings'>,
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

  /**
   * The posts, and where the home partition holds those that outboxes brought as reposts: asked in the tick of the
   * posts' lookups, so that they join the same BatchGetItem.
   */
  async hydration(
    page: TimelineSkeleton,
    { userId, needs }: HomeParams,
    ctx: FeedContext,
  ): Promise<HomeHydratedPost[]> {
    const outboxRepost = (item: SkeletonItem) => item.fromOutbox === true && item.repostedBy !== null;
    const reposted = [...new Set(page.items.filter(outboxRepost).map((item) => item.postId))];
    // At worst the post shows twice on two pages, as it would without the check: no reason to fail the page.
    const holdings =
      reposted.length > 0
        ? this.timelines.homeHoldings(userId, reposted, this.retention.horizon()).catch(() => null)
        : null;
    const [posts, held] = await Promise.all([hydratePosts(page, ctx, needs, WITH_MUTES), holdings]);
    if (!held) return posts;
    const heldAt = new Map(reposted.map((postId, i) => [postId, held[i] ?? null]));
    return posts.map((entry, i) => {
      const item = page.items[i]!;
      const at = outboxRepost(item) ? heldAt.get(item.postId) : null;
      return at ? { ...entry, heldAt: at } : entry;
    });
  }

  /**
   * No deleted post, and none whose author or reposter is in a block with the viewer or muted by it. Nor an outbox's
   * repost of a post the home partition shows elsewhere: a post is in a home timeline once, and two pages would show
   * it twice. Where the partition's entry is hidden (its reposter muted), the outbox's shows.
   */
  async rules(entries: HomeHydratedPost[], _params: HomeParams, ctx: FeedContext): Promise<HomeHydratedPost[]> {
    const reasons = [...new Set(entries.flatMap(({ heldAt }) => (heldAt?.shownBy ? [heldAt.shownBy] : [])))];
    const [kept, hidden] = await Promise.all([
      postRules(entries, ctx, WITH_MUTES),
      reasons.length > 0 ? hiddenUsers(ctx.viewerId, reasons, true, ctx.hydrator) : new Set<string>(),
    ]);
    return kept.map((entry, i) => {
      const { heldAt } = entries[i]!;
      const shownThere = heldAt !== undefined && (heldAt.shownBy === null || !hidden.has(heldAt.shownBy));
      return shownThere && entry.node !== null ? { ...entry, node: null } : entry;
    });
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
    const [home, ...outboxes] = await this.lists(viewerId, userId, (authorIds) =>
      this.timelines.homeLists(userId, authorIds, read, this.retention.horizon()),
    );
    const marked = outboxes.map((list) => list.map((entry) => ({ ...entry, fromOutbox: true })));
    return mergedSkeleton([home!, ...marked], read);
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
