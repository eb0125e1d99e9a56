import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { type OperationMeasure, measureOperation } from './measure.js';

/** The limits an operation must stay within before anything runs (settings MAX_QUERY_DEPTH, _ALIASES, _COST; MAX_PASSWORD_CHECKS is fixed). */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

/** Stable `extensions.code`s of the refusals; the error formatter passes them to clients. */
export const LIMIT_CODES = ['QUERY_TOO_DEEP', 'TOO_MANY_ALIASES', 'TOO_MANY_TOKENS', 'QUERY_TOO_EXPENSIVE', 'TOO_MANY_PASSWORD_CHECKS'] as const;

/**
 * Password mutations an operation may hold. Each runs the password hash, so that aliases of them
 * would make one request cost seconds of CPU (and `signIn` with a right password is never limited
 * by the failed-attempt counters); no client needs two in one request.
 */
export const MAX_PASSWORD_CHECKS = 1;

function refusal(message: string, code: (typeof LIMIT_CODES)[number], details: Record<string, number>): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...details, http: { status: 400 } } });
}

/** The refusal of an operation over a limit, or null when it is within all of them. */
export function limitRefusal(measure: OperationMeasure, limits: QueryLimits): GraphQLError | null {
  if (measure.depth > limits.maxDepth) {
    return refusal(`The operation is ${measure.depth} levels deep; at most ${limits.maxDepth} are allowed`, 'QUERY_TOO_DEEP', {
      depth: measure.depth,
      maxDepth: limits.maxDepth,
    });
  }
  if (measure.aliases > limits.maxAliases) {
    return refusal(`The operation has ${measure.aliases} aliases; at most ${limits.maxAliases} are allowed`, 'TOO_MANY_ALIASES', {
      aliases: measure.aliases,
      maxAliases: limits.maxAliases,
    });
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
      `The operation could resolve ${measure.cost} fields; at most ${limits.maxCost} are allowed. Ask for smaller pages (first) or fewer nested lists`,
      'QUERY_TOO_EXPENSIVE',
      { cost: measure.cost, maxCost: limits.maxCost },
    );
  }
  return null;
}

/**
 * Refuses an operation that is too deep, has too many aliases or password checks or costs too much, after it is
 * parsed and validated and before execution starts, so a refused operation reaches no store.
 * The token limit is enforced by the parser itself (Apollo's `parseOptions.maxTokens`).
 */
export function queryLimitsPlugin(limits: QueryLimits): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          // Without an operation nothing executes; Apollo answers with the resolution error.
          if (!operation) return;
          const refused = limitRefusal(measureOperation(schema, document, operation, request.variables), limits);
          if (refused) throw refused;
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
