// The dry-run preview: what a run did, call by call. One component for
// every web surface: the designer page and the module embedding editors use
// (through dom.ts), and the VS Code Response Preview (the extension turns
// the same tree into the webview's page with toHTML). A fix here reaches
// all three; the terminal preview is Go's (cmd/restls).
//
// The component is a pure function from a run to a small element tree
// (View): no DOM, so it runs in the extension host and in node tests as
// well as in a page. Untrusted text (a service's answer, a header, a
// script's log line) only ever becomes a string child or an attribute
// value of that tree; toDOM makes it text nodes, toHTML escapes it, in one
// function. Nothing here parses markup.
//
// The run's shape is generated from Go (../wire.gen.d.ts); the preview
// reads it through Tolerant, so a renamed or retyped Go field fails the
// type check here rather than showing nothing.
//
// Secrets: the server masks credentials before a run leaves it
// (runtime/restclient maskHeader and the session's Redactor), the one rule
// for every surface; the preview shows headers as it gets them and keeps no
// list of its own.

import type {Call, HTTPStatus, RunError, RunResult, Tolerant} from "../wire.gen"

/** View is an element of the preview: a tag, its attributes and its children. */
export interface View {
  tag: string
  attrs: Record<string, string>
  children: Array<View | string>
}

type Child = View | string | null | undefined | false | Child[]

/**
 * h builds a View. Attributes with the value false, null or undefined are
 * left out, true is an empty attribute; children may be nested arrays, and
 * null, undefined and false are skipped. Strings stay strings (text).
 */
export function h(tag: string, attrs?: Record<string, string | number | boolean | null | undefined> | null, ...children: Child[]): View {
  const a: Record<string, string> = {}
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue
    a[k] = v === true ? "" : String(v)
  }
  const out: Array<View | string> = []
  const add = (c: Child) => {
    if (c === null || c === undefined || c === false) return
    if (Array.isArray(c)) c.forEach(add)
    else out.push(c)
  }
  children.forEach(add)
  return {tag, attrs: a, children: out}
}

const escapes: Record<string, string> = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;"}

