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
