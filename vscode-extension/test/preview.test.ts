// The dry-run preview component (web/designer/src/preview/view.ts), as the
// Response Preview writes it: the page, hostile values, the golden page of
// a hostile run (test/fixtures/preview.golden.html; UPDATE_GOLDEN=1
// rewrites it), and random hostile data.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { previewPage } from '../src/previewPage';
import { type PreviewRun, bodyView, escapeHTML, h, previewView, toHTML } from '../../web/designer/src/preview/view';

const NONCE = 'n0nce+/=';
const opts = { nonce: NONCE, cspSource: 'vscode-webview://x', scriptName: 'order.js' };
const GOLDEN = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'preview.golden.html');

const hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">';

// A run as the server sends it: credentials already masked (Go's
// runtime/restclient maskHeader), hostile text everywhere else.
const run: PreviewRun = {
  result: { ok: true, note: hostile },
  error: null,
  mode: 'mock',
  calls: [
    {
      serviceId: 'crm"><script>alert(3)</script>',
      method: 'get',
      url: 'https://crm.example.com/api/v2/customers/42?q=<b>',
      requestHeaders: { Authorization: 'Basic ***', 'X-Partner-Api-Key': '***', 'X-Trace': hostile, Accept: 'application/json' },
      status: { code: 200, message: '200 OK' },
      responseHeaders: { 'content-type': 'application/json', 'set-cookie': '***', 'x-evil': '"><img src=x onerror=alert(4)>' },
      responseBody: { customer: { id: 42, name: hostile, tags: ['a', 'b'] }, empty: {}, n: null },
      durationMs: 12.4,
      responseBytes: 1234,
      curl: `curl 'https://crm.example.com/' -H "Authorization: Basic $RESTLS_TOKEN_CRM" -H 'X-Trace: ${hostile}'`,
      events: [{ kind: 'token', message: 'fetched <token> for crm-oauth' }],
      contract: [{ operation: 'GET /customers/{id}', path: '/customer/name', rule: 'type', message: `GET /customers/{id}, status 200: /customer/name: got ${hostile}, want integer` }],
    },
    {
      serviceId: 'geo',
      method: 'POST',
      url: 'https://geo.example.com/v1',
      status: { code: 404, message: '404 Not Found' },
      responseBody: `<html><body>${hostile}</body></html>`,
      responseBodyTruncated: true,
      durationMs: 3,
    },
  ],
  logs: ['plain <log>' as never, { level: 'warn', message: 'hard-coded Authorization header', line: 7 }],
};

function scripts(html: string): string[] {
  return html.match(/<script\b[^>]*>/gi) ?? [];
}

test('escapeHTML escapes every markup character', () => {
  assert.equal(escapeHTML(`<a href="x" title='y'>&\`</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;');
});

test('toHTML escapes text and attribute values, and refuses odd names', () => {
  assert.equal(toHTML(h('p', { title: '"><x>' }, '<b>&')), '<p title="&quot;&gt;&lt;x&gt;">&lt;b&gt;&amp;</p>');
  assert.equal(toHTML(h('details', { open: true, hidden: false, x: null }, 'a', ['b', null, ['c']])), '<details open>abc</details>');
  assert.throws(() => toHTML(h('img onerror=x', null)), /bad tag name/);
  assert.throws(() => toHTML(h('p', { onclick: 'x' })), /bad attribute name/);
  assert.throws(() => toHTML(h('p', { 'a"b': 'x' })), /bad attribute name/);
});

test('preview golden: a hostile run is written as text, headers as the server masked them', () => {
  // One block element a line, to read: text holds no '<' (it is escaped).
  const html =
    toHTML(previewView({ state: 'done', result: run, mode: run.mode }, { title: 'Response Preview: order.js', modeLabel: `mocks from ${hostile}` })).replace(
      /(?!^)<(?=(?:div|section|details|summary|ol|ul|li|dl|dt|h1|h2|h3|p|pre)\b)/g,
      '\n<',
    ) + '\n';
  if (process.env.UPDATE_GOLDEN) {
    fs.writeFileSync(GOLDEN, html);
  }
  assert.equal(html, fs.readFileSync(GOLDEN, 'utf8'), 'the preview changed: look at the difference, then UPDATE_GOLDEN=1 npm test');
});

test('preview: hostile values are text, the only script is the nonce one', () => {
  const html = previewPage(run, opts);
  const tags = scripts(html);
  assert.equal(tags.length, 1, `exactly one <script> tag, got ${tags.join(' ')}`);
  assert.equal(tags[0], `<script nonce="${escapeHTML(NONCE)}">`);
  assert.ok(!/<img\b/i.test(html), 'no <img> from data');
  assert.ok(!/<[^>]*\son\w+\s*=/i.test(html), 'no on* attribute on any tag');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the body text is shown escaped');
  assert.ok(html.includes('crm&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;'), 'the serviceId is escaped');
  assert.ok(html.includes('q=&lt;b&gt;'), 'the URL is escaped');
  assert.ok(html.includes('<dt>x-evil</dt><dd>&quot;&gt;&lt;img src=x onerror=alert(4)&gt;</dd>'), 'a hostile header value is text');
  assert.ok(html.includes('plain &lt;log&gt;'));
  assert.ok(html.includes('<dt>X-Partner-Api-Key</dt><dd>***</dd>'), 'headers as the server masked them');
});

test('preview: strict CSP with the nonce and no unsafe sources', () => {
  const html = previewPage(run, opts);
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.ok(m, 'CSP meta present');
  const csp = m[1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${escapeHTML(NONCE).replace(/[+/=]/g, '\\$&')}'`));
  assert.ok(!/unsafe-inline|unsafe-eval|\*/.test(csp), csp);
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), 'CSP comes before any script');
  const styles = html.match(/<style\b[^>]*>/g) ?? [];
  assert.deepEqual(styles, [`<style nonce="${escapeHTML(NONCE)}">`]);
});

