import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../stores/stores.js';
import type { Task } from '../stores/task-queue.js';
import { CommentUseCases } from './comments.js';
import { CounterUseCases } from './counters.js';
import { FanOut } from './fanout.js';
import { FollowUseCases } from './follows.js';
import { GraphQueryUseCases } from './graph-queries.js';
import { OutboxAuthors } from './outbox-authors.js';
import { PostUseCases } from './posts.js';
import { TimelineUseCases } from './timelines.js';
import { UserUseCases } from './users.js';

/** `taskEnqueued` hands a new task to a worker running in the same process; without one, workers poll. */
export function createUseCases(stores: Stores, config: Config, logger: Logger, taskEnqueued: (task: Task) => void = () => {}) {
  const outboxAuthors = new OutboxAuthors(stores.timelines, config.outboxAuthorsTtlMs);
  const posts = new PostUseCases(stores.posts, stores.graph, config, outboxAuthors, taskEnqueued);
  const fanOut = new FanOut(stores.timelines, stores.graph, stores.tasks, stores.posts, config, taskEnqueued);
  return {
    users: new UserUseCases(stores.users, stores.graph, logger),
    follows: new FollowUseCases(stores.users, stores.graph, fanOut),
    graphQueries: new GraphQueryUseCases(stores.users, stores.graph, { maxReads: config.graphMaxReads, maxEdges: config.graphMaxEdges }),
    posts,
    comments: new CommentUseCases(stores.posts, posts),
    counters: new CounterUseCases(posts, stores.counters, config.reactionKinds),
    timelines: new TimelineUseCases(stores.timelines, stores.graph, outboxAuthors),
    fanOut,
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
