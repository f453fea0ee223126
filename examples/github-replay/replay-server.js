#!/usr/bin/env node
// Replays the GitHub issue pages recorded by octokit/fixtures (github-issues-pages.json) on
// 127.0.0.1 with their real Link, ETag and X-RateLimit-* headers, and lets a test edit the world.
//
//   node replay-server.js [--port 3998]
//
// GET  /repos/octokit-fixture-org/<recorded repo>/issues   the listing, as GitHub serves it
// GET  /repositories/515435940/issues                      the same listing (the Link URLs)
//      query: per_page (default 30), page (default 1), state (open, the default | closed | all)
// GET    /_replay/issues           every issue, newest first
// PATCH  /_replay/issues/NUMBER    merges a JSON object into the issue (RFC 7396), bumps updated_at
// DELETE /_replay/issues/NUMBER    removes the issue; later issues move up a page, as on GitHub
//
// A page whose body and Link equal the recording is served with the recorded ETag and headers;
// any other page gets an ETag computed from its body and Link. Each request is logged on stdout:
//   METHOD URL IF-NONE-MATCH|- STATUS
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const args = process.argv.slice(2);
const portAt = args.indexOf('--port');
const port = portAt >= 0 ? Number(args[portAt + 1]) : 3998;
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error('usage: node replay-server.js [--port 3998]');
  process.exit(2);
}

const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, 'github-issues-pages.json'), 'utf8'));
const GITHUB = 'https://api.github.com';
const RECORDED_PER_PAGE = 3;
const LISTINGS = [new URL(GITHUB + recorded[0].path).pathname, '/repositories/515435940/issues'];
// Headers a replay cannot keep: the body is re-serialized and the connection is ours.
const DROPPED = new Set(['content-length', 'connection', 'etag', 'link']);
const pages = recorded.map((r) => {
  const headers = {};
  for (let i = 0; i < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i];
    const value = r.rawHeaders[i + 1];
    if (!DROPPED.has(name.toLowerCase())) headers[name] = name in headers ? [].concat(headers[name], value) : value;
  }
  const raw = (name) => r.rawHeaders[r.rawHeaders.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === name) + 1];
  return { headers, body: JSON.stringify(r.response), etag: raw('etag'), link: raw('link') };
});
// The world: created-desc, as the recording lists it (issue #13 first).
let issues = recorded.flatMap((r) => r.response);

// GitHub's Link: prev, next, last, first, each the request's query with page set.
function linkHeader(origin, query, page, last) {
  const url = (n) => {
    const q = new URLSearchParams(query);
    q.delete('page');
    q.append('page', String(n));
    return `<${origin}/repositories/515435940/issues?${q}>`;
  };
  const rels = [];
  if (page > 1) rels.push(`${url(page - 1)}; rel="prev"`);
  if (page < last) rels.push(`${url(page + 1)}; rel="next"`, `${url(last)}; rel="last"`);
  if (page > 1) rels.push(`${url(1)}; rel="first"`);
  return rels.join(', ');
}

function listing(req, res, url, origin) {
  const perPage = Math.min(Number(url.searchParams.get('per_page') || 30), 100);
  const page = Number(url.searchParams.get('page') || 1);
  const state = url.searchParams.get('state') || 'open';
  if (!(perPage > 0) || !(page > 0)) return send(res, 422, { 'Content-Type': 'application/json; charset=utf-8' }, { message: 'Validation Failed' });
  const listed = issues.filter((i) => state === 'all' || i.state === state);
  const last = Math.max(1, Math.ceil(listed.length / perPage));
  const body = JSON.stringify(listed.slice((page - 1) * perPage, page * perPage));
  const link = linkHeader(origin, url.searchParams, page, last);
  // Date and X-RateLimit-* stay as recorded, so a client's reset arithmetic (reset - Date) holds.
  const rec = (perPage === RECORDED_PER_PAGE && pages[page - 1]) || null;
  const unchanged = rec !== null && rec.body === body && rec.link.replaceAll(GITHUB, origin) === link;
  // A changed page's validator covers its Link too: a moved "next" is a change a client must see.
  const etag = unchanged ? rec.etag : `"${crypto.createHash('sha256').update(link + '\n' + body).digest('hex')}"`;
  const headers = { ...(rec || pages[0]).headers, ETag: etag };
  if (link) headers.Link = link;
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag.replace(/^W\//, '') || t.trim() === '*')) {
    delete headers['Content-Type'];
    return send(res, 304, headers, null);
  }
  send(res, 200, headers, body);
}

// RFC 7396 JSON merge patch: null removes a member, objects merge, anything else replaces.
function merge(target, patch) {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) v === null ? delete out[k] : (out[k] = merge(out[k], v));
  return out;
}

function admin(req, res, url, body) {
  const json = { 'Content-Type': 'application/json; charset=utf-8' };
  if (req.method === 'GET' && url.pathname === '/_replay/issues') return send(res, 200, json, issues);
  const m = /^\/_replay\/issues\/(\d+)$/.exec(url.pathname);
  const at = m ? issues.findIndex((i) => i.number === Number(m[1])) : -1;
  if (at < 0 || !['PATCH', 'DELETE'].includes(req.method)) return notFound(res);
  if (req.method === 'DELETE') {
    issues = issues.filter((_, i) => i !== at);
    return send(res, 204, {}, null);
  }
  let patch;
  try {
    patch = JSON.parse(body);
  } catch (e) {
    return send(res, 400, json, { message: 'Problems parsing JSON' });
  }
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return send(res, 400, json, { message: 'a JSON object is required' });
  const issue = merge(issues[at], patch);
  if (!('updated_at' in patch)) {
    // GitHub's updated_at has whole seconds; each edit here gets a later one, so it is a new version.
    const next = Math.max(Math.floor(Date.now() / 1000), Date.parse(issues[at].updated_at) / 1000 + 1);
    issue.updated_at = new Date(next * 1000).toISOString().replace('.000Z', 'Z');
  }
  issues[at] = issue;
  send(res, 200, json, issue);
}

function notFound(res) {
  send(res, 404, { 'Content-Type': 'application/json; charset=utf-8' },
    { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
}

function send(res, status, headers, body) {
  const req = res.req;
  console.log(`${req.method} ${req.url} ${req.headers['if-none-match'] || '-'} ${status}`);
  res.writeHead(status, headers);
  res.end(body === null ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://localhost');
    const origin = `http://${req.headers.host || `127.0.0.1:${port}`}`;
    if (url.pathname.startsWith('/_replay/')) return admin(req, res, url, Buffer.concat(chunks).toString('utf8'));
    if (req.method === 'GET' && LISTINGS.includes(url.pathname)) return listing(req, res, url, origin);
    notFound(res);
  });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`replay: ${issues.length} recorded issues on http://127.0.0.1:${port}${LISTINGS[0]}?per_page=${RECORDED_PER_PAGE}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
