/**
 * The page's CPU floor for any service built on Apollo Server and node:http: the same schema, the same HTTP request,
 * the same answer, served from memory by default resolvers. Started by bench/apollo-floor.ts with the page's answer.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';

const answer = JSON.parse(process.env.PAGE_ANSWER ?? '') as { data: { viewer: unknown } };
const apollo = new ApolloServer({
  typeDefs: readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'),
  resolvers: { Query: { viewer: () => answer.data.viewer } },
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
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
