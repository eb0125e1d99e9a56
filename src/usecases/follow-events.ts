/**
 * What has to happen to timelines when a follow changes: the follower's home timeline is
 * backfilled with the followee's newest posts, or loses them. The follow use case calls
 * these after the graph changed (and only when it changed); the timeline side implements
 * them by enqueueing durable tasks for the worker.
 */
export interface FollowEvents {
  followed(followerId: string, followeeId: string): Promise<void>;
  unfollowed(followerId: string, followeeId: string): Promise<void>;
}
