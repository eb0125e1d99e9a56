/**
 * The page's CPU floor for any service built on Apollo Server and node:http: the same schema, the same HTTP request,
 * the same answer, served from memory by default resolvers. Given the page's captured requests too, its resolver first
 * makes them as the bare replay does: a service on Apollo Server and the SDK with no code of its own (its client keeps
 * the SDK's logger step, which the service's removes). Started
 * compiled by bench/apollo-floor.ts, the schema's path its argument and what it serves (FloorInput) on stdin.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { type CapturedRequest, replayRequest } from './cpu-per-page.js';

export interface FloorInput {
  answer: { data: { viewer: unknown } };
  /** The page's store requests, made on every page before it is answered. */
  calls?: { endpoint: string; requests: readonly CapturedRequest[] };
}

const input: Buffer[] = [];
for await (const chunk of process.stdin) input.push(chunk as Buffer);
const { answer, calls } = JSON.parse(Buffer.concat(input).toString('utf8')) as FloorInput;
const replay = calls ? replayRequest(calls.endpoint, calls.requests).replay : null;
const apollo = new ApolloServer({
  typeDefs: readFileSync(process.argv[2]!, 'utf8'),
  resolvers: {
    Query: {
      viewer: replay
        ? async () => {
            await replay();
            return answer.data.viewer;
          }
        : () => answer.data.viewer,
    },
  },
  csrfPrevention: true,
  allowBatchedHttpRequests: false,
  plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
});
await apollo.start();

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === 'string') headers.set(name, value);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      response.statusCode = 400;
      response.end('the body is not JSON');
      return;
    }
    void apollo
      .executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: request.method ?? 'POST', headers, search: '', body },
        context: async () => ({}),
      })
      .then((result) => {
        response.setHeader('cache-control', 'no-store');
        for (const [name, value] of result.headers) response.setHeader(name, value);
        response.statusCode = result.status ?? 200;
        response.end(result.body.kind === 'complete' ? result.body.string : '');
      })
      .catch(() => response.destroy());
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
