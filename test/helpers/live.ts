import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** One subscription's results as they come: data, GraphQL errors, and whether it ended. */
export interface LiveSubscription {
  data: Record<string, any>[];
  errors: { message: string; extensions?: Record<string, any> }[];
  ended: boolean;
  stop(): void;
}

/** A graphql-ws client (the protocol Apollo Client, urql and GraphiQL speak) over `ws`, that never retries. */
export interface LiveClient {
  client: Client;
  /** How often the server acknowledged the connection. */
  acknowledged: number;
  closes: { code: number; reason: string }[];
  subscribe(query: string, variables?: Record<string, unknown>): LiveSubscription;
  dispose(): Promise<void>;
}

export function connectLive(
  httpUrl: string,
  token: string | null,
  options: { connectionParams?: Record<string, unknown> } = {},
): LiveClient {
  const closes: { code: number; reason: string }[] = [];
  const live: LiveClient = {
    client: createClient({
      url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: options.connectionParams ?? (token ? { authorization: `Bearer ${token}` } : {}),
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => {},
      on: {
        connected: () => {
          live.acknowledged += 1;
        },
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          closes.push({ code, reason });
        },
      },
    }),
    acknowledged: 0,
    closes,
    subscribe(query, variables) {
      const subscription: LiveSubscription = { data: [], errors: [], ended: false, stop: () => {} };
      subscription.stop = live.client.subscribe(
        { query, variables },
        {
          next: (result) => {
            if (result.errors) subscription.errors.push(...(result.errors as LiveSubscription['errors']));
            if (result.data) subscription.data.push(result.data);
          },
          error: (error) => {
            if (Array.isArray(error)) subscription.errors.push(...error);
            subscription.ended = true;
          },
          complete: () => {
            subscription.ended = true;
          },
        },
      );
      return subscription;
    },
    dispose: async () => {
      await live.client.dispose();
    },
  };
  return live;
}