/** escapeHTML escapes text for element content and quoted attribute values. */
export function escapeHTML(s: string): string {
  return s.replace(/[&<>"'`]/g, c => escapes[c])
}

const voidTags = new Set(["br", "hr", "img", "input", "meta", "link"])
const safeName = /^[a-z][a-z0-9-]*$/

/**
 * toHTML writes a View as HTML, the one place the preview's text is
 * escaped. Tag and attribute names are the component's own; one that is not
 * a plain lower-case name throws rather than being written.
 */
export function toHTML(v: View | string): string {
  if (typeof v === "string") return escapeHTML(v)
  if (!safeName.test(v.tag)) throw new Error(`preview: bad tag name ${JSON.stringify(v.tag)}`)
  let s = "<" + v.tag
  for (const [k, val] of Object.entries(v.attrs)) {
    if (!safeName.test(k) || k.startsWith("on")) throw new Error(`preview: bad attribute name ${JSON.stringify(k)}`)
    s += val === "" ? ` ${k}` : ` ${k}="${escapeHTML(val)}"`
  }
  s += ">"
  if (voidTags.has(v.tag)) return s
  for (const c of v.children) s += toHTML(c)
  return s + `</${v.tag}>`
}

// ---- the run, as the server sends it: the generated wire types, read
// tolerantly (a missing or oddly typed field degrades the display, it
// never throws) ----

/** PreviewStatus is an HTTP status as a call or an error carries it. */
export type PreviewStatus = Tolerant<HTTPStatus> | null | undefined

/** PreviewCall is one REST call of a run (Go's runtime/restclient.Call). */
export type PreviewCall = Tolerant<Call>

/** PreviewError is the script's uncaught error (Go's runtime/dryrun.ScriptError). */
export type PreviewError = Tolerant<RunError>

/** PreviewRun is the result of a dry run (Go's runtime/dryrun.Result: `restls run --json`). */
export type PreviewRun = Tolerant<RunResult>

/** PreviewOutcome is what a surface shows: a run, one under way, or why none ran. */
export type PreviewOutcome =
  | {state: "idle", message?: string}
  | {state: "running"}
  | {state: "done", result: PreviewRun, mode?: string | null}
  | {state: "error", message: string, httpStatus?: number}

/** PreviewOptions are what the host adds around the run. */
export interface PreviewOptions {
  /** title is a heading above the run ("Response Preview: order.js"); none when empty. */
  title?: string
  /** modeLabel says how the calls were answered ("mocks from order.mock.yaml"); by default it is said from the run's mode. */
  modeLabel?: string
  /** when is the time the run finished, shown in the summary. */
  when?: Date
}

const MAX_NODES = 5000
const MAX_STRING = 10_000

function statusOf(s: PreviewStatus): {code?: number, message?: string} {
  if (typeof s === "number") return {code: s}
  if (s && typeof s === "object") {
    return {code: typeof s.code === "number" ? s.code : undefined, message: typeof s.message === "string" ? s.message : undefined}
  }
  return {}
}

// statusText is "404 Not Found": the server's message is Go's resp.Status,
// which starts with the code already; a bare reason gets the code added.
function statusText(st: {code?: number, message?: string}): string {
  const m = st.message || ""
  return m.startsWith(String(st.code)) ? m : `${st.code} ${m}`.trim()
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v)
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`
}

function ms(v: unknown): string {
  return typeof v !== "number" ? "" : v < 10 ? v.toFixed(2) + " ms" : Math.round(v) + " ms"
}

function size(n: unknown): string {
  if (typeof n !== "number" || !n) return "0 B"
  if (n < 1000) return n + " B"
  if (n < 999950) return (n / 1000).toFixed(1) + " kB"
  return (n / 1e6).toFixed(1) + " MB"
}

/**
 * previewView is the preview of outcome. Buttons carry data-action
 * ("reveal" with data-line and data-column, "copy" with data-call, the
 * call's index from 0; "expand" and "collapse"): the host handles them.
 */
export function previewView(outcome: PreviewOutcome, opts: PreviewOptions = {}): View {
  const title = opts.title ? h("h1", {class: "restls-title"}, opts.title) : null
  if (outcome.state === "running") return h("div", null, title, h("p", {class: "restls-muted"}, "Running…"))
  if (outcome.state === "idle") return h("div", null, title, h("p", {class: "restls-muted"}, outcome.message || "No run yet."))
  if (outcome.state === "error") {
    return h("div", null, title, h("div", {class: "restls-error", role: "alert"},
      h("strong", null, outcome.httpStatus ? `Not run (HTTP ${outcome.httpStatus})` : "Not run"), ": ", outcome.message))
  }
  const r = outcome.result || {}
  const calls = Array.isArray(r.calls) ? r.calls : []
  const logs = Array.isArray(r.logs) ? r.logs : []
  const mode = outcome.mode || r.mode
  const modeText = opts.modeLabel || (mode === "mock" ? "Ran with mocks: calls answered from the Mocks fixtures." :
    mode === "live" ? "Ran live: calls went to the configured services." : mode === "record" ? "Ran live and recorded the answers." : "")
  return h("div", null,
    title,
    h("div", {class: "restls-summary"},
      h("span", {class: "restls-badge " + (r.error ? "restls-bad" : "restls-ok")}, r.error ? "✗ threw" : "✓ returned"), " ",
      modeText ? h("span", {class: "restls-mode"}, modeText) : null, " ",
      h("span", {class: "restls-muted"}, plural(calls.length, "call"), opts.when ? ` · ${opts.when.toLocaleTimeString()}` : ""),
      h("span", {class: "restls-tools"},
        h("button", {type: "button", class: "restls-tool", "data-action": "expand"}, "Expand all"), " ",
        h("button", {type: "button", class: "restls-tool", "data-action": "collapse"}, "Collapse all"))),
    r.error ? errorView(r.error)
      : h("section", {class: "restls-result"}, h("h2", null, "Result"), r.result === undefined ? h("p", {class: "restls-muted"}, "undefined") : bodyView(r.result)),
    logs.length ? h("section", {class: "restls-logs"}, h("h2", null, "Console"), h("ul", null, logs.map(logView))) : null,
    h("section", {class: "restls-calls"}, h("h2", null, "Calls"),
      calls.length ? h("ol", null, calls.map((c, i) => h("li", null, callView(c || {}, i, calls.length <= 3))))
        : h("p", {class: "restls-muted"}, "The script made no REST calls.")))
}

function reveal(line: number, column: number | undefined, label: string): View {
  const col = column && column > 0 ? column : 1
  return h("button", {type: "button", class: "restls-pos", "data-action": "reveal", "data-line": line, "data-column": col}, label)
}

/** How many characters before the column a long source line keeps. */
const CARET_CONTEXT = 40

/**
 * caretView shows a source line with a caret under its column (1-based,
 * in characters as the runtime counts them: code points). The caret line
 * starts with the line's own text up to the column, hidden, so tabs, wide
 * and combining characters push the caret exactly as far as they push the
 * character; the block never wraps, or the caret would leave its line.
 */
export function caretView(line: string, column: number): View {
  const chars = Array.from(line)
  const at = Math.min(Math.max(0, column - 1), chars.length)
  // A long line starts a little before the column, so the caret is in
  // view without scrolling.
  const start = at > CARET_CONTEXT ? at - CARET_CONTEXT : 0
  const lead = start > 0 ? "…" : ""
  const shown = lead + chars.slice(start).join("")
  const before = lead + chars.slice(start, at).join("")
  return h("pre", {class: "restls-source"}, shown, "\n",
    h("span", {class: "restls-caret-pad", "aria-hidden": "true"}, before), h("span", {class: "restls-caret", "aria-label": `column ${column}`}, "^"))
}

function errorView(e: PreviewError): View {
  const st = statusOf(e.status)
  const line = typeof e.line === "number" && e.line > 0 ? e.line : 0
  const column = typeof e.column === "number" && e.column > 0 ? e.column : 1
  return h("section", {class: "restls-error", "aria-label": "Uncaught error"},
    h("h2", null, "Uncaught ", str(e.name) || "Error", e.code ? ` (${str(e.code)})` : ""),
    h("div", {class: "restls-message"}, str(e.message)),
    line ? h("div", null, "at ", reveal(line, column, `line ${line}, column ${column}`)) : null,
    typeof e.sourceLine === "string" && e.sourceLine ? caretView(e.sourceLine, column) : null,
    e.serviceId ? h("div", null, "serviceId ", h("span", {class: "restls-sid"}, str(e.serviceId))) : null,
    st.code !== undefined ? h("div", null, "status ", h("span", {class: "restls-status restls-bad"}, statusText(st))) : null,
    e.body !== undefined && e.body !== null && e.body !== "" ? [h("h3", null, "Body"), bodyView(e.body)] : null)
}

function logView(l: unknown): View {
  if (l && typeof l === "object") {
    const o = l as Record<string, unknown>
    const level = typeof o.level === "string" ? o.level : ""
    const msg = typeof o.message === "string" ? o.message : typeof o.msg === "string" ? o.msg : JSON.stringify(l)
    const line = typeof o.line === "number" && o.line > 0 ? o.line : 0
    return h("li", null, level ? h("span", {class: "restls-lvl"}, `[${level}]`) : null, level ? " " : null, msg,
      line ? [" ", reveal(line, typeof o.column === "number" ? o.column : undefined, `(line ${line})`)] : null)
  }
  return h("li", null, str(l))
}

function statusBadge(c: PreviewCall): View {
  const st = statusOf(c.status)
  if (st.code === undefined) return h("span", {class: "restls-status restls-badge restls-bad"}, c.errorCode || "no response")
  return h("span", {class: "restls-status restls-badge " + (st.code < 400 ? "restls-ok" : "restls-bad")}, statusText(st))
}

function headersView(hs: Record<string, unknown> | null | undefined): View {
  const entries = hs && typeof hs === "object" ? Object.entries(hs) : []
  if (!entries.length) return h("p", {class: "restls-muted"}, "none")
  return h("dl", {class: "restls-kv"}, entries.map(([k, v]) => [h("dt", null, k), h("dd", null, Array.isArray(v) ? v.map(str).join(", ") : str(v))]))
}

// A call is open when it failed, or when there are few (a long run shows
// its calls' summary lines first).
function callView(c: PreviewCall, i: number, open: boolean): View {
  const st = statusOf(c.status)
  const t = c.timing || {}
  const total = typeof t.totalMs === "number" ? t.totalMs : c.durationMs
  const timing = ([["DNS", t.dnsMs], ["connect", t.connectMs], ["TLS", t.tlsMs], ["first byte", t.ttfbMs], ["total", t.totalMs]] as Array<[string, unknown]>)
    .filter(([, v]) => typeof v === "number").map(([k, v]) => `${k} ${ms(v)}`).join(" · ")
  const method = typeof c.method === "string" ? c.method.toUpperCase() : "?"
  // Go's Call has no "error" or "body" member (the wire types say so):
  // errorMessage and responseBody are the only names read.
  const errText = str(c.errorMessage)
  const body = c.responseBody
  const events = Array.isArray(c.events) ? c.events : []
  const contract = Array.isArray(c.contract) ? c.contract : []
  return h("details", {class: "restls-call", open: open || st.code === undefined || st.code >= 400, "data-call": i},
    h("summary", null,
      h("span", {class: "restls-idx"}, `#${i + 1}`), h("span", {class: "restls-method"}, method), h("span", {class: "restls-sid"}, str(c.serviceId)),
      statusBadge(c), h("span", {class: "restls-muted"}, ms(total)), h("span", {class: "restls-muted"}, size(c.responseBytes)),
      contract.length ? h("span", {class: "restls-contract-mark", title: "the answer breaks the service's API description"}, `? contract (${contract.length})`) : null),
    h("div", null,
      h("div", null, h("code", {class: "restls-url"}, str(c.url))),
      timing ? h("p", {class: "restls-muted"}, (t.reused ? "reused connection · " : "") + timing) : null,
      errText ? h("p", {class: "restls-bad"}, `✗ ${c.errorCode || "error"}: ${errText}`) : null,
      events.length ? h("ul", {class: "restls-events"}, events.map(e => h("li", null,
        e && typeof e.kind === "string" ? h("span", {class: "restls-ev"}, e.kind) : null, ": ",
        e && typeof e.message === "string" ? e.message : JSON.stringify(e)))) : null,
      contract.length ? h("ul", {class: "restls-contract"}, contract.map(n => h("li", null,
        "? contract", n && typeof n.rule === "string" ? ` (${n.rule})` : "", ": ",
        n && typeof n.message === "string" ? n.message : JSON.stringify(n)))) : null,
      h("h3", null, "Request headers"), headersView(c.requestHeaders),
      c.requestBody !== undefined && c.requestBody !== null ? [h("h3", null, "Request body"), bodyView(c.requestBody)] : null,
      h("h3", null, "Response headers"), headersView(c.responseHeaders),
      h("h3", null, "Response body", c.responseBodyTruncated ? " (cut: too long)" : ""),
      body === undefined || body === null ? h("p", {class: "restls-muted"}, "no body") : bodyView(body, contentType(c.responseHeaders)),
      typeof c.curl === "string" && c.curl ? [
        h("p", null,
          h("button", {type: "button", class: "restls-copy", "data-action": "copy", "data-call": i,
            "aria-label": `Copy as cURL: call ${i + 1}, ${method} ${str(c.serviceId)}`,
            title: "Copy this call as a curl command line; credentials are $RESTLS_TOKEN_… variables"}, "Copy as cURL"),
          " ", h("span", {class: "restls-copy-status restls-muted", role: "status"})),
        h("details", null, h("summary", null, "cURL command"), h("pre", {class: "restls-curl"}, c.curl))] : null))
}

