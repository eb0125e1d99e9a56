/** A record a user wrote on a post, with what undoing it needs. */
export type Activity = { postId: string; counterShards: number } &
  /** `atMs` names the like's likers list entry (absent on old likes). */
  (
    | { kind: 'like'; atMs?: number }
    | { kind: 'view' }
    /** Undone by the repost use case (unrepost), which also takes it out of timelines. */
    | { kind: 'repost' }
    | { kind: 'reaction'; reaction: string }
    | { kind: 'comment'; commentId: string }
  );

/**
 * What a user wrote on posts (likes, views, reactions, comments, reposts), listed so that deleting the
 * account can take every one of them back with its counter.
 */
export interface ActivityStore {
  /** Up to `first` of the user's activities, read strongly consistent. */
  activities(userId: string, first: number): Promise<Activity[]>;
  /**
   * Deletes the activity's record and its activity item, and counts it down on the post, in
   * one transaction; a record already gone (or a post gone with its counters) is just dropped.
   * Idempotent.
   */
  undo(userId: string, activity: Exclude<Activity, { kind: 'repost' }>): Promise<void>;
  /** The ids of up to `first` of the user's comments on the post that are there and no tombstone (strongly consistent), and whether it has more. */
  commentsOn(userId: string, postId: string, first: number): Promise<{ commentIds: string[]; more: boolean }>;
}
