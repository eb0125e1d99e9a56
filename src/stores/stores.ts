import type { AccountStore, FailedAttemptStore } from './account-store.js';
import type { ActivityStore } from './activity-store.js';
import type { CounterStore } from './counter-store.js';
import type { FanOutProgressStore } from './fanout-progress-store.js';
import type { GraphStore } from './graph/graph-store.js';
import type { NotificationStore } from './notification-store.js';
import type { PostStore } from './post-store.js';
import type { PubSub } from './pubsub.js';
import type { RateBucketStore } from './rate-bucket-store.js';
import type { RepostStore } from './repost-store.js';
import type { TagStore } from './tag-store.js';
import type { TaskQueue } from './task-queue.js';
import type { TimelineStore } from './timeline-store.js';
import type { UserStore } from './user-store.js';

/** Every store the service uses, built once at start by the composition root. */
export interface Stores {
  users: UserStore;
  accounts: AccountStore;
  failedAttempts: FailedAttemptStore;
  activities: ActivityStore;
  graph: GraphStore;
  counters: CounterStore;
  posts: PostStore;
  /** Tag counts for trendingTags and searchTags, written by the post store with each post. */
  tags: TagStore;
  reposts: RepostStore;
  timelines: TimelineStore;
  notifications: NotificationStore;
  tasks: TaskQueue;
  fanOutProgress: FanOutProgressStore;
  /** Live events between processes (subscriptions): in-process, or Redis with REDIS_URL. */
  pubsub: PubSub;
  /** Each client's bucket of cost points: in-process, or Redis with REDIS_URL. */
  rateBuckets: RateBucketStore;
  /** What time it is (ms since the epoch): Date.now, or a test's clock. */
  clock: () => number;
}