/** contentType is a header list's Content-Type, lower-case, "" when absent. */
function contentType(headers: unknown): string {
  if (!headers || typeof headers !== "object") return ""
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() === "content-type" && typeof v === "string") return v.toLowerCase()
  }
  return ""
}

/**
 * bodyView shows a body: JSON as a tree; a string holding JSON is parsed
 * first, any other string is text. With a Content-Type that is not JSON
 * (text/plain, text/html, XML...) a string is always text, as the service
 * sent it, even when it looks like JSON.
 */
export function bodyView(v: unknown, type = ""): View {
  if (typeof v === "string") {
    const t = v.trim()
    const notJSON = type !== "" && !type.includes("json")
    if (!notJSON && (t.startsWith("{") || t.startsWith("["))) {
      try {
        return h("div", {class: "restls-json"}, jsonNode(JSON.parse(t), 0, undefined, {nodes: 0}))
      } catch {
        // Not JSON: text, below.
      }
    }
    return h("pre", {class: "restls-text"}, v.length > MAX_STRING * 10 ? v.slice(0, MAX_STRING * 10) + "…" : v)
  }
  return h("div", {class: "restls-json"}, jsonNode(v, 0, undefined, {nodes: 0}))
}

/**
 * jsonView renders a JSON value as nested foldable <details>: objects and
 * arrays fold, the first two levels open; past 5000 values the rest is
 * left out, so a huge answer cannot stall the page.
 */
