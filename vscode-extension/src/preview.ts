// The Response Preview's HTML, as a pure function of a dry run's result.
//
// Every value that comes from a script or a response is untrusted: it is
// HTML-escaped where it is written, JSON is rendered as nested
// <details>/<summary> elements (collapsible without any script), and the
// page's Content-Security-Policy allows only the one nonce'd script below,
// which never reads data into the DOM. A body holding <script> is text.

import { Call, RunError, RunResult, statusCode } from './protocol';

/** escapeHtml escapes text for element content and double- or single-quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case "'":
        return '&#39;';
      default:
        return '&#96;';
    }
  });
}

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|apikey)$|token|secret|password|passwd|credential/i;

/**
 * maskHeader masks a header value that can carry a credential, keeping the
 * auth scheme ("Basic", "Bearer") so the reader sees which auth was sent.
 * The server masks too; this is the second line of defence.
 */
export function maskHeader(name: string, value: string): string {
  if (!SECRET_HEADER.test(name)) {
    return value;
  }
  const m = /^(Basic|Bearer|Digest|Negotiate|NTLM|Token)\s+/i.exec(value);
  return (m ? m[1] + ' ' : '') + '••••••';
}

const MAX_NODES = 5000;
const MAX_STRING = 10_000;

interface Budget {
  nodes: number;
}

function scalar(v: unknown): string {
  if (v === null) {
    return '<span class="j-null">null</span>';
  }
  switch (typeof v) {
    case 'string': {
      const s = v.length > MAX_STRING ? v.slice(0, MAX_STRING) + '…' : v;
      return `<span class="j-str">${escapeHtml(JSON.stringify(s))}</span>`;
    }
    case 'number':
      return `<span class="j-num">${escapeHtml(String(v))}</span>`;
    case 'boolean':
      return `<span class="j-bool">${v}</span>`;
    case 'undefined':
      return '<span class="j-null">undefined</span>';
    default:
      return `<span class="j-str">${escapeHtml(String(v))}</span>`;
  }
}

function jsonNode(key: string | undefined, v: unknown, depth: number, budget: Budget): string {
  budget.nodes++;
  const label = key === undefined ? '' : `<span class="j-key">${escapeHtml(JSON.stringify(key))}</span>: `;
  if (budget.nodes > MAX_NODES) {
    return `<div class="j-row">${label}<span class="j-more">… (too large to show)</span></div>`;
  }
  if (v === null || typeof v !== 'object') {
    return `<div class="j-row">${label}${scalar(v)}</div>`;
  }
  const isArr = Array.isArray(v);
  const entries: [string | undefined, unknown][] = isArr ? (v as unknown[]).map((x) => [undefined, x]) : Object.entries(v as object);
  const open = isArr ? '[' : '{';
  const close = isArr ? ']' : '}';
  if (entries.length === 0) {
    return `<div class="j-row">${label}<span class="j-punct">${open}${close}</span></div>`;
  }
  const size = isArr ? `${entries.length} item${entries.length === 1 ? '' : 's'}` : `${entries.length} key${entries.length === 1 ? '' : 's'}`;
  const children = entries.map(([k, x]) => jsonNode(k, x, depth + 1, budget)).join('');
  // Top levels open, deeper ones closed: the shape is visible at a glance.
  return (
    `<details class="j-node"${depth < 2 ? ' open' : ''}><summary>${label}<span class="j-punct">${open}</span>` +
    `<span class="j-size">${size}</span></summary><div class="j-children">${children}</div>` +
    `<div class="j-row"><span class="j-punct">${close}</span></div></details>`
  );
}

/** renderJson renders a value as collapsible JSON; a string holding JSON is parsed first, any other string is shown as text. */
export function renderJson(v: unknown): string {
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return `<div class="json">${jsonNode(undefined, JSON.parse(t), 0, { nodes: 0 })}</div>`;
      } catch {
        // Not JSON: show as text below.
      }
    }
    const s = v.length > MAX_STRING * 10 ? v.slice(0, MAX_STRING * 10) + '…' : v;
    return `<pre class="text">${escapeHtml(s)}</pre>`;
  }
  return `<div class="json">${jsonNode(undefined, v, 0, { nodes: 0 })}</div>`;
}

