import type { GraphQLResolveInfo } from 'graphql';
import { unauthenticated } from '../../domain/errors.js';
import { withCostMeter } from '../../observability/cost.js';
import type { NotificationGroup } from '../../stores/notification-store.js';
import type { TimelineEvent } from '../../usecases/live-updates.js';
import type { GraphQLContext } from '../context.js';
import { postEdge } from '../feeds.js';
import { notificationEvent } from '../notifications.js';
import type { SubscriptionResolvers } from '../generated/resolvers-types.js';
import type { PostEdgeModel } from '../models.js';

/**
 * Each event as `shown` presents it, for a viewer whose account still passes the check; an event
 * `shown` leaves out (null) is skipped. `return()` reaches the event stream at once, so a completed
 * subscription stops listening.
 */
function shownEvents<E, T>(
  events: AsyncIterableIterator<E>,
  context: GraphQLContext,
  shown: (event: E) => Promise<T | null>,
): AsyncIterableIterator<T> {
  const presented: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        const event = await events.next();
        if (event.done) return { value: undefined, done: true };
        context.startEvent?.();
        // Each event is metered and budgeted as a query of its own.
        const value = await withCostMeter(context.cost, () => shown(event.value));
        // A failed account check ends the subscription with its error (UNAUTHENTICATED).
        await context.accountCheck;
        if (value !== null) return { value, done: false };
      }
    },
    return: async () => {
      await events.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => presented,
  };
  return presented;
}

/** Each timeline event as the edge a timeline page would show it: hydrated and through the rules (a deleted post, a blocked or muted author or reposter is never sent). */
function visibleEdges(
  events: AsyncIterableIterator<TimelineEvent>,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): AsyncIterableIterator<PostEdgeModel> {
  return shownEvents(events, context, (event) => postEdge(event, context, info));
}

export const Subscription: SubscriptionResolvers = {
  timelinePostAdded: {
    subscribe: async (_root, _args, context, info) => {
      if (!context.viewerId) throw unauthenticated();
      return visibleEdges(await context.useCases.live.timelineEvents(context.viewerId), context, info);
    },
    resolve: (edge: PostEdgeModel) => edge,
  },
  notificationReceived: {
    // The group as it is after the change, through the rules of a page of notifications: one the page would leave out is not sent.
    subscribe: async (_root, _args, context) => {
      const viewerId = context.viewerId;
      if (!viewerId) throw unauthenticated();
      return shownEvents(await context.useCases.live.notificationEvents(viewerId), context, (group) =>
        notificationEvent(context, group),
      );
    },
    resolve: (group: NotificationGroup) => group,
  },
};
