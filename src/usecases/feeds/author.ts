import { pageSize } from '../../domain/validation.js';
import { type TimelineStore, isFeedPosition } from '../../stores/timeline-store.js';
import type { Feed, FeedContext, ReadOn, ShownPage } from './pipeline.js';
import {
  type HydratedPost,
  type PostNeeds,
  type PostPage,
  type PostPageArguments,
  type SkeletonItem,
  type TimelineSkeleton,
  BLOCKS_ONLY,
  hydratePosts,
  listRead,
  mergedSkeleton,
  postPage,
  postRules,
} from './post-steps.js';
import { isBackward } from '../paging.js';
import { hiddenUsers } from './visibility.js';

export interface AuthorParams extends PostPageArguments {
  authorId: string;
  includeReposts: boolean;
  /** What the page shows of each post; null: only the posts (BATCHING=false). */
  needs: PostNeeds | null;
}

const NOTHING: TimelineSkeleton = { items: [], hasNextPage: false };

/** User.posts: the author's posts and, with `includeReposts`, the author's reposts (entries with the author as their reason), newest first. */
export class AuthorFeed implements Feed<AuthorParams, SkeletonItem, HydratedPost, PostPage> {
  constructor(private readonly timelines: Pick<TimelineStore, 'authorLists'>) {}

  /** The author's posts partition, and the author's reposts partition (each repost at its own position), merged with each post once. */
  async skeleton({ authorId, includeReposts, ...args }: AuthorParams): Promise<TimelineSkeleton> {
    const read = listRead(args, isFeedPosition);
    return mergedSkeleton(await this.timelines.authorLists(authorId, includeReposts, read), read);
  }

  /** The rules leave every post out when the author is in a block with the viewer: such a page reads no further (the relation is cached from its hydration). */
  readOn(params: AuthorParams, ctx: FeedContext): ReadOn<SkeletonItem> | null {
    if (isBackward(params)) return null;
    const after = async (cursor: string) =>
      (await hiddenUsers(ctx.viewerId, [params.authorId], false, ctx.hydrator)).size > 0
        ? NOTHING
        : this.skeleton({ ...params, after: cursor });
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