function headersTable(h: Record<string, unknown> | undefined, mask: boolean): string {
  if (!h || typeof h !== 'object' || Object.keys(h).length === 0) {
    return '<p class="muted">none</p>';
  }
  const rows = Object.entries(h)
    .map(([k, v]) => {
      const val = Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'string' ? v : JSON.stringify(v);
      return `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(mask ? maskHeader(k, val) : val)}</td></tr>`;
    })
    .join('');
  return `<table class="headers">${rows}</table>`;
}

function statusClass(code: number | undefined): string {
  if (code === undefined) {
    return 'st-none';
  }
  return code >= 200 && code < 300 ? 'st-ok' : 'st-err';
}

function lineLink(line: number | undefined, column: number | undefined, textLabel: string): string {
  if (!line || line < 1) {
    return escapeHtml(textLabel);
  }
  const col = column && column > 0 ? column : 1;
  return `<a href="#" class="line" data-line="${line}" data-column="${col}">${escapeHtml(textLabel)}</a>`;
}

function callError(c: Call): string {
  const parts: string[] = [];
  if (typeof c.errorCode === 'string' && c.errorCode) {
    parts.push(`<span class="code">${escapeHtml(c.errorCode)}</span>`);
  }
  if (typeof c.errorMessage === 'string' && c.errorMessage) {
    parts.push(escapeHtml(c.errorMessage));
  } else if (c.error !== undefined && c.error !== null && c.error !== '') {
    parts.push(escapeHtml(typeof c.error === 'string' ? c.error : JSON.stringify(c.error)));
  }
  return parts.length ? `<div class="call-error">${parts.join(' ')}</div>` : '';
}

function events(c: Call): string {
  if (!Array.isArray(c.events) || c.events.length === 0) {
    return '';
  }
  const items = c.events
    .map((e) => `<li>${e && typeof e.kind === 'string' ? `<span class="ev-kind">${escapeHtml(e.kind)}</span> ` : ''}${escapeHtml(String(e && typeof e.message === 'string' ? e.message : JSON.stringify(e)))}</li>`)
    .join('');
  return `<ul class="events">${items}</ul>`;
}

function callEntry(c: Call, i: number): string {
  const st = statusCode(c.status);
  const method = typeof c.method === 'string' ? c.method.toUpperCase() : '?';
  const dur = typeof c.durationMs === 'number' ? `${c.durationMs < 10 ? c.durationMs.toFixed(1) : Math.round(c.durationMs)} ms` : '';
  const reqBody = c.requestBody === undefined || c.requestBody === null ? '' : `<details class="section"><summary>Request body</summary>${renderJson(c.requestBody)}</details>`;
  const respBody = c.responseBody !== undefined ? c.responseBody : c.body;
  const cut = c.responseBodyTruncated ? ' <span class="muted">(cut: too long)</span>' : '';
  const body = respBody === undefined || respBody === null ? '<p class="muted">no body</p>' : renderJson(respBody);
  const curl =
    typeof c.curl === 'string' && c.curl !== ''
      ? `<details class="section"><summary>cURL <button type="button" class="copy-curl" data-call="${i + 1}" title="Copy this call as a curl command line; credentials are \$RESTLS_TOKEN_… variables">Copy as cURL</button></summary><pre class="text curl">${escapeHtml(c.curl)}</pre></details>`
      : '';
  return (
    `<section class="call" id="call-${i + 1}">` +
    `<details open><summary class="call-head">` +
    `<span class="idx">#${i + 1}</span> <span class="method m-${escapeHtml(method.toLowerCase())}">${escapeHtml(method)}</span> ` +
    `<span class="sid">${escapeHtml(String(c.serviceId ?? ''))}</span> ` +
    `<span class="status ${statusClass(st.code)}">${st.code === undefined ? '—' : escapeHtml(String(st.code))}${st.message ? ' ' + escapeHtml(st.message) : ''}</span> ` +
    `<span class="dur">${escapeHtml(dur)}</span></summary>` +
    `<div class="url"><code>${escapeHtml(String(c.url ?? ''))}</code></div>${callError(c)}${events(c)}` +
    `<details class="section"><summary>Request headers</summary>${headersTable(c.requestHeaders, true)}</details>` +
    reqBody +
    `<details class="section"><summary>Response headers</summary>${headersTable(c.responseHeaders, true)}</details>` +
    `<details class="section" open><summary>Response body${cut}</summary>${body}</details>` +
    curl +
    `</details></section>`
  );
}

