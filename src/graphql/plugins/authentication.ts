import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { authenticate } from '../../auth/authenticate.js';
import { AppError } from '../../domain/errors.js';
import type { UserStore } from '../../stores/user-store.js';
import type { GraphQLContext } from '../context.js';

/**
 * Checks a signed-in request's account (see authenticate) once the operation is known and has
 * passed the query limits, so that a refused document still costs no store request, and before
 * anything executes. A token without an account gets HTTP 401 UNAUTHENTICATED.
 */
export function authenticationPlugin(users: UserStore): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        // Runs after every plugin's didResolveOperation (the limits, the read consistency); a response ends the request.
        async responseForOperation({ contextValue }) {
          if (!contextValue.credential) return null;
          try {
            await authenticate(contextValue.credential, contextValue.loaders.user, users);
            return null;
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            return {
              http: { status: 401, headers: new HeaderMap() },
              body: { kind: 'single', singleResult: { errors: [{ message: error.message, extensions: { code: error.code } }] } },
            };
          }
        },
      };
    },
  };
}
