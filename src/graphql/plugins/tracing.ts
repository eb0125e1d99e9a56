import type { ApolloServerPlugin } from '@apollo/server';
import { type Span, context, trace } from '@opentelemetry/api';
import type { GraphQLResolveInfo } from 'graphql';
import { operationLabel } from '../../observability/metrics.js';
import { activeTracer, recordFailure } from '../../observability/tracing.js';
import type { GraphQLContext } from '../context.js';

/** Most resolver spans one request makes; past them its resolvers are not traced. */
const MAX_RESOLVER_SPANS = 50;

/** `viewer.timeline.edges.node.author`: the field's path without list indices. */
function pathOf(info: GraphQLResolveInfo): string {
  const names: string[] = [];
  for (let at: GraphQLResolveInfo['path'] | undefined = info.path; at; at = at.prev)
    if (typeof at.key === 'string') names.unshift(at.key);
  return names.join('.');
}

/** Fields with a resolver of their own; those that read a property of their parent are not worth a span. */
function hasResolver(info: GraphQLResolveInfo): boolean {
  return info.parentType.getFields()[info.fieldName]?.resolve !== undefined;
}

/**
 * Resolver spans, bounded: one per path without list indices, at most MAX_RESOLVER_SPANS a request. Store
 * calls hang under the request's span, since the loaders batch many resolvers' lookups into one call.
 */
export function tracingPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      const requestSpan = trace.getActiveSpan();
      const requestContext = context.active();
      return {
        async didResolveOperation({ operation, operationName }) {
          if (operation) requestSpan?.setAttribute('graphql.operation.type', operation.operation);
          requestSpan?.setAttribute('graphql.operation.name', operationLabel(operationName));
        },
        async executionDidStart() {
          const tracer = activeTracer();
          if (!tracer) return {};
          const spans = new Map<string, Span>();
          return {
            willResolveField({ info }) {
              if (!hasResolver(info) || spans.size >= MAX_RESOLVER_SPANS) return;
              const path = pathOf(info);
              if (spans.has(path)) return;
              let parent: Span | undefined;
              for (let cut = path.lastIndexOf('.'); cut > 0 && !parent; cut = path.lastIndexOf('.', cut - 1))
                parent = spans.get(path.slice(0, cut));
              const span = tracer.startSpan(
                `resolve ${info.parentType.name}.${info.fieldName}`,
                { attributes: { 'graphql.field.path': path, 'graphql.field.type': String(info.returnType) } },
                parent ? trace.setSpan(requestContext, parent) : requestContext,
              );
              spans.set(path, span);
              return (error) => {
                if (error) recordFailure(span, error);
                span.end();
              };
            },
          };
        },
      };
    },
  };
}