function errorBlock(e: RunError): string {
  const st = statusCode(e.status);
  const where = e.line ? lineLink(e.line, e.column, `line ${e.line}${e.column ? ', column ' + e.column : ''}`) : '';
  const title = [e.name, e.code].filter((x) => typeof x === 'string' && x).join(' ');
  const sid = typeof e.serviceId === 'string' && e.serviceId ? `<div>serviceId <span class="sid">${escapeHtml(e.serviceId)}</span></div>` : '';
  const status = st.code !== undefined ? `<div>status <span class="status st-err">${escapeHtml(String(st.code))}${st.message ? ' ' + escapeHtml(st.message) : ''}</span></div>` : '';
  const body = e.body === undefined || e.body === null || e.body === '' ? '' : `<details class="section" open><summary>Body</summary>${renderJson(e.body)}</details>`;
  return (
    `<section class="outcome error"><h2>Error${title ? ': ' + escapeHtml(title) : ''}</h2>` +
    `<div class="message">${escapeHtml(String(e.message ?? ''))}</div>` +
    (where ? `<div class="where">at ${where}</div>` : '') +
    sid +
    status +
    body +
    `</section>`
  );
}

function logLine(l: unknown): string {
  if (typeof l === 'string') {
    return `<li>${escapeHtml(l)}</li>`;
  }
  if (l && typeof l === 'object') {
    const o = l as Record<string, unknown>;
    const level = typeof o.level === 'string' ? o.level : '';
    const msg = typeof o.message === 'string' ? o.message : typeof o.msg === 'string' ? o.msg : JSON.stringify(l);
    const line = typeof o.line === 'number' ? o.line : undefined;
    return `<li>${level ? `<span class="lvl lvl-${escapeHtml(level.toLowerCase())}">${escapeHtml(level)}</span> ` : ''}${escapeHtml(msg)}${line ? ' ' + lineLink(line, typeof o.column === 'number' ? o.column : undefined, `(line ${line})`) : ''}</li>`;
  }
  return `<li>${escapeHtml(String(l))}</li>`;
}

/** PreviewOptions are the page's frame: its nonce, the webview's CSP source, and labels. */
export interface PreviewOptions {
  nonce: string;
  cspSource: string;
  scriptName: string;
  when?: Date;
  /** mode says how the calls were answered ("mocks from orders.mock.yaml"); undefined shows nothing. */
  mode?: string;
}

