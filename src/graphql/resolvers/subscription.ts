import type { GraphQLResolveInfo } from 'graphql';
import { unauthenticated } from '../../domain/errors.js';
import type { TimelineEvent } from '../../usecases/live-updates.js';
import { toSkeleton } from '../../usecases/timelines.js';
import type { GraphQLContext } from '../context.js';
import { postEdge } from '../feeds.js';
import type { SubscriptionResolvers } from '../generated/resolvers-types.js';
import type { PostEdgeModel } from '../models.js';

/**
 * Each event as the edge a timeline page would show it, for a viewer whose account still passes the check, hydrated and through the rules (so what
 * the rules hide from a page, e.g. a deleted post, is never sent); an event the rules leave out
 * is skipped. `return()` reaches the event stream at once, so a completed subscription stops listening.
 */
function visibleEdges(events: AsyncIterableIterator<TimelineEvent>, context: GraphQLContext, info: GraphQLResolveInfo): AsyncIterableIterator<PostEdgeModel> {
  const edges: AsyncIterableIterator<PostEdgeModel> = {
    async next() {
      for (;;) {
        const event = await events.next();
        if (event.done) return { value: undefined, done: true };
        context.startEvent?.();
        const edge = await postEdge(toSkeleton({ entries: [event.value], hasNextPage: false }).items[0]!, context, info);
        // A failed account check ends the subscription with its error (UNAUTHENTICATED).
        await context.accountCheck;
        if (edge) return { value: edge, done: false };
      }
    },
    return: async () => {
      await events.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => edges,
  };
  return edges;
}

export const Subscription: SubscriptionResolvers = {
  timelinePostAdded: {
    subscribe: async (_root, _args, context, info) => {
      if (!context.viewerId) throw unauthenticated();
      return visibleEdges(await context.useCases.live.timelineEvents(context.viewerId), context, info);
    },
    resolve: (edge: PostEdgeModel) => edge,
  },
};