export function jsonView(value: unknown): View {
  return jsonNode(value, 0, undefined, {nodes: 0})
}

function jsonNode(value: unknown, depth: number, key: string | undefined, budget: {nodes: number}): View {
  budget.nodes++
  const label = key === undefined ? null : h("span", {class: "k"}, JSON.stringify(key) + ": ")
  if (budget.nodes > MAX_NODES) return h("div", null, label, h("span", {class: "restls-muted"}, "… (too large to show)"))
  if (value === undefined) return h("div", null, label, h("span", {class: "z"}, "undefined"))
  if (value === null || typeof value !== "object") {
    const cls = value === null ? "z" : typeof value === "string" ? "s" : typeof value === "number" ? "n" : "b"
    const text = typeof value === "string" && value.length > MAX_STRING ? JSON.stringify(value.slice(0, MAX_STRING)) + "…" : JSON.stringify(value)
    return h("div", null, label, h("span", {class: cls}, text === undefined ? String(value) : text))
  }
  const isArr = Array.isArray(value)
  const entries: Array<[string | undefined, unknown]> = isArr ? (value as unknown[]).map(v => [undefined, v]) : Object.entries(value as object)
  const [open, close] = isArr ? ["[", "]"] : ["{", "}"]
  if (!entries.length) return h("div", null, label, open + close)
  return h("details", {open: depth < 2},
    h("summary", null, label, open, h("span", {class: "restls-muted"}, " " + plural(entries.length, isArr ? "item" : "key"))),
    h("div", {class: "restls-children"}, entries.map(([k, v]) => jsonNode(v, depth + 1, k, budget))),
    h("div", null, close))
}

