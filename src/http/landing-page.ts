/** The page at `/`: where to go next. */
export function landingPage(graphiql: boolean): string {
  const explore = graphiql
    ? '<a href="/graphiql">GraphiQL</a>: explore the API in the browser.'
    : 'GraphiQL is off here (<code>GRAPHIQL=true</code> turns it on).';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Social graph API</title>
<link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .25rem}</style>
</head>
<body>
<h1>Social graph API</h1>
<ul>
<li>${explore}</li>
<li><code>POST /graphql</code>: the GraphQL endpoint (JSON body <code>{"query": …, "variables": …}</code>).</li>
<li><code>ws://…/graphql</code>: subscriptions, graphql-ws protocol, token in <code>connectionParams.authorization</code>.</li>
<li><a href="/schema.graphql"><code>GET /schema.graphql</code></a>: the schema, with what each field costs (<code>@cost</code>).</li>
<li><a href="/healthz"><code>GET /healthz</code></a>: 200 when the stores answer.</li>
</ul>
<p>Sign up with the <code>signUp</code> mutation (or sign in with <code>signIn</code>) and send its token as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
</body>
</html>
`;
}
