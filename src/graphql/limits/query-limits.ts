import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { RateStatus } from '../../usecases/rate-limits.js';
import type { Demand, GraphQLContext } from '../context.js';
import { type OperationMeasure, measureOperation } from './measure.js';

/** The limits an operation must stay within before anything runs (settings MAX_QUERY_DEPTH, _ALIASES, _COST; MAX_PASSWORD_CHECKS is fixed). */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

/** Stable `extensions.code`s of the refusals; the error formatter passes them to clients. */
export const LIMIT_CODES = [
  'QUERY_TOO_DEEP',
  'TOO_MANY_ALIASES',
  'TOO_MANY_TOKENS',
  'QUERY_TOO_EXPENSIVE',
  'TOO_MANY_PASSWORD_CHECKS',
  'RATE_LIMITED',
] as const;

/**
 * Password mutations an operation may hold. Each runs the password hash, so that aliases of them
 * would make one request cost seconds of CPU (and `signIn` with a right password is never limited
 * by the failed-attempt counters); no client needs two in one request.
 */
export const MAX_PASSWORD_CHECKS = 1;

/**
 * A read of the account a token names, 20 points like any request, on top of what the fields declare: the account
 * check of a signed-in operation, and before it a provider token's lookup of its account by identity. Without them a
 * flood of `{ __typename }` with a token would read the store for nothing.
 */
export const ACCOUNT_CHECK_COST = 20;

/** What a store request is worth (docs/design/limits.md): an operation that reads anything sends at least one. */
export const REQUEST_POINTS = 20;

/** What a request's token made it read before its fields: its account check, and a provider token's account lookup. */
export interface TokenReads {
  /** The account the token names, checked before the operation's answer. */
  checked: boolean;
  /** The token is an identity provider's, whose account was looked up by identity. */
  lookedUp: boolean;
}

/**
 * The operation's measure with the reads its token made it send. An operation that reads anything sends a store
 * request of its own, so it costs at least one: a lone lookup is not the key of a batch its fields price it as.
 */
export function withAccountCheck(measure: OperationMeasure, reads: TokenReads): OperationMeasure {
  const cost = measure.cost + ACCOUNT_CHECK_COST * (Number(reads.checked) + Number(reads.lookedUp));
  return { ...measure, cost: cost > 0 ? Math.max(cost, REQUEST_POINTS) : 0 };
}

function refusal(message: string, code: (typeof LIMIT_CODES)[number], details: Record<string, number>): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...details, http: { status: 400 } } });
}

/** The refusal of an operation over a limit, or null when it is within all of them. */
export function limitRefusal(measure: OperationMeasure, limits: QueryLimits): GraphQLError | null {
  if (measure.depth > limits.maxDepth) {
    return refusal(
      `The operation is ${measure.depth} levels deep; at most ${limits.maxDepth} are allowed`,
      'QUERY_TOO_DEEP',
      {
        depth: measure.depth,
        maxDepth: limits.maxDepth,
      },
    );
  }
  if (measure.aliases > limits.maxAliases) {
    return refusal(
      `The operation has ${measure.aliases} aliases; at most ${limits.maxAliases} are allowed`,
      'TOO_MANY_ALIASES',
      {
        aliases: measure.aliases,
        maxAliases: limits.maxAliases,
      },
    );
  }
  if (measure.passwordChecks > MAX_PASSWORD_CHECKS) {
    return refusal(
      `The operation has ${measure.passwordChecks} fields that check or set a password; at most ${MAX_PASSWORD_CHECKS} is allowed. Send them one at a time`,
      'TOO_MANY_PASSWORD_CHECKS',
      { passwordChecks: measure.passwordChecks, maxPasswordChecks: MAX_PASSWORD_CHECKS },
    );
  }
  if (measure.cost > limits.maxCost) {
    return refusal(
      `The operation's estimated cost is ${measure.cost} points; at most ${limits.maxCost} are allowed. Ask for smaller pages (first) or fewer nested lists`,
      'QUERY_TOO_EXPENSIVE',
      { cost: measure.cost, maxCost: limits.maxCost },
    );
  }
  return null;
}

/** The refusal of an operation its client's bucket cannot pay for: HTTP 429 with Retry-After. */
export function rateRefusal(status: RateStatus): GraphQLError {
  return new GraphQLError(
    `The operation costs ${status.cost} points and ${status.remaining} are left; try again in ${status.retryAfterSeconds} s`,
    {
      extensions: {
        code: 'RATE_LIMITED',
        retryAfterSeconds: status.retryAfterSeconds,
        cost: status.cost,
        remaining: status.remaining,
        http: { status: 429, headers: new Map([['retry-after', String(status.retryAfterSeconds)]]) },
      },
    },
  );
}

/**
 * Refuses an operation past the depth, alias, password-check or cost limits before execution, so it reaches no
 * store; then charges its estimate, its account check included, to the client's bucket (RATE_LIMITED when short),
 * and once it has run, what its store requests were worth past that. Tokens are limited by the parser.
 */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request, contextValue }) {
          // Without an operation nothing executes; Apollo answers with the resolution error.
          if (!operation) return;
          const measure = withAccountCheck(measureOperation(schema, document, operation, request.variables), {
            checked: contextValue.credential !== null,
            lookedUp: contextValue.identity !== null,
          });
          const demand: Demand = { estimated: measure.cost, maxCost: limits.maxCost, rate: null };
          contextValue.demand = demand;
          const refused = limitRefusal(measure, limits);
          if (refused) throw refused;
          const { viewerId, clientAddress, useCases } = contextValue;
          demand.rate = await useCases.rateLimits.charge({ viewerId, clientAddress }, measure.cost);
          if (!demand.rate.allowed) throw rateRefusal(demand.rate);
        },
        async executionDidStart({ contextValue }) {
          return {
            // Estimates count a batched lookup as its keys: lookups that wait on one another, or a feed reading on past
            // hidden entries, send more.
            async executionDidEnd() {
              const { demand, cost, viewerId, clientAddress, useCases } = contextValue;
              const beyond = demand ? cost.sent * REQUEST_POINTS - demand.estimated : 0;
              if (!demand?.rate || beyond <= 0) return;
              demand.rate = await useCases.rateLimits.chargeBeyond(
                { viewerId, clientAddress },
                beyond,
                demand.estimated + beyond,
              );
            },
          };
        },
      };
    },
  };
}

/** graphql-js aborts parsing with this message (16.x spells it "more that") when a document has more than `maxTokens` tokens. */
const TOKEN_LIMIT_MESSAGE = /^Syntax Error: Document contains more tha[nt] (\d+) tokens/;

/** The parser's token-limit error as a client error with its own code; undefined for any other error. */
export function tokenLimitError(formatted: GraphQLFormattedError): GraphQLFormattedError | undefined {
  if (formatted.extensions?.code !== 'GRAPHQL_PARSE_FAILED') return undefined;
  const match = TOKEN_LIMIT_MESSAGE.exec(formatted.message);
  if (!match) return undefined;
  const maxTokens = Number(match[1]);
  return {
    message: `The document has more than ${maxTokens} tokens; at most ${maxTokens} are allowed`,
    extensions: { code: 'TOO_MANY_TOKENS', maxTokens },
  };
}
