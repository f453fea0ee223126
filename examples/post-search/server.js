// The search server of examples/post-search: Node.js only, no packages. It answers the shape of
// HubSpot's CRM search (POST /crm/v3/objects/{objectType}/search) for contacts.
//   node server.js PORT [MAX_AFTER]
// Request body: {filterGroups: [{filters: [{propertyName, operator, value}]}], sorts:
// [{propertyName, direction}], properties: [...], limit, after}. Filter groups are ORed, the
// filters of a group ANDed; operators EQ, NEQ, GT, GTE, LT, LTE; an empty filterGroups matches
// every contact. Results are sorted by the first sort (ties by id, ascending), `after` is the
// offset into them, and `limit` is capped at 200.
// Response: {total, results: [{id, properties, createdAt, updatedAt, archived}], paging: {next:
// {after}}} with paging only while more results follow.
// As at HubSpot, an `after` of MAX_AFTER (10000) or more is refused with a 400: a search can page
// through its first 10 000 results only. Writes, for trying changes: POST
// /crm/v3/objects/contacts {properties} creates, PATCH /crm/v3/objects/contacts/ID {properties}
// updates; both stamp lastmodifieddate with the server's clock. Every search is logged on stdout
// as "search after=N filters=[...]".
'use strict';
const http = require('node:http');

const port = Number(process.argv[2] || 4030);
const maxAfter = Number(process.argv[3] || 10000);
const MAX_LIMIT = 200;

// In memory: seven contacts, modified one second apart; every start begins from this seed.
const contacts = [];
for (let i = 1; i <= 7; i++) {
  const at = `2024-05-01T09:00:0${i}.000Z`;
  contacts.push({
    id: String(i),
    properties: { email: `contact${i}@example.com`, firstname: `Contact ${i}`, lastmodifieddate: at },
    createdAt: at,
    updatedAt: at,
    archived: false,
  });
}
let nextId = contacts.length + 1;
let lastStamp = 0;

// A write's timestamp: the clock, but always after the one before (two writes in one
// millisecond still order).
function stamp() {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp).toISOString();
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function error(res, status, message) {
  send(res, status, { status: 'error', message, category: 'VALIDATION_ERROR' });
}

function value(c, name) {
  if (name === 'hs_object_id') return c.id;
  return c.properties[name];
}

// Dates compare as strings (ISO 8601 in UTC), ids and other numbers as numbers.
function compare(a, b) {
  if (a === undefined || b === undefined) return NaN;
  const x = Number(a);
  const y = Number(b);
  if (!Number.isNaN(x) && !Number.isNaN(y) && !/T/.test(String(a))) return x - y;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

const OPS = {
  EQ: (c) => c === 0, NEQ: (c) => c !== 0, GT: (c) => c > 0, GTE: (c) => c >= 0,
  LT: (c) => c < 0, LTE: (c) => c <= 0,
};

function search(body, res) {
  const groups = body.filterGroups || [];
  for (const g of groups)
    for (const f of g.filters || []) {
      if (!OPS[f.operator]) return error(res, 400, `unknown operator ${f.operator}`);
      if (f.value === undefined) return error(res, 400, `filter on ${f.propertyName} has no value`);
    }
  const matches = (c) =>
    groups.length === 0 ||
    groups.some((g) => (g.filters || []).every((f) => OPS[f.operator](compare(value(c, f.propertyName), f.value))));
  const sort = (body.sorts || [])[0];
  const list = contacts.filter(matches).sort((a, b) => {
    let c = sort ? compare(value(a, sort.propertyName), value(b, sort.propertyName)) : 0;
    if (sort && sort.direction === 'DESCENDING') c = -c;
    return c || compare(a.id, b.id);
  });
  const after = Number(body.after || 0);
  if (!Number.isInteger(after) || after < 0) return error(res, 400, `after '${body.after}' is not an offset`);
  if (after >= maxAfter)
    return error(res, 400, `after ${after}: a search pages through its first ${maxAfter} results only`);
  const limit = Math.min(Number(body.limit || 10), MAX_LIMIT);
  const page = list.slice(after, after + limit);
  const out = { total: list.length, results: page };
  if (after + page.length < list.length) out.paging = { next: { after: String(after + page.length) } };
  send(res, 200, out);
}

function readJson(req, res, then) {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(raw || '{}');
    } catch (e) {
      return error(res, 400, `body is not JSON: ${e.message}`);
    }
    then(body);
  });
}

http
  .createServer((req, res) => {
    const path = new URL(req.url, `http://127.0.0.1:${port}`).pathname;
    if (req.method === 'POST' && path === '/crm/v3/objects/contacts/search')
      return readJson(req, res, (body) => {
        const filters = (body.filterGroups || []).map((g) => g.filters || []);
        console.log(`search after=${body.after === undefined ? '' : body.after} filters=${JSON.stringify(filters)}`);
        search(body, res);
      });
    if (req.method === 'POST' && path === '/crm/v3/objects/contacts')
      return readJson(req, res, (body) => {
        const at = stamp();
        const c = { id: String(nextId++), properties: { ...body.properties, lastmodifieddate: at }, createdAt: at, updatedAt: at, archived: false };
        contacts.push(c);
        send(res, 201, c);
      });
    const m = path.match(/^\/crm\/v3\/objects\/contacts\/(\d+)$/);
    if (req.method === 'PATCH' && m)
      return readJson(req, res, (body) => {
        const c = contacts.find((x) => x.id === m[1]);
        if (!c) return error(res, 404, `no contact ${m[1]}`);
        const at = stamp();
        Object.assign(c.properties, body.properties || {}, { lastmodifieddate: at });
        c.updatedAt = at;
        send(res, 200, c);
      });
    error(res, 404, `no route ${req.method} ${path}`);
  })
  .listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
