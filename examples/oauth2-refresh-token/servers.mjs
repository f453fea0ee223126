// An OAuth2 authorization server with rotating, single-use refresh tokens (oauth2-mock-server,
// pinned in examples/peers) and an API that accepts only the access tokens it issued, each for
// --ttl seconds. Both on 127.0.0.1.
//
//   node servers.mjs --peers "$(../peers/install)" --auth-port 3995 --api-port 3994 --ttl 60 \
//        --refresh-token rt-first-0123456789
//
// oauth2-mock-server answers the refresh_token grant with a new random refresh token but accepts
// any refresh token, however often. Its documented beforeResponse event makes it strict, as
// refresh token rotation is meant to be (RFC 9700, section 4.14.2): each refresh token is good
// for one grant, and a reused or unknown one gets 400 invalid_grant.
//
// GET  /orders, /invoices   one page of items; 401 without a live token
// GET  /stats               refresh grants (with the time each was issued), invalid_grant answers,
//                           401s, and the token each path was called with
// POST /revoke              forgets every refresh token, as a user revoking the app would
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `usage: node servers.mjs --peers DIR --auth-port PORT --api-port PORT [--ttl SECONDS]
                       [--refresh-token TOKEN]
  --peers DIR            node_modules/.bin of examples/peers (what examples/peers/install prints)
  --auth-port PORT       port of the token endpoint on 127.0.0.1
  --api-port PORT        port of the API on 127.0.0.1
  --ttl SECONDS          lifetime of each access token (default 60)
  --refresh-token TOKEN  the one refresh token the server accepts at first (default none)
  --help                 this text`;

// A mistake in the arguments gets the usage and exit code 2, never a stack trace.
function usage(problem) {
  if (problem) console.error(`servers.mjs: ${problem}`);
  (problem ? console.error : console.log)(USAGE);
  process.exit(problem ? 2 : 0);
}

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      peers: { type: 'string' },
      'auth-port': { type: 'string' },
      'api-port': { type: 'string' },
      ttl: { type: 'string' },
      'refresh-token': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (e) {
  usage(e.message);
}
if (args.help) usage();
for (const required of ['peers', 'auth-port', 'api-port']) {
  if (args[required] === undefined) usage(`--${required} is missing`);
}
for (const port of ['auth-port', 'api-port']) {
  const n = Number(args[port]);
  if (!Number.isInteger(n) || n < 1 || n > 65535) usage(`--${port} ${args[port]} is not a port (1-65535)`);
}
const ttl = Number(args.ttl ?? 60);
if (!(ttl > 0)) usage(`--ttl ${args.ttl} is not a number of seconds above 0`);
const modulePath = path.join(args.peers, '..', 'oauth2-mock-server', 'dist', 'index.mjs');
let OAuth2Server, Events;
try {
  ({ OAuth2Server, Events } = await import(pathToFileURL(modulePath).href));
} catch (e) {
  usage(`--peers ${args.peers}: no oauth2-mock-server at ${modulePath} (run examples/peers/install)`);
}

const refreshTokens = new Set(args['refresh-token'] ? [args['refresh-token']] : []);
const live = new Map(); // access token -> expiry (ms since the epoch)
const stats = { refreshGrants: [], invalidGrants: 0, unauthorized: 0, apiRequests: 0, calls: [] };

const auth = new OAuth2Server();
await auth.issuer.keys.generate('RS256');
auth.service.on(Events.BeforeResponse, (response, req) => {
  if (req.body.grant_type !== 'refresh_token') {
    response.statusCode = 400;
    response.body = { error: 'unsupported_grant_type' };
    return;
  }
  if (!refreshTokens.delete(req.body.refresh_token)) {
    stats.invalidGrants++;
    response.statusCode = 400;
    response.body = { error: 'invalid_grant', error_description: 'refresh token unknown, revoked or already used' };
    return;
  }
  refreshTokens.add(response.body.refresh_token); // the rotated one replaces it
  response.body.expires_in = ttl;
  live.set(response.body.access_token, Date.now() + ttl * 1000);
  stats.refreshGrants.push(Date.now());
});
await auth.start(Number(args['auth-port']), '127.0.0.1');

const api = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/stats') return send(200, stats);
  if (url.pathname === '/revoke' && req.method === 'POST') {
    refreshTokens.clear();
    return send(200, { revoked: true });
  }
  if (url.pathname !== '/orders' && url.pathname !== '/invoices') return send(404, { error: 'not found' });
  stats.apiRequests++;
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const expiry = live.get(token);
  if (expiry === undefined || expiry <= Date.now()) {
    stats.unauthorized++;
    res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
    return send(401, { error: 'invalid_token' });
  }
  stats.calls.push({ path: url.pathname, token: token.slice(-12), at: Date.now() });
  send(200, { items: [{ id: 1, total: 10 }, { id: 2, total: 20 }] });
});
api.listen(Number(args['api-port']), '127.0.0.1');
console.log(`token endpoint http://127.0.0.1:${args['auth-port']}/token, api http://127.0.0.1:${args['api-port']}`);
