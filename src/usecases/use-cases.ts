import { Passwords } from '../auth/passwords.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../stores/stores.js';
import { AccountDeletion } from './account-deletion.js';
import { CommentUseCases } from './comments.js';
import { CounterHeat } from './counter-heat.js';
import { CounterUseCases } from './counters.js';
import { type FollowEvents, FollowEventEnqueuer } from './follow-events.js';
import { HomeFeed } from './feeds/home.js';
import { HomeRetention } from './home-retention.js';
import { createFeeds } from './feeds/index.js';
import { FollowUseCases } from './follows.js';
import { GraphQueryUseCases } from './graph-queries.js';
import { LiveUpdates } from './live-updates.js';
import { MentionResolver } from './mentions.js';
import { NotificationEvents, NotificationUseCases } from './notifications.js';
import { OutboxAuthors } from './outbox-authors.js';
import { PasswordHashing } from './password-hashing.js';
import { PostUseCases } from './posts.js';
import { RateLimits } from './rate-limits.js';
import { RelationshipUseCases } from './relationships.js';
import { RepostUseCases } from './reposts.js';
import { SessionUseCases } from './sessions.js';
import { SignInLimits } from './sign-in-limits.js';
import { TagUseCases } from './tags.js';
import { TaskEnqueuer } from './tasks/enqueuer.js';
import { createTaskHandlers } from './tasks/registry.js';
import { UserUseCases } from './users.js';

/** Timeline events kept for a subscriber that reads slower than they arrive. */
const LIVE_BUFFERED_EVENTS = 100;

/** `enqueuer`: its listeners hear of every task the use cases enqueue (the composition root adds the in-process worker's). */
export function createUseCases(
  stores: Stores,
  config: Config,
  logger: Logger,
  enqueuer = new TaskEnqueuer(stores.tasks),
) {
  const passwords = new PasswordHashing(new Passwords(config.passwordScryptLog2N), {
    concurrency: config.passwordHashConcurrency,
    maxQueuedPerAddress: config.passwordHashQueuePerAddress,
    maxWaitMs: config.passwordHashQueueTimeoutMs,
  });
  const signInLimits = new SignInLimits(stores.failedAttempts, {
    maxFailures: config.signInMaxFailures,
    windowSeconds: config.signInWindowSeconds,
    maxChecks: config.passwordChecksPerAddress,
  });
  const outboxAuthors = new OutboxAuthors(stores.timelines, config.outboxAuthorsTtlMs);
  const mentions = new MentionResolver(stores.users);
  const homeRetention = new HomeRetention(config.homeRetentionDays, stores.clock);
  const home = new HomeFeed(stores.timelines, stores.graph, outboxAuthors, homeRetention);
  const live = new LiveUpdates(
    stores.pubsub,
    (userId) => home.followedOutboxAuthors(userId),
    { channelPrefix: config.tablePrefix, bufferedEvents: LIVE_BUFFERED_EVENTS },
    logger.child({ component: 'live' }),
  );
  const notificationEvents = new NotificationEvents(enqueuer);
  // A follow or unfollow (a block's too) changes the follower's timeline; its notification's task is written with the follow.
  const followEvents: FollowEvents = new FollowEventEnqueuer(enqueuer);
  const relationships = new RelationshipUseCases(
    stores.users,
    stores.graph,
    followEvents,
    notificationEvents,
    live.followsChanged,
  );
  const posts = new PostUseCases(
    stores.posts,
    stores.graph,
    config,
    outboxAuthors,
    enqueuer,
    mentions,
    relationships,
    notificationEvents,
    homeRetention,
    live.postedToOutbox,
    stores.clock,
  );
  const reposts = new RepostUseCases(
    posts,
    stores.reposts,
    stores.timelines,
    stores.graph,
    config,
    outboxAuthors,
    enqueuer,
    relationships,
    notificationEvents,
    homeRetention,
    live.repostedToOutbox,
  );
  const comments = new CommentUseCases(
    stores.posts,
    posts,
    relationships,
    mentions,
    notificationEvents,
    config.commentMaxDepth,
  );
  const sessions = new SessionUseCases(
    stores.users,
    stores.accounts,
    signInLimits,
    passwords,
    { refreshTtlSeconds: config.refreshTtlSeconds },
    logger,
  );
  const accountDeletion = new AccountDeletion(
    stores.users,
    stores.accounts,
    sessions,
    enqueuer,
    config.accountDeletionWaitMs,
    stores.clock,
  );
  const useCases = {
    users: new UserUseCases(stores.users, stores.graph, passwords, signInLimits, logger),
    sessions,
    accountDeletion,
    follows: new FollowUseCases(
      stores.users,
      stores.graph,
      followEvents,
      relationships,
      notificationEvents,
      live.followsChanged,
    ),
    relationships,
    graphQueries: new GraphQueryUseCases(stores.users, stores.graph, {
      maxReads: config.graphMaxReads,
      maxEdges: config.graphMaxEdges,
    }),
    posts,
    reposts,
    tags: new TagUseCases(stores.tags, config, stores.clock, logger.child({ component: 'tags' })),
    comments,
    counters: new CounterUseCases(
      posts,
      stores.counters,
      config.reactionKinds,
      relationships,
      notificationEvents,
      new CounterHeat(config),
      logger.child({ component: 'counters' }),
    ),
    notifications: new NotificationUseCases(stores.notifications),
    rateLimits: new RateLimits(stores.rateBuckets, {
      size: config.rateLimitPoints,
      perSecond: config.rateLimitPointsPerSecond,
    }),
    fanOutProgress: stores.fanOutProgress,
    live,
    /** What the worker runs: each task by its kind's handler. */
    tasks: createTaskHandlers(
      stores,
      config,
      { posts, reposts, comments, relationships, followEvents },
      { delivered: live.delivered, notified: live.notified },
    ),
  };
  return { ...useCases, feeds: createFeeds(home, stores.timelines, stores.users, useCases) };
}

export type UseCases = ReturnType<typeof createUseCases>;