/**
 * previewCSS is the preview's style sheet. Colours are custom properties
 * with the designer's values as fallbacks, so a host can theme it (the VS
 * Code webview maps them to its theme's colours).
 */
export const previewCSS = `
.restls-preview { font: var(--restls-font, 13px/1.45 system-ui, sans-serif); color: var(--restls-fg, #1a1a1a); }
.restls-preview :focus-visible { outline: 2px solid var(--restls-focus, #0b57d0); outline-offset: 1px; }
.restls-preview code, .restls-preview pre, .restls-json, .restls-kv { font-family: var(--restls-mono, ui-monospace, SFMono-Regular, Menlo, monospace); font-size: var(--restls-mono-size, 12px); }
.restls-preview pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.restls-preview pre.restls-source { white-space: pre; word-break: normal; overflow-x: auto; }
.restls-caret-pad { visibility: hidden; }
.restls-caret { color: var(--restls-bad, #b00020); font-weight: 700; }
.restls-preview h1 { font-size: 1.3em; margin: 12px 0 4px; }
.restls-preview h2 { font-size: 13px; margin: 10px 0 4px; }
.restls-preview h3 { font-size: 12px; margin: 8px 0 2px; color: var(--restls-muted, #555); }
.restls-summary { margin: 0 0 8px; display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; }
.restls-tools { margin-left: auto; }
.restls-badge { display: inline-block; border: 1px solid currentColor; border-radius: 3px; padding: 0 4px; font-weight: 600; font-size: 12px; }
.restls-ok { color: var(--restls-ok, #0a6b2b); }
.restls-bad { color: var(--restls-bad, #b00020); }
.restls-muted { color: var(--restls-muted, #555); }
.restls-mode { font-weight: 600; }
.restls-error { border: 1px solid var(--restls-bad, #b00020); border-left-width: 4px; background: var(--restls-bad-bg, #fff5f5); padding: 6px 8px; margin: 6px 0; }
.restls-message { white-space: pre-wrap; }
.restls-pos { font: inherit; color: var(--restls-link, #0b57d0); background: none; border: none; padding: 0; text-decoration: underline; cursor: pointer; }
.restls-calls ol { list-style: none; padding: 0; margin: 0; }
.restls-call { border: 1px solid var(--restls-border, #c9c9c9); border-radius: 4px; margin: 6px 0; }
.restls-call > summary { padding: 4px 8px; cursor: pointer; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.restls-call > div { padding: 4px 8px 8px; border-top: 1px solid var(--restls-border, #e2e2e2); }
.restls-idx { color: var(--restls-muted, #555); }
.restls-method { font-weight: 700; }
.restls-sid { color: var(--restls-link, #0b57d0); }
.restls-url { word-break: break-all; }
.restls-kv { display: grid; grid-template-columns: max-content 1fr; gap: 0 12px; margin: 2px 0 6px; }
.restls-kv dt { color: var(--restls-muted, #444); }
.restls-kv dd { margin: 0; word-break: break-all; }
.restls-json .restls-children { margin-left: 1.2em; border-left: 1px dotted var(--restls-border, #aaa); padding-left: 6px; }
.restls-json summary { cursor: pointer; }
.restls-json .k { color: var(--restls-key, #6a1b9a); }
.restls-json .s { color: var(--restls-str, #a31515); white-space: pre-wrap; word-break: break-all; }
.restls-json .n { color: var(--restls-num, #0b5e49); }
.restls-json .b, .restls-json .z { color: var(--restls-lit, #0b4ea2); }
.restls-preview button.restls-copy, .restls-preview button.restls-tool { font: inherit; font-size: 12px; padding: 2px 8px; }
.restls-call p { margin: 4px 0; }
.restls-events { margin: 2px 0; padding-left: 1.2em; color: var(--restls-muted, #555); }
.restls-ev, .restls-lvl { font-weight: 600; }
.restls-contract { margin: 2px 0; padding-left: 1.2em; color: var(--restls-warn, #8a5a00); }
.restls-contract-mark { color: var(--restls-warn, #8a5a00); font-weight: 600; }
.restls-logs li { font-family: var(--restls-mono, ui-monospace, monospace); font-size: var(--restls-mono-size, 12px); }
`
