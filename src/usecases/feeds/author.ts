import { decodeCursor } from '../../domain/cursor.js';
import { pageSize } from '../../domain/validation.js';
import { type TimelineStore, isFeedPosition } from '../../stores/timeline-store.js';
import type { Feed, FeedContext, ReadOn, ShownPage } from './pipeline.js';
import {
  type HydratedPost,
  type PostNeeds,
  type PostPage,
  type SkeletonItem,
  type TimelineSkeleton,
  BLOCKS_ONLY,
  hydratePosts,
  postPage,
  postRules,
  toSkeleton,
} from './post-steps.js';
import { mergeNewestFirst } from './timeline-merge.js';
import { hiddenUsers } from './visibility.js';

export interface AuthorParams {
  authorId: string;
  first?: number | null;
  after?: string | null;
  includeReposts: boolean;
  /** What the page shows of each post; null: only the posts (BATCHING=false). */
  needs: PostNeeds | null;
}

const NOTHING: TimelineSkeleton = { items: [], hasNextPage: false };

/** User.posts: the author's posts and, with `includeReposts`, the author's reposts (entries with the author as their reason), newest first. */
export class AuthorFeed implements Feed<AuthorParams, SkeletonItem, HydratedPost, PostPage> {
  constructor(private readonly timelines: Pick<TimelineStore, 'authorLists'>) {}

  /** The author's posts partition, and the author's reposts partition (each repost at its own position), merged with each post once. */
  async skeleton({ authorId, first, after, includeReposts }: AuthorParams): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    const position = decodeCursor(after, 'after', isFeedPosition);
    return toSkeleton(mergeNewestFirst(await this.timelines.authorLists(authorId, includeReposts, size, position), size));
  }

  /** The rules leave every post out when the author is in a block with the viewer: such a page reads no further (the relation is cached from its hydration). */
  readOn(params: AuthorParams, ctx: FeedContext): ReadOn<SkeletonItem> {
    const after = async (cursor: string) =>
      (await hiddenUsers(ctx.viewerId, [params.authorId], false, ctx.hydrator)).size > 0 ? NOTHING : this.skeleton({ ...params, after: cursor });
    return { size: pageSize(params.first), after };
  }

  hydration(page: TimelineSkeleton, { needs }: AuthorParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return hydratePosts(page, ctx, needs, BLOCKS_ONLY);
  }

  /** No deleted post, and none whose author or reposter is in a block with the viewer; mutes do not hide a profile's posts. */
  rules(entries: HydratedPost[], _params: AuthorParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return postRules(entries, ctx, BLOCKS_ONLY);
  }

  presentation(page: ShownPage<SkeletonItem, HydratedPost>): PostPage {
    return postPage(page);
  }
}
