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
    body: { kind: 'single', singleResult: { errors: [{ message: error.message, extensions: { code: error.code, ...error.details } }] } },
  };
}

/**
 * Checks a signed-in request's account (see authenticate) once the operation is known and has
 * passed the query limits, so that a refused document still costs no store request. A mutation
 * executes only after the check has passed: nothing is ever written for an account that never
 * existed or is gone. A query executes beside the check, so that the check's lookup goes out in
 * the same wave as the query's first reads; its answer is withheld until the check has passed.
 * Either way a token without an account gets HTTP 401 UNAUTHENTICATED and nothing else.
 */
export function authenticationPlugin(users: UserStore): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      let refused: AppError | null = null;
      return {
        // Runs after every plugin's didResolveOperation (the limits, the read consistency); a response ends the request.
        async responseForOperation(requestContext) {
          const { contextValue } = requestContext;
          if (!contextValue.credential) return null;
          // The service's own read, not the client's: counted, never refused by the operation's budget.
          const check = withoutBudget(() => authenticate(contextValue.credential!, contextValue.loaders.user, users));
          // No operation when operationName names none of the document's: not a query, so checked before anything runs.
          if (requestContext.operation?.operation === 'query') {
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
