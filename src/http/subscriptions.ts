import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  GraphQLError,
  getOperationAST,
  getVariableValues,
  parse,
  validate,
} from 'graphql';
import { CloseCode, type Context, type SubscribePayload } from 'graphql-ws';
import { type Extra, useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { AppError } from '../domain/errors.js';
import type { Credential } from '../domain/models.js';
import type { GraphQLContext } from '../graphql/context.js';
import { overLongIdRefusal } from '../graphql/limits/id-arguments.js';
import { measureOperation } from '../graphql/limits/measure.js';
import {
  ACCOUNT_CHECK_COST,
  type QueryLimits,
  limitRefusal,
  rateRefusal,
  tokenLimitError,
  withAccountCheck,
} from '../graphql/limits/query-limits.js';
import type { Logger } from '../logger.js';
import type { RateStatus } from '../usecases/rate-limits.js';
import { bearerOf } from './request.js';
import { MAX_BODY_BYTES } from './server.js';

/** A connection's proven sign-in: its credential and when its token stops working. */
export interface SignedIn {
  credential: Credential;
  expiresAtMs: number;
}

export interface SubscriptionServerOptions {
  /** The executable schema, null until the API has loaded it. */
  schema: () => GraphQLSchema | null;
  /** Checks a connection's bearer token, as a request's, and finds its account (a provider's token by identity); throws an AppError when refused. */
  signIn(token: string, request: IncomingMessage): Promise<SignedIn>;
  /** Checks that a connection's account exists and its token is not signed out (a store read); throws an AppError when not. */
  checkSignedIn(credential: Credential): Promise<void>;
  /** The context of one subscription of a connection signed in as `signedIn`. */
  context(signedIn: SignedIn, request: IncomingMessage): GraphQLContext;
  limits: QueryLimits & { maxTokens: number };
  /** Takes a subscription's estimate out of its account's rate bucket (see RateLimits). */
  charge(userId: string, points: number): Promise<RateStatus>;
  maxSubscriptionsPerConnection: number;
  maxConnectionsPerAccount: number;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  logger: Logger;
  production: boolean;
}

export interface SubscriptionServer {
  /** The HTTP server's `upgrade` handler: WebSockets on /graphql, anything else is refused. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection (1001 Going away) and the WebSocket server. */
  close(): Promise<void>;
}

interface ConnectionState {
  signedIn?: SignedIn;
  expiry?: NodeJS.Timeout;
  /**
   * Ids whose subscribe has not started its stream yet. They count toward the limit and cannot be reused until
   * started, so a Complete and a new Subscribe of the same id meanwhile cannot pass the limit.
   */
  starting: Set<string>;
}

/** setTimeout's longest delay (about 24.8 days); tokens live far shorter. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function clientError(message: string, code: string, details: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...details } });
}

/**
 * GraphQL subscriptions over graphql-ws on /graphql: signed in through `connectionParams`, closed with 4403 when
 * refused or expired, under the same limits as a query (see docs/design/notifications.md#subscriptions).
 */
export function createSubscriptionServer(options: SubscriptionServerOptions): SubscriptionServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  const connectionsByAccount = new Map<string, Set<Connection>>();
  const { logger } = options;

  const refuse = (ctx: Connection, reason: string): false => {
    // A reason of its own instead of graphql-ws's bare "Forbidden"; the close that follows is ignored.
    ctx.extra.socket.close(CloseCode.Forbidden, `Forbidden: ${reason}`.slice(0, 120));
    return false;
  };

  /** A connection whose sign-in failed: refused for a client's reason, closed as an internal error (logged) for any other. */
  const refuseFailed = (ctx: Connection, error: unknown): false => {
    if (error instanceof AppError) return refuse(ctx, error.message);
    logger.error('could not check a subscription connection', { error });
    ctx.extra.socket.close(CloseCode.InternalServerError, 'Internal server error');
    return false;
  };

  /** Gives a signed-in connection's place back; once only, whether at its close or when it is closed for being signed out. */
  const release = (ctx: Connection): void => {
    const state = ctx.extra.state;
    if (!state?.signedIn) return;
    clearTimeout(state.expiry);
    const userId = state.signedIn.credential.userId;
    const held = connectionsByAccount.get(userId);
    held?.delete(ctx);
    if (held?.size === 0) connectionsByAccount.delete(userId);
    state.signedIn = undefined;
  };

  /** Null while the connection's account is signed in as it was; else why not (the connection is then closed, its place given back at once). */
  const signedOut = async (ctx: Connection, signedIn: SignedIn): Promise<string | null> => {
    try {
      await options.checkSignedIn(signedIn.credential);
      return null;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      release(ctx);
      refuse(ctx, error.message);
      return error.message;
    }
  };

  /** The subscription's execution, or why it is refused: the same checks as a request over HTTP, then the account's (the only read). */
  const startable = async (
    ctx: Connection,
    signedIn: SignedIn,
    schema: GraphQLSchema,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: options.limits.maxTokens });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      const tooManyTokens = tokenLimitError({ message: error.message, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
      return [
        tooManyTokens
          ? clientError(tooManyTokens.message, 'TOO_MANY_TOKENS', { ...tooManyTokens.extensions })
          : clientError(error.message, 'GRAPHQL_PARSE_FAILED'),
      ];
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return invalid.map((error) => clientError(error.message, 'GRAPHQL_VALIDATION_FAILED'));
    const operation = getOperationAST(document, payload.operationName);
    if (!operation)
      return [
        clientError(
          'The document names no single operation to run (see operationName)',
          'OPERATION_RESOLUTION_FAILURE',
        ),
      ];
    if (operation.operation !== 'subscription')
      return [
        clientError('Only subscriptions run over WebSocket; send queries and mutations over HTTP', 'BAD_REQUEST'),
      ];
    const variables = payload.variables ?? undefined;
    // Every subscriber is signed in, and its account is checked before the subscription starts (its token's identity,
    // if a provider's, was looked up once, when the connection began).
    const measure = withAccountCheck(measureOperation(schema, document, operation, variables), {
      checked: true,
      lookedUp: false,
    });
    const refused = limitRefusal(measure, options.limits) ?? overLongIdRefusal(schema, document, operation, variables);
    if (refused) return [refused];
    const paid = await options.charge(signedIn.credential.userId, measure.cost);
    if (!paid.allowed)
      return [
        clientError(rateRefusal(paid).message, 'RATE_LIMITED', {
          retryAfterSeconds: paid.retryAfterSeconds,
          cost: paid.cost,
          remaining: paid.remaining,
        }),
      ];
    // Variables that do not coerce are the client's mistake, as over HTTP: refused here, where execution would report them without a code.
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 10 });
    if (coerced.errors) return coerced.errors.map((error) => clientError(error.message, 'BAD_USER_INPUT'));
    // A connection whose token was signed out since is closed, not just refused: it gives its place back. A failed
    // check fails this subscription alone (logged and masked by onError), not the connection.
    let why: string | null;
    try {
      why = await signedOut(ctx, signedIn);
    } catch (error) {
      return [
        new GraphQLError("could not check the connection's account", {
          originalError: error instanceof Error ? error : new Error(String(error)),
        }),
      ];
    }
    if (why !== null) return [clientError(why, 'UNAUTHENTICATED')];
    return {
      schema,
      document,
      operationName: payload.operationName,
      variableValues: variables,
      contextValue: options.context(signedIn, ctx.extra.request),
    };
  };

  /**
   * Closes those of the account's connections whose token was signed out (or whose account is gone)
   * since they signed in: they hear no more events anyway, and must not keep the account's own
   * new connections out. Run when the account has no place left, so it costs nothing otherwise.
   */
  const closeSignedOut = async (held: ReadonlySet<Connection>): Promise<void> => {
    const checks = await Promise.allSettled(
      [...held].map((other) => (other.extra.state?.signedIn ? signedOut(other, other.extra.state.signedIn) : null)),
    );
    for (const check of checks)
      if (check.status === 'rejected')
        logger.error('could not check a held subscription connection', { error: check.reason });
  };

  const disposable = useServer<Record<string, unknown>, ConnectionStateExtra>(
    {
      isProd: options.production,
      onConnect: async (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        const token = typeof authorization === 'string' ? bearerOf(authorization) : null;
        if (token === null) return refuse(ctx, 'sign in with connectionParams { authorization: "Bearer <token>" }');
        let signedIn: SignedIn;
        try {
          signedIn = await options.signIn(token, ctx.extra.request);
        } catch (error) {
          return refuseFailed(ctx, error);
        }
        // Closed while it was checked: onClose has run already and would never give the place back.
        const closed = () => ctx.extra.socket.readyState !== ctx.extra.socket.OPEN;
        if (closed()) return false;
        const userId = signedIn.credential.userId;
        const tooMany = `at most ${options.maxConnectionsPerAccount} connections per account`;
        // Every read a connection makes is paid from its account's bucket, as a request's: the checks of the places
        // held when there is none left, then its own, each before it is sent (a provider token's lookup: signIn).
        /** Whether the account has a place for it, once its signed-out connections are closed when it has none; else refused. */
        const placeFree = async (): Promise<boolean> => {
          const held = connectionsByAccount.get(userId);
          if (!held || held.size < options.maxConnectionsPerAccount) return true;
          const paid = await options.charge(userId, ACCOUNT_CHECK_COST * held.size);
          if (!paid.allowed) return refuse(ctx, `${tooMany}, and no points left to check them`);
          await closeSignedOut(held);
          // Closed meanwhile, or another connection took the place freed.
          if (closed()) return false;
          const now = connectionsByAccount.get(userId);
          return now && now.size >= options.maxConnectionsPerAccount ? refuse(ctx, tooMany) : true;
        };
        if (!(await placeFree())) return false;
        const paid = await options.charge(userId, ACCOUNT_CHECK_COST);
        if (!paid.allowed) return refuse(ctx, `rate limited: try again in ${paid.retryAfterSeconds} s`);
        try {
          await options.checkSignedIn(signedIn.credential);
        } catch (error) {
          return refuseFailed(ctx, error);
        }
        // Another connection of the account may have taken the place while this one was checked.
        if (closed() || !(await placeFree())) return false;
        let place = connectionsByAccount.get(userId);
        if (!place) connectionsByAccount.set(userId, (place = new Set()));
        place.add(ctx);
        ctx.extra.state = { signedIn, starting: new Set() };
        ctx.extra.state.expiry = setTimeout(
          () => ctx.extra.socket.close(CloseCode.Forbidden, 'Forbidden: the token has expired'),
          Math.min(MAX_TIMER_MS, Math.max(0, signedIn.expiresAtMs - Date.now())),
        );
        return true;
      },
      onClose: release,
      onSubscribe: async (ctx, id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        const state = ctx.extra.state;
        const signedIn = state?.signedIn;
        const schema = options.schema();
        if (!state || !signedIn || !schema) return [clientError('The connection is not signed in', 'UNAUTHENTICATED')];
        if (state.starting.has(id))
          return [
            clientError(`Subscription ${id} is still starting: wait for it before sending its id again`, 'BAD_REQUEST'),
          ];
        // Counted before anything is awaited, so that subscriptions sent together count one another: this one (graphql-ws
        // reserves its id first), the others held, and those still starting.
        const max = options.maxSubscriptionsPerConnection;
        if (new Set([...Object.keys(ctx.subscriptions), ...state.starting, id]).size > max) {
          return [
            clientError(`A connection may hold at most ${max} subscriptions`, 'TOO_MANY_SUBSCRIPTIONS', {
              maxSubscriptions: max,
            }),
          ];
        }
        state.starting.add(id);
        try {
          const started = await startable(ctx, signedIn, schema, payload);
          if (Array.isArray(started)) state.starting.delete(id);
          return started;
        } catch (error) {
          state.starting.delete(id);
          throw error;
        }
      },
      onOperation: (ctx, id) => {
        ctx.extra.state?.starting.delete(id);
        return undefined;
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors
          ? { ...result, errors: result.errors.map((error) => options.formatError(error.toJSON(), error)) }
          : undefined,
      // An error thrown by the event stream reaches here wrapped in a GraphQLError without a path: formatted as what it wraps.
      onError: (ctx, id, _payload, errors) => {
        ctx.extra.state?.starting.delete(id);
        return errors.map((error) => options.formatError(error.toJSON(), error.originalError ?? error));
      },
    },
    sockets,
  );

  return {
    upgrade(request, socket, head) {
      const { pathname } = new URL(request.url ?? '/', 'http://localhost');
      if (pathname !== '/graphql') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      sockets.handleUpgrade(request, socket, head, (webSocket) => {
        sockets.emit('connection', webSocket, request);
        // A socket's errors are the peer's protocol mistakes (a frame over maxPayload, bad UTF-8), and ws closes it
        // itself (1009, 1007, ...): one line at warn instead of graphql-ws's console.error with a stack.
        webSocket.removeAllListeners('error');
        webSocket.on('error', (error: Error & { code?: string }) =>
          logger.warn('a WebSocket client broke the protocol', { reason: error.message, code: error.code }),
        );
      });
    },
    close: () => disposable.dispose() as Promise<void>,
  };
}

/** What graphql-ws keeps per connection besides the socket and request: this connection's sign-in. */
type ConnectionStateExtra = { state?: ConnectionState };
type Connection = Context<Record<string, unknown>, Extra & Partial<ConnectionStateExtra>>;
