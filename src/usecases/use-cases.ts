import { Passwords } from '../auth/passwords.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../stores/stores.js';
import type { ClaimedTask, Task } from '../stores/task-queue.js';
import { AccountDeletion } from './account-deletion.js';
import { CommentUseCases } from './comments.js';
import { CounterUseCases } from './counters.js';
import { FanOut, type RunOutcome, type SaveCheckpoint } from './fanout.js';
import { FollowUseCases } from './follows.js';
import { GraphQueryUseCases } from './graph-queries.js';
import { LiveUpdates } from './live-updates.js';
import { OutboxAuthors } from './outbox-authors.js';
import { PostUseCases } from './posts.js';
import { SessionUseCases } from './sessions.js';
import { SignInLimits } from './sign-in-limits.js';
import { TimelineUseCases } from './timelines.js';
import { UserUseCases } from './users.js';

/** Timeline events kept for a subscriber that reads slower than they arrive. */
const LIVE_BUFFERED_EVENTS = 100;

/** `taskEnqueued` hands a new task to a worker running in the same process; without one, workers poll. */
export function createUseCases(stores: Stores, config: Config, logger: Logger, taskEnqueued: (task: Task) => void = () => {}) {
  const passwords = new Passwords(config.passwordScryptLog2N);
  const signInLimits = new SignInLimits(stores.failedAttempts, { maxFailures: config.signInMaxFailures, windowSeconds: config.signInWindowSeconds });
  const outboxAuthors = new OutboxAuthors(stores.timelines, config.outboxAuthorsTtlMs);
  const timelines = new TimelineUseCases(stores.timelines, stores.graph, outboxAuthors);
  const live = new LiveUpdates(stores.pubsub, (userId) => timelines.followedOutboxAuthors(userId), { channelPrefix: config.tablePrefix, bufferedEvents: LIVE_BUFFERED_EVENTS }, logger.child({ component: 'live' }));
  const posts = new PostUseCases(stores.posts, stores.graph, config, outboxAuthors, taskEnqueued, live.postedToOutbox);
  const fanOut = new FanOut(stores.timelines, stores.graph, stores.tasks, stores.posts, config, taskEnqueued, stores.fanOutProgress, live.delivered);
  const sessions = new SessionUseCases(stores.users, stores.accounts, signInLimits, passwords, { refreshTtlSeconds: config.refreshTtlSeconds }, logger);
  const accountDeletion = new AccountDeletion(
    stores.users,
    stores.accounts,
    stores.activities,
    stores.graph,
    stores.timelines,
    posts,
    fanOut,
    sessions,
    { pageSize: config.fanoutPageSize },
    taskEnqueued,
  );
  return {
    users: new UserUseCases(stores.users, stores.graph, passwords, logger),
    sessions,
    accountDeletion,
    follows: new FollowUseCases(stores.users, stores.graph, fanOut),
    graphQueries: new GraphQueryUseCases(stores.users, stores.graph, { maxReads: config.graphMaxReads, maxEdges: config.graphMaxEdges }),
    posts,
    comments: new CommentUseCases(stores.posts, posts),
    counters: new CounterUseCases(posts, stores.counters, config.reactionKinds),
    timelines,
    fanOut,
    fanOutProgress: stores.fanOutProgress,
    live,
    /** What the worker runs: an account's deletion here, every other task is fan-out's. */
    tasks: {
      run: (task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> =>
        task.payload.kind === 'deleteAccount' ? accountDeletion.run(task, task.payload, save, stopping) : fanOut.run(task, save, stopping),
    },
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
