import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, maskHeader, renderJson, renderPreview } from '../src/preview';
import { RunResult } from '../src/protocol';

const NONCE = 'n0nce+/=';
const opts = { nonce: NONCE, cspSource: 'vscode-webview://x', scriptName: 'order.js' };

const hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">';

const run: RunResult = {
  result: { ok: true, note: hostile },
  error: null,
  calls: [
    {
      serviceId: 'crm"><script>alert(3)</script>',
      method: 'get',
      url: 'https://crm.example.com/api/v2/customers/42?q=<b>',
      requestHeaders: { Authorization: 'Basic Y3JtOnMzY3IzdA==', 'X-Trace': hostile, 'X-Api-Key': 'k-123', Accept: 'application/json' },
      status: 200,
      responseHeaders: { 'Content-Type': 'application/json', 'Set-Cookie': 'sid=abc' },
      responseBody: { customer: { id: 42, name: hostile, tags: ['a', 'b'] }, empty: {}, n: null },
      durationMs: 12.4,
      events: [{ kind: 'token', message: 'fetched <token> for crm-oauth' }],
    },
    {
      serviceId: 'geo',
      method: 'POST',
      url: 'https://geo.example.com/v1',
      status: { code: 404, message: 'Not Found' },
      responseBody: `<html><body>${hostile}</body></html>`,
      responseBodyTruncated: true,
      durationMs: 3,
    },
  ],
  logs: ['plain <log>', { level: 'WARN', message: 'hard-coded Authorization header', line: 7 }],
};

function scripts(html: string): string[] {
  return html.match(/<script\b[^>]*>/gi) ?? [];
}

test('escapeHtml escapes every markup character', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&\`</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;');
});

test('preview: hostile values are text, the only script is the nonce one', () => {
  const html = renderPreview(run, opts);
  const tags = scripts(html);
  assert.equal(tags.length, 1, `exactly one <script> tag, got ${tags.join(' ')}`);
  assert.equal(tags[0], `<script nonce="${escapeHtml(NONCE)}">`);
  assert.ok(!/<img\b/i.test(html), 'no <img> from data');
  assert.ok(!/<[^>]*\son\w+\s*=/i.test(html), 'no on* attribute on any tag');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the body text is shown escaped');
  assert.ok(html.includes('crm&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;'), 'the serviceId is escaped');
  assert.ok(html.includes('q=&lt;b&gt;'), 'the URL is escaped');
  assert.ok(html.includes('plain &lt;log&gt;'));
});

test('preview: strict CSP with the nonce and no unsafe sources', () => {
  const html = renderPreview(run, opts);
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.ok(m, 'CSP meta present');
  const csp = m[1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${escapeHtml(NONCE).replace(/[+/=]/g, '\\$&')}'`));
  assert.ok(!/unsafe-inline|unsafe-eval|\*/.test(csp), csp);
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), 'CSP comes before any script');
  const styles = html.match(/<style\b[^>]*>/g) ?? [];
  assert.deepEqual(styles, [`<style nonce="${escapeHtml(NONCE)}">`]);
});

test('preview: one entry per call with method, serviceId, URL, status, duration', () => {
  const html = renderPreview(run, opts);
  const sections = html.split('<section class="call"').slice(1);
  assert.equal(sections.length, 2);
  assert.match(sections[0], /<span class="method m-get">GET<\/span>/);
  assert.match(sections[0], /<span class="status st-ok">200<\/span>/);
  assert.match(sections[0], /12 ms/);
  assert.match(sections[0], /crm\.example\.com\/api\/v2\/customers\/42/);
  assert.match(sections[1], /<span class="method m-post">POST<\/span>/);
  assert.match(sections[1], /<span class="status st-err">404 Not Found<\/span>/);
  assert.match(sections[1], /<span class="sid">geo<\/span>/);
  assert.match(sections[1], /Response body <span class="muted">\(cut: too long\)<\/span>/);
  assert.match(sections[0], /<li><span class="ev-kind">token<\/span> fetched &lt;token&gt; for crm-oauth<\/li>/);
  assert.match(html, /2 calls/);
});

test('preview: credentials in request headers are masked, the scheme kept', () => {
  const html = renderPreview(run, opts);
  assert.ok(!html.includes('Y3JtOnMzY3IzdA=='), 'basic credentials never shown');
  assert.ok(!html.includes('k-123'), 'api key never shown');
  assert.ok(!html.includes('sid=abc'), 'cookies never shown');
  assert.match(html, /<th>Authorization<\/th><td>Basic ••••••<\/td>/);
  assert.match(html, /<th>Accept<\/th><td>application\/json<\/td>/);
  assert.equal(maskHeader('authorization', 'Bearer abc.def'), 'Bearer ••••••');
  assert.equal(maskHeader('X-Auth-Token', 'abc'), '••••••');
  assert.equal(maskHeader('Content-Type', 'application/json'), 'application/json');
});

