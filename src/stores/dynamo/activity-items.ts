import type { Activity } from '../activity-store.js';
import { type Key, keys } from './keys.js';

/**
 * The activity item of a record a user wrote on a post (a like, view, reaction or comment),
 * put and deleted in the same transaction as the record, so that the user's activity partition
 * lists exactly the records that are theirs.
 */
export function activityItem(userId: string, record: Key, activity: Activity): Record<string, unknown> {
  return { ...keys.activity(userId, record), ...activity };
}
