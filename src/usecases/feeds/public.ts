import { pageSize } from '../../domain/validation.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
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
  isPostId,
  postPage,
  postRules,
} from './post-steps.js';
import { isBackward } from '../paging.js';

export interface PublicParams extends PostPageArguments {
  /** What the page shows of each post; null: only the posts (BATCHING=false). */
  needs: PostNeeds | null;
}

/** Query.publicTimeline: every post, newest first. */
export class PublicFeed implements Feed<PublicParams, SkeletonItem, HydratedPost, PostPage> {
  constructor(private readonly timelines: Pick<TimelineStore, 'publicLists'>) {}

  /** One Query per shard of the public timeline, merged by position; the cursor is the last post id. */
  async skeleton(params: PublicParams): Promise<TimelineSkeleton> {
    const read = listRead(params, isPostId);
    return mergedSkeleton(await this.timelines.publicLists(read), read);
  }

  /** A backward page is what it read, as the home timeline's. */
  readOn(params: PublicParams): ReadOn<SkeletonItem> | null {
    return isBackward(params)
      ? null
      : { size: pageSize(params.first), after: (cursor) => this.skeleton({ ...params, after: cursor }) };
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
