// The response preview: what a dry run did, call by call. The designer
// page and every editor that embeds this module render runs with it, so a
// fix reaches them all. Text goes through el() only (dom.js).
import {el, clear, ensureStyle} from "./dom.js"

const css = `
.restls-preview { font: 13px/1.45 system-ui, sans-serif; color: #1a1a1a; }
.restls-preview :focus-visible { outline: 2px solid #0b57d0; outline-offset: 1px; }
.restls-preview code, .restls-preview pre, .restls-json { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.restls-preview pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.restls-summary { margin: 0 0 8px; }
.restls-badge { display: inline-block; border: 1px solid currentColor; border-radius: 3px; padding: 0 4px; font-weight: 600; font-size: 12px; }
.restls-ok { color: #0a6b2b; }
.restls-bad { color: #b00020; }
.restls-muted { color: #555; }
.restls-error { border: 1px solid #b00020; border-left-width: 4px; background: #fff5f5; padding: 6px 8px; margin: 6px 0; }
.restls-error h3, .restls-result h3, .restls-calls h3, .restls-logs h3 { font-size: 13px; margin: 10px 0 4px; }
.restls-pos { font: inherit; color: #0b57d0; background: none; border: none; padding: 0; text-decoration: underline; cursor: pointer; }
.restls-calls ol { list-style: none; padding: 0; margin: 0; }
.restls-call { border: 1px solid #c9c9c9; border-radius: 4px; margin: 6px 0; }
.restls-call > summary { padding: 4px 8px; cursor: pointer; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.restls-call > div { padding: 4px 8px 8px; border-top: 1px solid #e2e2e2; }
.restls-method { font-weight: 700; }
.restls-url { word-break: break-all; }
.restls-kv { display: grid; grid-template-columns: max-content 1fr; gap: 0 12px; margin: 2px 0 6px; }
.restls-kv dt { color: #444; font-family: ui-monospace, monospace; font-size: 12px; }
.restls-kv dd { margin: 0; font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
.restls-json details { margin-left: 0; }
.restls-json .restls-children { margin-left: 1.2em; border-left: 1px dotted #aaa; padding-left: 6px; }
.restls-json summary { cursor: pointer; }
.restls-json .k { color: #6a1b9a; }
.restls-json .s { color: #a31515; }
.restls-json .n { color: #0b5e49; }
.restls-json .b, .restls-json .z { color: #0b4ea2; }
.restls-copy { font: inherit; font-size: 12px; padding: 2px 8px; }
.restls-call h4 { font-size: 12px; margin: 8px 0 2px; color: #333; }
.restls-call p { margin: 4px 0; }
.restls-logs li { font-family: ui-monospace, monospace; font-size: 12px; }
`

/**
 * renderPreview shows a run in container. outcome is what
 * RestlsEditor.run() resolves to: {state: "running"}, {state: "done",
 * result, mode}, or {state: "error", message, httpStatus}. onPosition(line,
 * column) is called when the user picks the error's script position.
 */
export function renderPreview(container, outcome, {onPosition} = {}) {
  ensureStyle(container.ownerDocument, css)
  clear(container)
  container.classList.add("restls-preview")
  container.dataset.state = outcome.state
  if (outcome.state === "running") {
    container.append(el("p", {class: "restls-muted"}, "Running…"))
    return
  }
  if (outcome.state === "idle") {
    container.append(el("p", {class: "restls-muted"}, outcome.message || "No run yet."))
    return
  }
  if (outcome.state === "error") {
    container.append(el("div", {class: "restls-error", role: "alert"},
      el("strong", null, outcome.httpStatus ? `Not run (HTTP ${outcome.httpStatus})` : "Not run"), ": ", outcome.message))
    return
  }
  const r = outcome.result || {}
  const calls = r.calls || []
  container.append(el("p", {class: "restls-summary"},
    el("span", {class: "restls-badge " + (r.error ? "restls-bad" : "restls-ok")}, r.error ? "✗ threw" : "✓ returned"), " ",
    outcome.mode === "mock" ? "Ran with mocks: calls answered from the Mocks fixtures." : "Ran live: calls went to the configured services.",
    " ", el("span", {class: "restls-muted"}, `${calls.length} call${calls.length === 1 ? "" : "s"}`)))
  if (r.error) container.append(errorBox(r.error, onPosition))
  else container.append(el("section", {class: "restls-result"}, el("h3", null, "Result"), el("div", {class: "restls-json"}, jsonTree(r.result))))
  if (r.logs && r.logs.length) {
    container.append(el("section", {class: "restls-logs"}, el("h3", null, "Console"),
      el("ul", null, r.logs.map(l => el("li", null, `[${l.level}] `, l.message, l.line ? el("span", {class: "restls-muted"}, ` (line ${l.line})`) : null)))))
  }
  if (calls.length) {
    container.append(el("section", {class: "restls-calls"}, el("h3", null, "Calls"),
      el("ol", null, calls.map((c, i) => el("li", null, callView(c, i, calls.length === 1))))))
  }
}

function errorBox(e, onPosition) {
  const where = e.line ? el("button", {type: "button", class: "restls-pos", "data-line": e.line, "data-column": e.column || 1,
    onclick: () => onPosition && onPosition(e.line, e.column || 1)}, `line ${e.line}, column ${e.column || 1}`) : null
  return el("section", {class: "restls-error", "aria-label": "Uncaught error"},
    el("h3", null, "Uncaught ", e.name || "Error", e.code ? ` (${e.code})` : ""),
    el("div", null, e.message),
    where ? el("div", null, "at ", where) : null,
    e.sourceLine ? el("pre", null, e.sourceLine + "\n" + " ".repeat(Math.max(0, (e.column || 1) - 1)) + "^") : null,
    e.status ? el("div", null, `status ${e.status.code} ${e.status.message || ""}`) : null,
    e.body != null ? el("pre", null, e.body) : null)
}

