import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { HeaderMap } from '@apollo/server';
import { AppError, RETRY_AFTER_SECONDS } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { LIMIT_CODES, tokenLimitError } from './limits/query-limits.js';

/** Codes that Apollo and graphql-js give to a client's own mistakes; safe to show as they are. */
export const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'UNAUTHENTICATED',
  'TOO_MANY_SUBSCRIPTIONS',
  ...LIMIT_CODES,
]);

export const INTERNAL_MESSAGE = 'Internal server error';

/** graphql-js's hint at names the schema has ("Did you mean "viewer"?"), which ends a validation or coercion message. */
const SUGGESTION = / ?Did you mean .+\?$/s;

/**
 * Shapes every error a client sees: AppErrors keep message and code, GraphQL's client errors pass, the rest is
 * logged and masked. With `hideSchemaDetails`, suggestions go too: they would let a client walk the schema.
 */
export function createErrorFormatter(logger: Logger, { hideSchemaDetails }: { hideSchemaDetails: boolean }) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof AppError) {
      return {
        message: original.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: original.code, ...original.details },
      };
    }
    const tooManyTokens = tokenLimitError(formatted);
    if (tooManyTokens) return tooManyTokens;
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
      return {
        ...formatted,
        message: hideSchemaDetails ? formatted.message.replace(SUGGESTION, '') : formatted.message,
        extensions,
      };
    }
    logger.error('internal error', { error: original, path: formatted.path });
    return {
      message: INTERNAL_MESSAGE,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
  };
}

/**
 * The HTTP answer to a request refused as a whole by `error`: `status`, unless a store did not
 * answer, which is 503 with `Retry-After` (a load balancer or client may retry elsewhere or later).
 */
export function refusalHttp(error: AppError, status: number): { status: number; headers: HeaderMap } {
  const headers = new HeaderMap();
  if (error.code !== 'SERVICE_UNAVAILABLE') return { status, headers };
  headers.set('retry-after', String(error.details.retryAfterSeconds ?? RETRY_AFTER_SECONDS));
  return { status: 503, headers };
}

/** An AppError raised outside a resolver (while building the context) as a GraphQL error with an HTTP status. */
export function toHttpGraphQLError(error: AppError, status: number): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: { code: error.code, ...error.details, http: refusalHttp(error, status) },
  });
}
