/** What both client examples send through: fetch that waits out RATE_LIMITED, and the signed-in graphql-ws socket. */
import { createClient, type Client as SocketClient, type ClientOptions as SocketOptions } from 'graphql-ws';
import type { Session } from './session.js';

/**
 * fetch that answers HTTP 429 (RATE_LIMITED) by waiting `Retry-After` seconds and sending once more. Nothing of a
 * refused operation ran, so a mutation is safe to send again too. A longer wait, or a second 429, reaches the app
 * as the RATE_LIMITED error, with `extensions.retryAfterSeconds`, to show.
 */
export function fetchHonoringRetryAfter(options: { maxWaitSeconds?: number; fetch?: typeof fetch } = {}): typeof fetch {
  const { maxWaitSeconds = 10, fetch: send = globalThis.fetch } = options;
  return async (input, init) => {
    const response = await send(input, init);
    const seconds = Number(response.headers.get('retry-after'));
    if (response.status !== 429 || !(seconds >= 0 && seconds <= maxWaitSeconds)) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return send(input, init);
  };
}

/**
 * The graphql-ws client for subscriptions, signed in with the session's current token at every (re)connect. The
 * service closes a connection with 4403 when its token expires or is refused; graphql-ws then reconnects, and this
 * socket refreshes the token first. Subscriptions carry on, but events sent meanwhile are not replayed: catch up
 * with `timeline(last:, before:)` (docs/operations/refresh-timeline.graphql) once `connected` fires again.
 */
export function createSocket(
  session: Session,
  url: string,
  options: Omit<SocketOptions, 'url' | 'connectionParams'> = {},
): SocketClient {
  let sent: string | null = null;
  let refused: string | null = null;
  const socket = createClient({
    ...options,
    url,
    connectionParams: async () => {
      sent = refused ? await session.refreshAfter(refused) : await session.accessToken();
      refused = null;
      return sent ? { authorization: `Bearer ${sent}` } : {};
    },
  });
  socket.on('closed', (event) => {
    const { code, reason } = event as { code?: number; reason?: string };
    // "Forbidden: the token has expired", "… signed out …": the token, not the account's connection limit.
    if (code === 4403 && /token/i.test(reason ?? '')) refused = sent;
  });
  return socket;
}
