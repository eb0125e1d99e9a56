import type { TaskEnqueuer } from './tasks/enqueuer.js';

/**
 * What has to happen to timelines when a follow changes: the follower's home timeline is
 * backfilled with the followee's newest posts, or loses them. The follow use case calls
 * these after every successful follow or unfollow, repeats included; the timeline side
 * implements them by enqueueing durable tasks that check the follow when they run.
 */
export interface FollowEvents {
  followed(followerId: string, followeeId: string): Promise<void>;
  unfollowed(followerId: string, followeeId: string): Promise<void>;
}

/** The timeline side of follows: each follow event enqueues its task (`backfill`, `unfollow`). */
export class FollowEventEnqueuer implements FollowEvents {
  constructor(private readonly enqueuer: Pick<TaskEnqueuer, 'enqueue'>) {}

  followed(followerId: string, followeeId: string): Promise<void> {
    return this.enqueuer.enqueue({ kind: 'backfill', followerId, followeeId });
  }

  unfollowed(followerId: string, followeeId: string): Promise<void> {
    return this.enqueuer.enqueue({ kind: 'unfollow', followerId, followeeId });
  }
}
