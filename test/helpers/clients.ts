import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import { decodeJwt } from 'jose';
import { Tokens as TokenSigner } from '../../src/auth/tokens.js';
import type { Tokens } from '../../examples/session.js';
import type { TestApp } from './app.js';

/**
 * The session's tokens with the access token swapped for one of the same account, generation and session that
 * expires `seconds` from now (already, when negative): the refresh token still works, as after a real expiry.
 */
export async function expiringIn(t: TestApp, tokens: Tokens, seconds: number): Promise<Tokens> {
  const claims = decodeJwt(tokens.token);
  const signer = new TokenSigner(t.app.config.jwtSecret, seconds);
  const signed = await signer.sign({
    userId: claims.sub!,
    generation: Number(claims.gen ?? 0),
    sessionId: typeof claims.sid === 'string' ? claims.sid : null,
  });
  return { ...tokens, ...signed };
}

/** One HTTP request a client sent, and the status it got. */
export interface SentRequest {
  operationName: string | undefined;
  authorization: string | null;
  status?: number;
}

/** A fetch that records what each request carried, and holds the requests of operations named in `held` until released. */
export function requestRecorder() {
  const sent: SentRequest[] = [];
  const held = new Map<string, Promise<void>>();
  const send: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { operationName?: string }) : {};
    const request: SentRequest = {
      operationName: body.operationName ?? url.searchParams.get('operationName') ?? undefined,
      authorization: new Headers(init?.headers).get('authorization'),
    };
    sent.push(request);
    await held.get(request.operationName ?? '');
    const response = await fetch(input, init);
    request.status = response.status;
    return response;
  };
  /** Holds `operationName`'s requests until the returned function is called. */
  const hold = (operationName: string): (() => void) => {
    let release!: () => void;
    held.set(
      operationName,
      new Promise<void>((resolve) => (release = resolve)).then(() => {
        held.delete(operationName);
      }),
    );
    return () => release();
  };
  const named = (operationName: string) => sent.filter((request) => request.operationName === operationName);
  return { fetch: send, sent, hold, named };
}

/** How many posts the home timeline of `token`'s user holds, read over HTTP, past any client cache. */
export async function homeTimelineLength(t: TestApp, token: string): Promise<number> {
  const result = await t.gql<{ viewer: { timeline: { edges: unknown[] } } }>(
    '{ viewer { timeline(first: 100) { edges { cursor } } } }',
    {},
    token,
  );
  if (!result.data) throw new Error(JSON.stringify(result.errors));
  return result.data.viewer.timeline.edges.length;
}

/** Every field of the schema whose type is a connection, by type, with its arguments other than the paging ones. */
export function connectionFields(schema: GraphQLSchema): Record<string, Record<string, string[]>> {
  const connections: Record<string, Record<string, string[]>> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!getNamedType(field.type).name.endsWith('Connection')) continue;
      (connections[type.name] ??= {})[field.name] = field.args
        .map((arg) => arg.name)
        .filter((name) => !['first', 'after', 'last', 'before'].includes(name));
    }
  }
  return connections;
}