/** renderPreview returns the whole Response Preview page for one dry run. */
export function renderPreview(run: RunResult, opts: PreviewOptions): string {
  const calls = Array.isArray(run.calls) ? run.calls : [];
  const logs = Array.isArray(run.logs) ? run.logs : [];
  const outcome = run.error
    ? errorBlock(run.error)
    : `<section class="outcome ok"><h2>Result</h2>${run.result === undefined ? '<p class="muted">undefined</p>' : renderJson(run.result)}</section>`;
  const callsHtml = calls.length === 0 ? '<p class="muted">The script made no REST calls.</p>' : calls.map(callEntry).join('');
  const logsHtml = logs.length === 0 ? '' : `<section class="logs"><h2>Logs</h2><ul>${logs.map(logLine).join('')}</ul></section>`;
  const nonce = escapeHtml(opts.nonce);
  const when = opts.when ? ` · ${escapeHtml(opts.when.toLocaleTimeString())}` : '';
  const mode = opts.mode ? ` · <span class="mode">${escapeHtml(opts.mode)}</span>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${escapeHtml(opts.cspSource)} data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Response Preview</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><h1>Response Preview: ${escapeHtml(opts.scriptName)}</h1>
<div class="summary">${calls.length} call${calls.length === 1 ? '' : 's'} · ${run.error ? '<span class="st-err">error</span>' : '<span class="st-ok">completed</span>'}${mode}${when}
<span class="tools"><button type="button" id="expand">Expand all</button> <button type="button" id="collapse">Collapse all</button></span></div></header>
${outcome}
<h2>Calls</h2>
${callsHtml}
${logsHtml}
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

// The page's only script: expand/collapse buttons and line links, which ask
// the extension to reveal a line. It never puts data into the DOM.
const SCRIPT = `(function () {
  const vscode = acquireVsCodeApi();
  function all(open) { document.querySelectorAll('details').forEach(function (d) { d.open = open; }); }
  document.getElementById('expand').addEventListener('click', function () { all(true); });
  document.getElementById('collapse').addEventListener('click', function () { all(false); });
  document.addEventListener('click', function (e) {
    const copy = e.target.closest ? e.target.closest('button.copy-curl') : null;
    if (copy) {
      e.preventDefault();
      vscode.postMessage({ type: 'copyCurl', call: Number(copy.dataset.call) });
      return;
    }
    const a = e.target.closest ? e.target.closest('a.line') : null;
    if (!a) { return; }
    e.preventDefault();
    vscode.postMessage({ type: 'reveal', line: Number(a.dataset.line), column: Number(a.dataset.column) });
  });
})();`;

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 24px; }
h1 { font-size: 1.3em; margin: 12px 0 4px; }
h2 { font-size: 1.1em; margin: 16px 0 6px; }
.json { padding-left: 1.1em; }
code, pre, .json { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
.summary { color: var(--vscode-descriptionForeground); }
.tools { float: right; }
button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; padding: 2px 8px; cursor: pointer; }
.mode { font-weight: 600; color: var(--vscode-foreground); }
button.copy-curl { margin-left: 8px; font-size: 0.9em; }
.muted { color: var(--vscode-descriptionForeground); font-style: italic; }
.call { border: 1px solid var(--vscode-panel-border, #8884); border-radius: 4px; margin: 8px 0; padding: 4px 8px; }
.call-head { cursor: pointer; font-weight: 600; }
.idx { color: var(--vscode-descriptionForeground); }
.method { font-family: var(--vscode-editor-font-family); padding: 0 4px; border-radius: 3px; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
.sid { color: var(--vscode-textLink-foreground); }
.dur { color: var(--vscode-descriptionForeground); font-weight: normal; float: right; }
.url { margin: 4px 0 4px 1.2em; word-break: break-all; }
.status { font-family: var(--vscode-editor-font-family); }
.st-ok { color: var(--vscode-testing-iconPassed, #3fb950); }
.st-err { color: var(--vscode-errorForeground, #f85149); }
.st-none { color: var(--vscode-descriptionForeground); }
.call-error { color: var(--vscode-errorForeground); margin-left: 1.2em; }
.events { margin: 2px 0 2px 1.2em; padding-left: 1.2em; color: var(--vscode-descriptionForeground); }
.ev-kind, .code { font-family: var(--vscode-editor-font-family); font-weight: 600; }
.section { margin: 4px 0 4px 1.2em; }
.section > summary { cursor: pointer; color: var(--vscode-descriptionForeground); }
table.headers { border-collapse: collapse; margin: 4px 0; }
table.headers th { text-align: left; padding: 1px 12px 1px 0; font-weight: normal; color: var(--vscode-descriptionForeground); vertical-align: top; }
table.headers td { font-family: var(--vscode-editor-font-family); word-break: break-all; }
.outcome { border-left: 3px solid; padding: 2px 10px; margin: 10px 0; }
.outcome.ok { border-color: var(--vscode-testing-iconPassed, #3fb950); }
.outcome.error { border-color: var(--vscode-errorForeground, #f85149); }
.outcome .message { white-space: pre-wrap; }
a.line { color: var(--vscode-textLink-foreground); }
.json details > summary { cursor: pointer; list-style-position: outside; }
.j-children { padding-left: 1.4em; }
.j-key { color: var(--vscode-symbolIcon-propertyForeground, #9cdcfe); }
.j-str { color: var(--vscode-debugTokenExpression-string, #ce9178); white-space: pre-wrap; word-break: break-all; }
.j-num { color: var(--vscode-debugTokenExpression-number, #b5cea8); }
.j-bool, .j-null { color: var(--vscode-debugTokenExpression-boolean, #569cd6); }
.j-size { color: var(--vscode-descriptionForeground); font-size: 0.9em; margin-left: 6px; }
details[open] > summary > .j-size { display: none; }
pre.text { white-space: pre-wrap; word-break: break-all; }
.logs ul { padding-left: 1.2em; font-family: var(--vscode-editor-font-family); }
.lvl { font-weight: 600; }
`;
