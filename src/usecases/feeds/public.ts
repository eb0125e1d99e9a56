import { decodeCursor } from '../../domain/cursor.js';
import { pageSize } from '../../domain/validation.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { Feed, FeedContext, ReadOn, ShownPage } from './pipeline.js';
import {
  type HydratedPost,
  type PostNeeds,
  type PostPage,
  type SkeletonItem,
  type TimelineSkeleton,
  WITH_MUTES,
  hydratePosts,
  isPostId,
  postPage,
  postRules,
  toSkeleton,
} from './post-steps.js';
import { mergeNewestFirst } from './timeline-merge.js';

export interface PublicParams {
  first?: number | null;
  after?: string | null;
  /** What the page shows of each post; null: only the posts (BATCHING=false). */
  needs: PostNeeds | null;
}

/** Query.publicTimeline: every post, newest first. */
export class PublicFeed implements Feed<PublicParams, SkeletonItem, HydratedPost, PostPage> {
  constructor(private readonly timelines: Pick<TimelineStore, 'publicLists'>) {}

  /** One Query per shard of the public timeline, merged by position; the cursor is the last post id. */
  async skeleton({ first, after }: PublicParams): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    return toSkeleton(mergeNewestFirst(await this.timelines.publicLists(size, decodeCursor(after, 'after', isPostId)), size));
  }

  readOn(params: PublicParams): ReadOn<SkeletonItem> {
    return { size: pageSize(params.first), after: (cursor) => this.skeleton({ ...params, after: cursor }) };
  }

  hydration(page: TimelineSkeleton, { needs }: PublicParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return hydratePosts(page, ctx, needs, WITH_MUTES);
  }

  /** No deleted post, and none of an account in a block with the viewer or that the viewer mutes. */
  rules(entries: HydratedPost[], _params: PublicParams, ctx: FeedContext): Promise<HydratedPost[]> {
    return postRules(entries, ctx, WITH_MUTES);
  }

  presentation(page: ShownPage<SkeletonItem, HydratedPost>): PostPage {
    return postPage(page);
  }
}