function statusBadge(c) {
  if (!c.status) return el("span", {class: "restls-badge restls-bad"}, c.errorCode || "no response")
  const ok = c.status.code < 400
  return el("span", {class: "restls-badge " + (ok ? "restls-ok" : "restls-bad")}, `${c.status.code} ${c.status.message || ""}`.trim())
}

function ms(v) { return v == null ? "" : v < 10 ? v.toFixed(2) + " ms" : Math.round(v) + " ms" }

function size(n) {
  if (!n) return "0 B"
  if (n < 1000) return n + " B"
  if (n < 999950) return (n / 1000).toFixed(1) + " kB"
  return (n / 1e6).toFixed(1) + " MB"
}

function kv(obj) {
  const entries = Object.entries(obj || {})
  if (!entries.length) return el("p", {class: "restls-muted"}, "none")
  return el("dl", {class: "restls-kv"}, entries.map(([k, v]) => [el("dt", null, k), el("dd", null, String(v))]))
}

function callView(c, i, open) {
  const total = c.timing ? c.timing.totalMs : c.durationMs
  const status = el("span", {class: "restls-copy-status restls-muted", role: "status"})
  const t = c.timing || {}
  const timing = [["DNS", t.dnsMs], ["connect", t.connectMs], ["TLS", t.tlsMs], ["first byte", t.ttfbMs], ["total", t.totalMs]]
    .filter(([, v]) => v != null).map(([k, v]) => `${k} ${ms(v)}`).join(" · ")
  return el("details", {class: "restls-call", open: open || !c.status || c.status.code >= 400, "data-call": i},
    el("summary", null,
      el("span", {class: "restls-method"}, c.method), el("span", null, c.serviceId), statusBadge(c),
      el("span", {class: "restls-muted"}, ms(total)), el("span", {class: "restls-muted"}, size(c.responseBytes))),
    el("div", null,
      el("div", null, el("code", {class: "restls-url"}, c.url)),
      timing ? el("p", {class: "restls-muted"}, (t.reused ? "reused connection · " : "") + timing) : null,
      c.errorMessage ? el("p", {class: "restls-bad"}, `✗ ${c.errorCode || "error"}: ${c.errorMessage}`) : null,
      (c.events || []).length ? el("ul", null, c.events.map(e => el("li", null, `${e.kind}: ${e.message}`))) : null,
      el("h4", null, "Request headers"), kv(c.requestHeaders),
      c.requestBody !== undefined ? [el("h4", null, "Request body"), el("div", {class: "restls-json"}, jsonTree(c.requestBody))] : null,
      el("h4", null, "Response headers"), kv(c.responseHeaders),
      el("h4", null, "Response body", c.responseBodyTruncated ? " (cut)" : ""),
      el("div", {class: "restls-json"}, typeof c.responseBody === "string" ? el("pre", null, c.responseBody) : jsonTree(c.responseBody)),
      c.curl ? el("p", null,
        el("button", {type: "button", class: "restls-copy", "aria-label": `Copy as cURL: call ${i + 1}, ${c.method} ${c.serviceId}`,
          onclick: () => copyText(c.curl).then(ok => { status.textContent = ok ? "Copied." : "Copy failed: select the command below." })},
        "Copy as cURL"), " ", status) : null,
      c.curl ? el("details", null, el("summary", null, "cURL command"), el("pre", {class: "restls-curl"}, c.curl)) : null))
}

// copyText puts text on the clipboard; the fallback serves pages where
// the Clipboard API is not allowed.
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    const ta = el("textarea", {"aria-hidden": "true", style: "position:fixed;left:-9999px"})
    ta.value = text
    document.body.append(ta)
    ta.select()
    let ok = false
    try { ok = document.execCommand("copy") } catch {}
    ta.remove()
    return ok
  }
}

/**
 * jsonTree renders a JSON value as nested foldable <details>: objects and
 * arrays fold, the first two levels open.
 */
export function jsonTree(value, depth = 0, key) {
  const label = key === undefined ? null : el("span", {class: "k"}, JSON.stringify(key) + ": ")
  if (value === undefined) return el("span", {class: "z"}, "undefined")
  if (value === null || typeof value !== "object") {
    const cls = value === null ? "z" : typeof value === "string" ? "s" : typeof value === "number" ? "n" : "b"
    return el("div", null, label, el("span", {class: cls}, JSON.stringify(value)))
  }
  const isArr = Array.isArray(value)
  const entries = isArr ? value.map((v, i) => [i, v]) : Object.entries(value)
  const [open, close] = isArr ? ["[", "]"] : ["{", "}"]
  if (!entries.length) return el("div", null, label, open + close)
  const count = isArr ? `${entries.length} item${entries.length === 1 ? "" : "s"}` : `${entries.length} key${entries.length === 1 ? "" : "s"}`
  return el("details", {open: depth < 2},
    el("summary", null, label, open, el("span", {class: "restls-muted"}, ` ${count}`)),
    el("div", {class: "restls-children"}, entries.map(([k, v]) => jsonTree(v, depth + 1, isArr ? undefined : k))),
    el("div", null, close))
}