test('preview: one entry per call with method, serviceId, URL, status, duration', () => {
  const html = previewPage(run, opts);
  const calls = html.split('<details class="restls-call"').slice(1);
  assert.equal(calls.length, 2);
  assert.match(calls[0], /<span class="restls-method">GET<\/span><span class="restls-sid">crm/);
  assert.match(calls[0], /<span class="restls-status restls-badge restls-ok">200 200 OK<\/span>|<span class="restls-status restls-badge restls-ok">200 OK<\/span>/);
  assert.match(calls[0], /12 ms/);
  assert.match(calls[0], /1\.2 kB/);
  assert.match(calls[0], /crm\.example\.com\/api\/v2\/customers\/42/);
  assert.match(calls[1], /<span class="restls-method">POST<\/span>/);
  assert.match(calls[1], /<span class="restls-status restls-badge restls-bad">404/);
  assert.match(calls[1], /Response body \(cut: too long\)/);
  assert.match(calls[0], /<li><span class="restls-ev">token<\/span>: fetched &lt;token&gt; for crm-oauth<\/li>/);
  assert.match(calls[0], /<span class="restls-contract-mark"[^>]*>\? contract \(1\)<\/span>/, 'the call says its answer breaks the description');
  assert.match(calls[0], /<ul class="restls-contract"><li>\? contract \(type\): GET \/customers\/\{id\}, status 200: \/customer\/name: got &lt;script&gt;/);
  assert.ok(!calls[1].includes('restls-contract'), 'a call without notes shows none');
  assert.match(html, /2 calls/);
  assert.match(html, /<h1 class="restls-title">Response Preview: order\.js<\/h1>/);
});

