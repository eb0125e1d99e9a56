import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { readExampleOperation, OPERATIONS_DIR } from './graphiql-operations.js';

/**
 * GraphiQL served entirely from installed packages: the prebuilt browser bundles of react,
 * react-dom and graphiql from node_modules, and a small start script. Nothing is fetched from
 * a CDN, and the page's Content-Security-Policy lets the browser load nothing from elsewhere.
 */
const GRAPHIQL_PATH = '/graphiql';
const ASSETS_PATH = `${GRAPHIQL_PATH}/assets/`;

/** The operations opened in GraphiQL's tabs, in this order. */
const MAIN_OPERATIONS = [
  'sign-up',
  'sign-in',
  'refresh-session',
  'follow',
  'create-post',
  'home-timeline',
  'timeline-updates',
  'suggestions',
];

/**
 * Stands for the token the page keeps: the start script sends the access token that SignUp, SignIn
 * or RefreshSession returned last in its place (or nothing before there is one). A header typed in
 * its place is sent as it is.
 */
const TOKEN_PLACEHOLDER = 'Bearer <token from SignUp or SignIn, kept for you>';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

const ASSETS: Record<string, { file: () => string; type: string }> = {
  'react.js': { file: () => join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': {
    file: () => join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
    type: 'text/javascript',
  },
  'graphiql.js': { file: () => join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: () => join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
  // The graphql-ws client: GraphiQL runs subscriptions through it.
  'graphql-ws.js': { file: () => join(packageDir('graphql-ws'), 'umd/graphql-ws.min.js'), type: 'text/javascript' },
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  // GraphiQL and its editor set inline styles; its fonts and icons are data: URLs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const START_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  // Plain JSON responses (the service serves no incremental delivery): each request is one promise, whose result keep() reads.
  var send = GraphiQL.createFetcher({ url: config.endpoint, enableIncrementalDelivery: false });
  // The tokens of the last sign-up, sign-in or refresh, for this browser tab only (sessionStorage).
  var TOKEN_KEY = 'social-graph-api:token';
  var REFRESH_TOKEN_KEY = 'social-graph-api:refresh-token';
  function kept(key) {
    return sessionStorage.getItem(key);
  }
  function keep(result) {
    var data = result && result.data;
    if (!data) return;
    var session = data.signUp || data.signIn || data.refreshSession;
    if (session && typeof session.token === 'string') sessionStorage.setItem(TOKEN_KEY, session.token);
    if (session && typeof session.refreshToken === 'string') sessionStorage.setItem(REFRESH_TOKEN_KEY, session.refreshToken);
    if (data.signOut === true) {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(REFRESH_TOKEN_KEY);
    }
  }
  // Why a subscription ended, as the errors of a response: a closed socket says its code and reason, and what to do.
  function explain(error) {
    if (Array.isArray(error)) return error;
    if (error && typeof error.code === 'number') {
      var hint = error.code === 4403 && /token/i.test(error.reason) ? ' Run RefreshSession or SignIn, then this tab again.' : '';
      return [{ message: 'The WebSocket closed: ' + error.code + ' ' + (error.reason || '') + '.' + hint, extensions: { closeCode: error.code } }];
    }
    return [{ message: String((error && error.message) || error) }];
  }
  // A subscription over a WebSocket of its own (graphql-ws), signed in with the Authorization it was run with. It does
  // not reconnect: a refused or closed connection ends it with the reason, instead of a spinner retrying.
  function subscribe(params, authorization) {
    var client = graphqlWs.createClient({
      url: (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + config.endpoint,
      connectionParams: authorization ? { authorization: authorization } : {},
      retryAttempts: 0,
    });
    var events = client.iterate({ query: params.query, variables: params.variables, operationName: params.operationName });
    var ended = false;
    function end() {
      ended = true;
      client.dispose();
      return { done: true, value: undefined };
    }
    var iterator = {
      next: function () {
        if (ended) return Promise.resolve(end());
        return events.next().then(
          function (step) {
            return step.done ? end() : step;
          },
          function (error) {
            ended = true;
            return { done: false, value: { errors: explain(error) } };
          },
        );
      },
      return: function () {
        return Promise.resolve(events.return && events.return()).then(end);
      },
    };
    iterator[Symbol.asyncIterator] = function () {
      return iterator;
    };
    return iterator;
  }
  function fetcher(params, options) {
    var headers = Object.assign({}, options && options.headers);
    var typed = false;
    for (var name in headers) {
      if (name.toLowerCase() !== 'authorization') continue;
      if (headers[name] === config.tokenPlaceholder) delete headers[name];
      else typed = true;
    }
    // refreshSession is sent without a token: an expired one would refuse the request.
    var refreshing = /\\brefreshSession\\b/.test(params.query || '');
    if (!typed && !refreshing && kept(TOKEN_KEY)) headers.Authorization = 'Bearer ' + kept(TOKEN_KEY);
    if (params.variables && params.variables.refreshToken === config.refreshTokenPlaceholder && kept(REFRESH_TOKEN_KEY)) {
      params = Object.assign({}, params, { variables: Object.assign({}, params.variables, { refreshToken: kept(REFRESH_TOKEN_KEY) }) });
    }
    var authorization = null;
    for (var header in headers) if (header.toLowerCase() === 'authorization') authorization = headers[header];
    // GraphiQL learns a new tab's operation name a moment late, so a stale or missing name gives way to the
    // document's only operation; the transport follows the text sent: a subscription goes over the WebSocket.
    var named = params.operationName && new RegExp('\\\\b(query|mutation|subscription)\\\\s+' + params.operationName + '\\\\b').exec(params.query || '');
    var operationType = named ? named[1] : null;
    if (!named) {
      var operations = (params.query || '').replace(/#.*$/gm, '').match(/\\b(?:query|mutation|subscription)\\s+[_A-Za-z]\\w*/g) || [];
      var only = operations.length === 1 ? operations[0].split(/\\s+/) : null;
      operationType = only ? only[0] : null;
      params = Object.assign({}, params, { operationName: only ? only[1] : undefined });
    }
    if (operationType === 'subscription') return subscribe(params, authorization);
    return send(params, Object.assign({}, options, { headers: headers })).then(function (result) {
      keep(result);
      return result;
    });
  }
  var first = config.tabs[0];
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultTabs: config.tabs,
      // GraphiQL 3 fills the editors from these rather than from the first tab; a reload finds that tab again by them.
      query: first.query,
      variables: first.variables,
      defaultHeaders: config.headers,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
      // The Docs panel opens with the schema's description (authentication, errors) instead of GraphiQL's generic text.
      schemaDescription: true,
    }),
  );
})();
`;

/** Cached on first use: the bundles are large and do not change while the service runs. */
const cache = new Map<string, Buffer>();
function cached(key: string, load: () => Buffer): Buffer {
  let body = cache.get(key);
  if (!body) {
    body = load();
    cache.set(key, body);
  }
  return body;
}

function page(): Buffer {
  const headers = JSON.stringify({ Authorization: TOKEN_PLACEHOLDER }, null, 2);
  const operations = MAIN_OPERATIONS.map((name) => readExampleOperation(join(OPERATIONS_DIR, `${name}.graphql`)));
  const config = {
    endpoint: '/graphql',
    tokenPlaceholder: TOKEN_PLACEHOLDER,
    // The example's refresh token (RefreshSession's, SignOut's): the start script sends the kept one in its place.
    refreshTokenPlaceholder: (
      JSON.parse(operations.find((o) => o.name === 'refresh-session')!.variables) as { refreshToken: string }
    ).refreshToken,
    headers,
    tabs: operations.map((operation) => ({
      query: operation.document,
      variables: JSON.stringify(JSON.parse(operation.variables), null, 2),
      headers,
    })),
  };
  // `<` is escaped so that no operation text can close the script element.
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL · Social graph API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS_PATH}graphiql.css">
<style>html,body,#graphiql{height:100%;margin:0}</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script type="application/json" id="graphiql-config">${json}</script>
<script src="${ASSETS_PATH}react.js"></script>
<script src="${ASSETS_PATH}react-dom.js"></script>
<script src="${ASSETS_PATH}graphiql.js"></script>
<script src="${ASSETS_PATH}graphql-ws.js"></script>
<script src="${ASSETS_PATH}start.js"></script>
</body>
</html>
`);
}

function send(response: ServerResponse, type: string, body: Buffer, extraHeaders: Record<string, string> = {}): void {
  response.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'content-length': body.length, ...extraHeaders });
  response.end(body);
}

/** Answers GET /graphiql and its assets; false for any other path. */
export function serveGraphiQL(pathname: string, response: ServerResponse): boolean {
  if (pathname === GRAPHIQL_PATH || pathname === `${GRAPHIQL_PATH}/`) {
    send(response, 'text/html', cached('page', page), {
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'cache-control': 'no-cache',
    });
    return true;
  }
  if (!pathname.startsWith(ASSETS_PATH)) return false;
  const name = pathname.slice(ASSETS_PATH.length);
  if (name === 'start.js') {
    send(
      response,
      'text/javascript',
      cached(name, () => Buffer.from(START_SCRIPT)),
    );
    return true;
  }
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return false;
  send(
    response,
    asset.type,
    cached(name, () => readFileSync(asset.file())),
    { 'cache-control': 'public, max-age=3600' },
  );
  return true;
}
