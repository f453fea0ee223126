// An OAuth2 authorization server (oauth2-mock-server, pinned in examples/peers) and an orders API
// that accepts only the access tokens it issued, each for --ttl seconds. Both on 127.0.0.1.
//
//   node servers.mjs --peers "$(../peers/install)" --auth-port 3997 --api-port 3996 --ttl 60 \
//        --client-id watukuy --client-secret s3cret-for-the-example
//
// GET  /orders?page=N   two pages of orders; 401 without a live token
// GET  /stats           what both servers saw (token requests, client authentication, 401s)
// POST /revoke          forgets every issued token, as a server that rotates its keys would
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
const ttl = Number(args.ttl ?? 60);
const clientId = args['client-id'] ?? 'watukuy';
const clientSecret = args['client-secret'] ?? 's3cret-for-the-example';
const modulePath = path.join(args.peers, '..', 'oauth2-mock-server', 'dist', 'index.mjs');
const { OAuth2Server, Events } = await import(pathToFileURL(modulePath).href);

const live = new Map(); // access token -> expiry (ms since the epoch)
const stats = { tokenRequests: 0, refused: 0, unauthorized: 0, apiRequests: 0, clientAuth: [], scopes: [], audiences: [] };

const auth = new OAuth2Server();
await auth.issuer.keys.generate('RS256');
auth.service.on(Events.BeforeResponse, (response, req) => {
  stats.tokenRequests++;
  const basic = (req.headers.authorization ?? '').replace(/^Basic /, '');
  const [id, secret] = basic
    ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
    : [req.body.client_id, req.body.client_secret];
  stats.clientAuth.push(basic ? 'basic' : 'post');
  stats.scopes.push(req.body.scope ?? null);
  stats.audiences.push(req.body.audience ?? null);
  if (id !== clientId || secret !== clientSecret) {
    stats.refused++;
    response.statusCode = 401;
    response.body = { error: 'invalid_client', error_description: 'unknown client or wrong secret' };
    return;
  }
  response.body.expires_in = ttl;
  live.set(response.body.access_token, Date.now() + ttl * 1000);
});
await auth.start(Number(args['auth-port']), '127.0.0.1');

const orders = [
  [{ id: 1, total: 10 }, { id: 2, total: 20 }],
  [{ id: 3, total: 30 }],
];
const api = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/stats') return send(200, stats);
  if (url.pathname === '/revoke' && req.method === 'POST') {
    live.clear();
    return send(200, { revoked: true });
  }
  if (url.pathname !== '/orders') return send(404, { error: 'not found' });
  stats.apiRequests++;
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const expiry = live.get(token);
  if (expiry === undefined || expiry <= Date.now()) {
    stats.unauthorized++;
    res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
    return send(401, { error: 'invalid_token' });
  }
  const page = Number(url.searchParams.get('page') ?? 1);
  send(200, { items: orders[page - 1] ?? [], hasMore: page < orders.length });
});
api.listen(Number(args['api-port']), '127.0.0.1');
console.log(`token endpoint http://127.0.0.1:${args['auth-port']}/token, orders http://127.0.0.1:${args['api-port']}/orders`);