test('preview: JSON bodies are collapsible trees, other text is preformatted', () => {
  const tree = toHTML(bodyView({ a: { b: [1, 'two', false, null] } }));
  assert.match(tree, /^<div class="restls-json"><details open><summary>\{<span class="restls-muted"> 1 key<\/span><\/summary>/);
  assert.match(tree, /<span class="k">&quot;b&quot;: <\/span>\[<span class="restls-muted"> 4 items<\/span>/);
  assert.match(tree, /<span class="s">&quot;two&quot;<\/span>/);
  assert.match(toHTML(bodyView('{"x": 1}')), /class="k">&quot;x&quot;/, 'a string holding JSON is parsed');
  assert.equal(toHTML(bodyView('not <json>')), '<pre class="restls-text">not &lt;json&gt;</pre>');
  const deep = toHTML(bodyView({ l1: { l2: { l3: {} } } }));
  assert.match(deep, /<details><summary><span class="k">&quot;l2&quot;/, 'deeper levels start closed');
});

test('preview: huge bodies are cut, not rendered whole', () => {
  const big = Array.from({ length: 20000 }, (_, i) => ({ i }));
  const html = toHTML(bodyView(big));
  assert.match(html, /too large to show/);
  assert.ok(html.length < 5_000_000);
});

test('preview: an error links to its line; result shown otherwise', () => {
  const ok = previewPage(run, opts);
  assert.match(ok, /<h2>Result<\/h2>/);
  const failed = previewPage(
    { result: undefined, error: { name: 'RestError', message: 'HTTP 404 <Not Found>', status: { code: 404, message: 'Not Found' }, body: '{"err":"<x>"}', line: 12, column: 5 }, calls: [], logs: [] },
    opts,
  );
  assert.match(failed, /<h2>Uncaught RestError<\/h2>/);
  assert.match(failed, /HTTP 404 &lt;Not Found&gt;/);
  assert.match(failed, /<button type="button" class="restls-pos" data-action="reveal" data-line="12" data-column="5">line 12, column 5<\/button>/);
  assert.match(failed, /The script made no REST calls/);
  assert.match(failed, /class="s">&quot;&lt;x&gt;&quot;/);
  assert.match(ok, /data-line="7"/, 'a log line with a line number links too');
});

test('preview: tolerates missing and odd fields', () => {
  const html = previewPage({ calls: [{}, { status: 'weird' as never, requestHeaders: { a: ['1', '2'] as never } }] } as PreviewRun, opts);
  assert.equal((html.match(/<details class="restls-call"/g) ?? []).length, 2);
  assert.match(html, /<span class="restls-method">\?<\/span>/);
  assert.match(html, /<dd>1, 2<\/dd>/);
});

test('preview: a call that failed in transport shows its error code and message', () => {
  const html = previewPage(
    { calls: [{ serviceId: 'slow', method: 'GET', url: 'https://slow', status: null, errorCode: 'READ_TIMEOUT', errorMessage: 'no response within 1000 ms <x>', durationMs: 1000.4 }], error: { name: 'RestError', message: 'timeout', serviceId: 'slow' } },
    opts,
  );
  assert.match(html, /<p class="restls-bad">✗ READ_TIMEOUT: no response within 1000 ms &lt;x&gt;<\/p>/);
  assert.match(html, /<span class="restls-status restls-badge restls-bad">READ_TIMEOUT<\/span>/);
  assert.match(html, /1000 ms/);
  assert.match(html, /serviceId <span class="restls-sid">slow<\/span>/);
});

test('preview: the object restls run --json prints for the example script', () => {
  // cmd/restls run --json --mock testdata/mocks/customer-summary.yaml testdata/scripts/customer-summary.js (trimmed).
  const sample = {
    result: { customer: 'Ann Example', openOrders: 2 },
    error: null,
    calls: [
      {
        serviceId: 'payments',
        method: 'GET',
        url: 'https://payments.example.com/api/accounts/42/balance',
        requestHeaders: { Accept: 'application/json', Authorization: 'Bearer ***' },
        status: { code: 200, message: 'OK' },
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: { amount: 310.25, currency: 'EUR' },
        durationMs: 20.536,
        events: [{ kind: 'mock', message: 'a placeholder bearer token is sent' }],
      },
    ],
    logs: [{ level: 'warn', message: 'address lookup failed: 503 Service Unavailable', line: 20 }],
  };
  const html = previewPage(sample, opts);
  assert.match(html, /restls-ok">200 OK<\/span>/);
  assert.match(html, /<dd>Bearer \*\*\*<\/dd>/);
  assert.match(html, /class="k">&quot;currency&quot;: <\/span><span class="s">&quot;EUR&quot;/);
  assert.match(html, /21 ms/);
  assert.match(html, /<span class="restls-lvl">\[warn\]<\/span> address lookup failed/);
  assert.match(html, /data-line="20"/);
});

// A seeded generator of hostile values: random markup fragments in keys,
// values, headers, URLs, messages and logs. Whatever comes in, the page may
// hold only the tags and attributes the template writes.
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

const FRAGMENTS = ['<', '>', '"', "'", '`', '&', '<script>', '</script>', '<img src=x onerror=alert(1)>', '" onmouseover="x', "' autofocus onfocus='x", '<!--', '-->', ']]>', '<style>', '</details>', '<a href="javascript:x">', '&lt;', '\u2028', 'nonce-', '${x}', 'plain'];

function hostileString(r: () => number): string {
  let s = '';
  const n = 1 + Math.floor(r() * 5);
  for (let i = 0; i < n; i++) {
    s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
  }
  return s;
}

function hostileValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.4) {
    return hostileString(r);
  }
  if (k < 0.5) {
    return Math.floor(r() * 1000);
  }
  if (k < 0.7) {
    return Array.from({ length: Math.floor(r() * 4) }, () => hostileValue(r, depth + 1));
  }
  const o: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(r() * 4); i++) {
    o[hostileString(r)] = hostileValue(r, depth + 1);
  }
  return o;
}

