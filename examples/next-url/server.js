// The listing server of examples/next-url: Node.js only, no packages.
//   node server.js PORT
// Two collections, each paged by a next-page URL in the body, two items a page:
//   GET /v1.0/users?$top=N[&$skiptoken=T]   Microsoft Graph / OData shape: {"value": [...],
//       "@odata.nextLink": "http://127.0.0.1:PORT/v1.0/users?$top=N&$skiptoken=T"} (absolute URL,
//       absent on the last page); $top is capped at 2, as servers cap page sizes.
//   GET /articles?page[size]=N[&page[after]=ID]   JSON:API shape: {"data": [...], "links":
//       {"self": ..., "next": "/articles?page%5Bsize%5D=2&page%5Bafter%5D=ID"}} (a relative URL,
//       null on the last page).
// Writes, for trying changes: POST /v1.0/users or /articles with a JSON object (an id is given),
// DELETE /v1.0/users/ID or /articles/ID. Every request is logged on stdout.
'use strict';
const http = require('node:http');

const port = Number(process.argv[2] || 4020);
const CAP = 2;
// In memory: every start begins from this seed, in id order.
const users = [
  { id: 'u1', displayName: 'Adele Vance', mail: 'adele@example.com' },
  { id: 'u2', displayName: 'Alex Wilber', mail: 'alex@example.com' },
  { id: 'u3', displayName: 'Diego Siciliani', mail: 'diego@example.com' },
  { id: 'u4', displayName: 'Grady Archie', mail: 'grady@example.com' },
  { id: 'u5', displayName: 'Isaiah Langer', mail: 'isaiah@example.com' },
];
const articles = [
  { type: 'articles', id: '1', attributes: { title: 'JSON:API paints my bikeshed!' } },
  { type: 'articles', id: '2', attributes: { title: 'Rails is omakase' } },
  { type: 'articles', id: '3', attributes: { title: 'Pagination links' } },
];
let nextUserId = users.length + 1;
let nextArticleId = articles.length + 1;

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// Items after the one whose id is `after` (all when absent), at most `size` of them.
function slice(list, after, size) {
  const from = after === null ? 0 : list.findIndex((x) => x.id === after) + 1;
  return list.slice(from, from + Math.min(Math.max(size, 1), CAP));
}

function usersPage(url, res) {
  const top = Number(url.searchParams.get('$top') || CAP);
  const token = url.searchParams.get('$skiptoken');
  const after = token === null ? null : Buffer.from(token, 'base64url').toString('utf8');
  const page = slice(users, after, top);
  const body = { '@odata.context': `http://127.0.0.1:${port}/v1.0/$metadata#users`, value: page };
  const last = page[page.length - 1];
  if (last && users.indexOf(last) < users.length - 1) {
    const t = Buffer.from(last.id, 'utf8').toString('base64url');
    body['@odata.nextLink'] = `http://127.0.0.1:${port}/v1.0/users?$top=${top}&$skiptoken=${t}`;
  }
  send(res, 200, body);
}

function articlesPage(url, res) {
  const size = Number(url.searchParams.get('page[size]') || CAP);
  const after = url.searchParams.get('page[after]');
  const page = slice(articles, after, size);
  const last = page[page.length - 1];
  const more = last && articles.indexOf(last) < articles.length - 1;
  const q = (a) => `/articles?page%5Bsize%5D=${size}` + (a ? `&page%5Bafter%5D=${a}` : '');
  send(res, 200, { data: page, links: { self: q(after), next: more ? q(last.id) : null } });
}

function write(req, res, list, make) {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let item;
    try {
      item = make(JSON.parse(raw || '{}'));
    } catch (e) {
      return send(res, 400, { error: String(e.message) });
    }
    list.push(item);
    send(res, 201, item);
  });
}

function remove(res, list, id) {
  const i = list.findIndex((x) => x.id === id);
  if (i < 0) return send(res, 404, { error: `no ${id}` });
  list.splice(i, 1);
  res.writeHead(204).end();
}

http
  .createServer((req, res) => {
    console.log(`${req.method} ${req.url}`);
    const url = new URL(req.url, `http://127.0.0.1:${port}`);
    const m = url.pathname.match(/^\/(v1\.0\/users|articles)(?:\/([^/]+))?$/);
    if (!m) return send(res, 404, { error: 'not found' });
    const isUsers = m[1] === 'v1.0/users';
    if (req.method === 'GET' && !m[2]) return isUsers ? usersPage(url, res) : articlesPage(url, res);
    if (req.method === 'POST' && !m[2])
      return isUsers
        ? write(req, res, users, (b) => ({ ...b, id: `u${nextUserId++}` }))
        : write(req, res, articles, (b) => ({ type: 'articles', id: String(nextArticleId++), attributes: b }));
    if (req.method === 'DELETE' && m[2]) return remove(res, isUsers ? users : articles, m[2]);
    send(res, 405, { error: 'method not allowed' });
  })
  .listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
