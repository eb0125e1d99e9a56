import type { TaskEnqueuer } from './tasks/enqueuer.js';

/**
 * What timelines must do when a follow changes. Called after every follow or unfollow, repeats included,
 * so a retry still reaches the timelines; the tasks check the follow when they run.
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
