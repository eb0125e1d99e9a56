import { performance } from 'node:perf_hooks';
import type { ApolloServerPlugin } from '@apollo/server';
import {
  errorCodeLabel,
  graphqlErrors,
  graphqlOperationDuration,
  operationLabel,
} from '../../observability/metrics.js';
import type { GraphQLContext } from '../context.js';

/**
 * Counts and times every operation by name and type, and its errors by code. A name becomes a label only once
 * validated, so labels stay bounded; earlier failures are `invalid`.
 */
export function metricsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      let operation = 'invalid';
      let type = 'unknown';
      return {
        async didResolveOperation(requestContext) {
          type = requestContext.operation?.operation ?? 'unknown';
          operation = operationLabel(requestContext.operationName);
        },
        async willSendResponse({ response }) {
          graphqlOperationDuration.observe({ operation, type }, (performance.now() - started) / 1000);
          const errors = response.body.kind === 'single' ? (response.body.singleResult.errors ?? []) : [];
          for (const error of errors) graphqlErrors.inc({ operation, code: errorCodeLabel(error.extensions?.code) });
        },
      };
    },
  };
}
