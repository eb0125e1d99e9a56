import type { ApolloServerPlugin, GraphQLResponse } from '@apollo/server';
import { authenticate } from '../../auth/authenticate.js';
import { AppError } from '../../domain/errors.js';
import { withoutBudget } from '../../observability/cost.js';
import type { UserStore } from '../../stores/user-store.js';
import type { GraphQLContext } from '../context.js';
import { refusalHttp } from '../errors.js';

/** What a request whose account check failed gets instead of any answer: HTTP 401 with the check's error (503 when the store did not answer). */
function refusal(error: AppError): Pick<GraphQLResponse, 'http' | 'body'> {
  return {
    http: refusalHttp(error, 401),
    body: {
      kind: 'single',
      singleResult: { errors: [{ message: error.message, extensions: { code: error.code, ...error.details } }] },
    },
  };
}

/**
 * Checks a signed-in request's account once the operation has passed the limits. A mutation runs only after the
 * check, so nothing is written for a missing account; a query runs beside it to save a wave, its answer withheld.
 */
export function authenticationPlugin(users: UserStore): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      let refused: AppError | null = null;
      return {
        // Runs after every plugin's didResolveOperation (the limits, the read consistency); a response ends the request.
        async responseForOperation(requestContext) {
          const { contextValue } = requestContext;
          // Without an operation (an operationName the document lacks) nothing runs, and nothing was charged for a check.
          if (!contextValue.credential || !requestContext.operation) return null;
          // The service's own read, not the client's: counted, never refused by the operation's budget.
          const check = withoutBudget(() => authenticate(contextValue.credential!, contextValue.loaders.user, users));
          if (requestContext.operation.operation === 'query') {
            contextValue.accountCheck = check;
            // Awaited when execution ends; until then a failure must not count as unhandled.
            check.catch(() => {});
            return null;
          }
          try {
            await check;
            return null;
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            return refusal(error);
          }
        },
        async executionDidStart({ contextValue }) {
          return {
            async executionDidEnd() {
              try {
                await contextValue.accountCheck;
              } catch (error) {
                // A failed check of another kind (a store error) fails the request, as before execution.
                if (!(error instanceof AppError)) throw error;
                refused = error;
              }
            },
          };
        },
        // The first plugin to hear of the response, so that the ones after it (the cost) see the refusal.
        async willSendResponse({ response }) {
          if (!refused) return;
          const { http, body } = refusal(refused);
          response.http.status = http.status;
          for (const [name, value] of http.headers) response.http.headers.set(name, value);
          response.body = body;
        },
      };
    },
  };
}