const ALLOWED_TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'h2', 'h3', 'div', 'span', 'strong', 'button', 'script', 'section', 'details', 'summary', 'code', 'dl', 'dt', 'dd', 'p', 'pre', 'ul', 'ol', 'li']);
const ALLOWED_ATTRS = new Set(['lang', 'charset', 'http-equiv', 'content', 'name', 'nonce', 'class', 'type', 'open', 'role', 'title', 'aria-label', 'data-state', 'data-action', 'data-call', 'data-line', 'data-column']);

test('preview: random hostile data never adds a tag, an attribute or a script', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const s = () => hostileString(r);
    const run = {
      result: hostileValue(r, 0),
      error: r() < 0.5 ? null : { name: s(), message: s(), code: s(), serviceId: s(), status: { code: 500, message: s() }, body: s(), line: 3, column: 2 },
      calls: Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
        serviceId: s(),
        method: s(),
        url: s(),
        requestHeaders: { [s()]: s(), Authorization: s() },
        responseHeaders: { [s()]: s() },
        status: { code: Math.floor(r() * 600), message: s() },
        responseBody: r() < 0.5 ? hostileValue(r, 0) : JSON.stringify(hostileValue(r, 0)),
        errorCode: s(),
        errorMessage: s(),
        events: [{ kind: s(), message: s() }],
        durationMs: r() * 100,
      })),
      logs: [s() as never, { level: s(), message: s(), line: 1 }],
    };
    const html = previewPage(run as PreviewRun, { ...opts, scriptName: s(), mode: s() });
    assert.equal(scripts(html).length, 1, `seed ${seed}: one script tag`);
    for (const m of html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)) {
      assert.ok(ALLOWED_TAGS.has(m[1].toLowerCase()), `seed ${seed}: unexpected tag <${m[1]}>`);
      // Attributes one by one: name, optional quoted or bare value; the whole
      // rest of the tag must be consumed.
      const attr = /\s+([^\s=>"'/]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?/y;
      let pos = 0;
      const rest = m[2].replace(/\s*\/?$/, '');
      while (pos < rest.length) {
        attr.lastIndex = pos;
        const a = attr.exec(rest);
        assert.ok(a, `seed ${seed}: unparsable attributes in ${m[0].slice(0, 160)}`);
        assert.ok(ALLOWED_ATTRS.has(a[1].toLowerCase()), `seed ${seed}: unexpected attribute ${a[1]} in ${m[0].slice(0, 160)}`);
        pos = attr.lastIndex;
      }
    }
    assert.ok(!/<!--/.test(html), `seed ${seed}: no comment opened by data`);
  }
});

test('preview: the mode line and each call\'s cURL are text; a call without curl has no Copy button', () => {
  const withCurl: PreviewRun = {
    result: 1,
    error: null,
    mode: 'mock',
    calls: [
      { serviceId: 'a', method: 'GET', url: 'http://x/', status: { code: 200, message: '200 OK' }, curl: `curl 'http://x/' -H '${hostile}'` },
      { serviceId: 'b', method: 'GET', url: 'http://y/', status: { code: 200, message: '200 OK' } },
    ],
  };
  const html = previewPage(withCurl, { ...opts, mode: `mocks from ${hostile}` });
  assert.ok(html.includes(`<span class="restls-mode">mocks from ${escapeHTML(hostile)}</span>`));
  assert.ok(html.includes(`<pre class="restls-curl">${escapeHTML(`curl 'http://x/' -H '${hostile}'`)}</pre>`));
  assert.equal((html.match(/class="restls-copy"/g) ?? []).length, 1);
  assert.match(html, /data-action="copy" data-call="0"/);
  assert.equal((html.match(/<script\b/g) ?? []).length, 1);
  assert.match(previewPage(withCurl, opts), /<span class="restls-mode">Ran with mocks: calls answered from the Mocks fixtures\.<\/span>/, 'without a label, the mode is said from the run');
  assert.ok(!previewPage({ ...withCurl, mode: undefined }, opts).includes('class="restls-mode"'), 'no mode line without a mode');
});
