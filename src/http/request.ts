import type { IncomingMessage } from 'node:http';
import { AppError } from '../domain/errors.js';

/** What an IPv4 or IPv6 address may look like: it becomes part of a store key. */
const IP_ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The client's address for the sign-in limits: the TCP peer, or behind `trustedProxyHops` proxies the
 * address the outermost of them saw (X-Forwarded-For entries further left are the client's own say).
 */
export function clientAddress(request: IncomingMessage, trustedProxyHops: number): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustedProxyHops === 0) return peer;
  const forwarded = String(request.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const address = forwarded[forwarded.length - trustedProxyHops];
  return address !== undefined && IP_ADDRESS.test(address) ? address : peer;
}

/** The token of a "Bearer <token>" value (a header, or a WebSocket's connectionParams), or null when it is not one. */
export function bearerOf(authorization: string): string | null {
  return BEARER.exec(authorization)?.[1] ?? null;
}

/** The request's bearer token, or null without an Authorization header; a header of another form is refused. */
export function bearerToken(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const token = bearerOf(header);
  if (token === null) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>"');
  return token;
}