test('preview: JSON bodies are collapsible trees, other text is preformatted', () => {
  const tree = renderJson({ a: { b: [1, 'two', false, null] } });
  assert.match(tree, /<details class="j-node" open><summary><span class="j-punct">\{<\/span>/);
  assert.match(tree, /<span class="j-key">&quot;b&quot;<\/span>: <span class="j-punct">\[<\/span><span class="j-size">4 items<\/span>/);
  assert.match(tree, /<span class="j-str">&quot;two&quot;<\/span>/);
  assert.match(renderJson('{"x": 1}'), /j-key">&quot;x&quot;/, 'a string holding JSON is parsed');
  assert.equal(renderJson('not <json>'), '<pre class="text">not &lt;json&gt;</pre>');
  const deep = renderJson({ l1: { l2: { l3: {} } } });
  assert.match(deep, /<details class="j-node"><summary><span class="j-key">&quot;l2&quot;/, 'deeper levels start closed');
});

test('preview: huge bodies are cut, not rendered whole', () => {
  const big = Array.from({ length: 20000 }, (_, i) => ({ i }));
  const html = renderJson(big);
  assert.match(html, /too large to show/);
  assert.ok(html.length < 5_000_000);
});

test('preview: an error links to its line; result shown otherwise', () => {
  const ok = renderPreview(run, opts);
  assert.match(ok, /<h2>Result<\/h2>/);
  const failed = renderPreview(
    { result: undefined, error: { name: 'RestError', message: 'HTTP 404 <Not Found>', status: { code: 404, message: 'Not Found' }, body: '{"err":"<x>"}', line: 12, column: 5 }, calls: [], logs: [] },
    opts,
  );
  assert.match(failed, /<h2>Error: RestError<\/h2>/);
  assert.match(failed, /HTTP 404 &lt;Not Found&gt;/);
  assert.match(failed, /<a href="#" class="line" data-line="12" data-column="5">line 12, column 5<\/a>/);
  assert.match(failed, /The script made no REST calls/);
  assert.match(failed, /j-str">&quot;&lt;x&gt;&quot;/);
  assert.match(ok, /data-line="7"/, 'a log line with a line number links too');
});

test('preview: tolerates missing and odd fields', () => {
  const html = renderPreview({ calls: [{}, { status: 'weird' as never, requestHeaders: { a: ['1', '2'] as never } }] } as RunResult, opts);
  assert.equal((html.match(/<section class="call"/g) ?? []).length, 2);
  assert.match(html, /<span class="method m-\?">\?<\/span>/);
  assert.match(html, /<td>1, 2<\/td>/);
});

test('preview: a call that failed in transport shows its error code and message', () => {
  const html = renderPreview(
    { calls: [{ serviceId: 'slow', method: 'GET', url: 'https://slow', status: null, errorCode: 'READ_TIMEOUT', errorMessage: 'no response within 1000 ms <x>', durationMs: 1000.4 }], error: { name: 'RestError', message: 'timeout', serviceId: 'slow' } },
    opts,
  );
  assert.match(html, /<div class="call-error"><span class="code">READ_TIMEOUT<\/span> no response within 1000 ms &lt;x&gt;<\/div>/);
  assert.match(html, /<span class="status st-none">—<\/span>/);
  assert.match(html, /1000 ms/);
  assert.match(html, /serviceId <span class="sid">slow<\/span>/);
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
  const html = renderPreview(sample, opts);
  assert.match(html, /<span class="status st-ok">200 OK<\/span>/);
  assert.match(html, /<td>Bearer ••••••<\/td>/);
  assert.match(html, /j-key">&quot;currency&quot;<\/span>: <span class="j-str">&quot;EUR&quot;/);
  assert.match(html, /21 ms/);
  assert.match(html, /<span class="lvl lvl-warn">warn<\/span> address lookup failed/);
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

const ALLOWED_TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'h1', 'h2', 'div', 'span', 'button', 'script', 'section', 'details', 'summary', 'code', 'table', 'tr', 'th', 'td', 'p', 'pre', 'ul', 'li', 'a']);
const ALLOWED_ATTRS = new Set(['lang', 'charset', 'http-equiv', 'content', 'name', 'nonce', 'class', 'id', 'type', 'open', 'href', 'data-line', 'data-column']);

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
      logs: [s(), { level: s(), message: s(), line: 1 }],
    };
    const html = renderPreview(run as RunResult, { ...opts, scriptName: s() });
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
  const withCurl: RunResult = {
    result: 1,
    error: null,
    mode: 'mock',
    calls: [
      { serviceId: 'a', method: 'GET', url: 'http://x/', status: 200, curl: `curl 'http://x/' -H '${hostile}'` },
      { serviceId: 'b', method: 'GET', url: 'http://y/', status: 200 },
    ],
  };
  const html = renderPreview(withCurl, { ...opts, mode: `mocks from ${hostile}` });
  assert.ok(html.includes(`<span class="mode">mocks from ${escapeHtml(hostile)}</span>`));
  assert.ok(html.includes(`<pre class="text curl">${escapeHtml(`curl 'http://x/' -H '${hostile}'`)}</pre>`));
  assert.equal((html.match(/class="copy-curl"/g) ?? []).length, 1);
  assert.match(html, /data-call="1"/);
  assert.equal((html.match(/<script\b/g) ?? []).length, 1);
  assert.ok(!renderPreview(withCurl, opts).includes('class="mode"'), 'no mode line without a mode');
});
