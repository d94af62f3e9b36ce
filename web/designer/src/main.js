// The restls designer page: a CodeMirror 6 editor talking to the restls
// language server over /lsp (one JSON-RPC message per WebSocket text
// frame), a script-kind selector, a Dry Run button (POST /v1/run) with a
// response preview, and a status line that says when there are no
// serviceId hints.
import {EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection} from "@codemirror/view"
import {EditorState, Compartment} from "@codemirror/state"
import {defaultKeymap, history, historyKeymap} from "@codemirror/commands"
import {syntaxHighlighting, defaultHighlightStyle, bracketMatching} from "@codemirror/language"
import {autocompletion, closeBrackets, completionKeymap} from "@codemirror/autocomplete"
import {lintGutter} from "@codemirror/lint"
import {javascript} from "@codemirror/lang-javascript"
import {LSPClient, LSPPlugin, serverCompletion, hoverTooltips, signatureHelp, serverDiagnostics} from "@codemirror/lsp-client"

const kinds = ["scriptService", "scriptTask", "validationScript"]
const $ = id => document.getElementById(id)

// The access key comes in the page's address (?access_token=...): the
// --token, or the secret restls serve --http made at start and printed
// with the address. It goes with every request we make and opens the
// WebSocket; without it the backend answers hints but runs nothing. The
// tab keeps it, so coming back to the bare address still works.
function accessKey() {
  const fromURL = new URLSearchParams(location.search).get("access_token")
  try {
    if (fromURL) sessionStorage.setItem("restls.access_token", fromURL)
    return fromURL || sessionStorage.getItem("restls.access_token") || ""
  } catch {
    return fromURL || ""
  }
}
const token = accessKey()
const authHeaders = token ? {Authorization: "Bearer " + token} : {}

function docURI(kind) { return `file:///designer/${kind}/script.js` }

// Transport: one JSON-RPC message per text frame. Messages sent before the
// socket opens are queued.
function webSocketTransport(url, onState) {
  const handlers = new Set()
  let ws, queue = [], open = false
  function connect() {
    ws = new WebSocket(url)
    ws.onopen = () => { open = true; for (const m of queue) ws.send(m); queue = []; onState("connected") }
    ws.onmessage = e => { for (const h of handlers) h(e.data) }
    ws.onclose = () => { open = false; onState("disconnected") }
  }
  connect()
  return {
    send(message) { if (open) ws.send(message); else queue.push(message) },
    subscribe(handler) { handlers.add(handler) },
    unsubscribe(handler) { handlers.delete(handler) },
  }
}

const wsURL = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/lsp" +
  (token ? "?access_token=" + encodeURIComponent(token) : "")

// Hover and completion documentation is Markdown rendered to HTML, and a
// service description is whatever an administrator wrote. The page's CSP
// already forbids inline script; this also drops active elements, event
// handler attributes and script URLs before the HTML reaches the DOM.
function sanitizeHTML(html) {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html")
  for (const el of doc.body.querySelectorAll("script, style, iframe, object, embed, link, meta, base, form, svg, math"))
    el.remove()
  for (const el of doc.body.querySelectorAll("*")) {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase()
      if (name.startsWith("on") || name === "style" || name === "srcdoc" ||
          ((name === "href" || name === "src" || name === "xlink:href" || name === "action") && !/^(https?:|#|$)/i.test(attr.value.trim())))
        el.removeAttribute(attr.name)
    }
  }
  return doc.body.innerHTML
}

let lastStatus = null
const client = new LSPClient({
  rootUri: "file:///designer",
  timeout: 10000,
  sanitizeHTML,
  // Each kind's document lives in its own folder, so the server picks the
  // kind's registry from the path.
  initializationOptions: {scriptKinds: Object.fromEntries(kinds.map(k => [`**/designer/${k}/**`, k]))},
  notificationHandlers: {
    "restls/status": (_client, params) => { lastStatus = params; showStatus(); return true },
  },
  extensions: [serverCompletion(), hoverTooltips(), signatureHelp(), serverDiagnostics()],
})

function setConnection(state) {
  $("connection").textContent = state
  $("connection").dataset.state = state
}

// connectServer opens /lsp; when the socket closes (the backend restarted
// or the network dropped) it tries again with a growing pause, and the
// client re-opens the document on the new session.
let attempt = 0
function connectServer() {
  let closed = false
  client.connect(webSocketTransport(wsURL, state => {
    if (state === "connected") {
      attempt = 0
      setConnection("connected")
      return
    }
    if (closed) return
    closed = true
    client.disconnect()
    const pause = Math.min(10000, 500 * 2 ** attempt++)
    setConnection("reconnecting")
    setTimeout(connectServer, pause)
  }))
}
connectServer()

const samples = {
  scriptService: `// A scriptService script: type api.rest.v1. to see the calls,
// and a quote inside get( to see the configured serviceIds.
var response = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {});
return response.body;
`,
  scriptTask: `// A scriptTask script (services from script-handler-api.xml).
var response = api.rest.v1.get("", {}, {});
return response.status.code;
`,
  validationScript: `// A validationScript.
return true;
`,
}

// Each kind keeps its own text while the user switches.
const texts = Object.assign({}, samples)
const lsp = new Compartment()
let kind = kinds[0]

const view = new EditorView({
  parent: $("editor"),
  state: EditorState.create({
    doc: texts[kind],
    extensions: [
      lineNumbers(), history(), drawSelection(), highlightActiveLine(), bracketMatching(), closeBrackets(),
      syntaxHighlighting(defaultHighlightStyle), javascript(), lintGutter(),
      autocompletion({activateOnTyping: true}),
      keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap]),
      lsp.of(LSPPlugin.create(client, docURI(kind), "javascript")),
      EditorView.theme({"&": {height: "100%"}, ".cm-scroller": {fontFamily: "ui-monospace, monospace"}}),
    ],
  }),
})

function setKind(next) {
  if (next === kind) return
  texts[kind] = view.state.doc.toString()
  kind = next
  // A new document for the new kind: close the old one on the server and
  // open the new one under the kind's folder.
  view.dispatch({effects: lsp.reconfigure([])})
  view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: texts[kind]}})
  view.dispatch({effects: lsp.reconfigure(LSPPlugin.create(client, docURI(kind), "javascript"))})
  showStatus()
}

$("kind").addEventListener("change", e => setKind(e.target.value))

// The status line: the server's restls/status for the current kind. When
// the registry failed, the notice says there are no serviceId hints; the
// calls still complete.
function showStatus() {
  const ks = lastStatus && lastStatus.kinds && lastStatus.kinds.find(k => k.kind === kind)
  const notice = $("no-hints")
  if (!ks) { $("services").textContent = "…"; return }
  $("services").textContent = ks.message
  notice.hidden = ks.hints
  notice.textContent = ks.hints ? "" : "No serviceId hints: " + ks.message.replace(/^no serviceId hints:\s*/, "") +
    ". Calls, signatures and diagnostics still work."
}

// The HTTP status is the fallback before the first notification.
fetch("v1/status", {headers: authHeaders}).then(r => r.ok ? r.json() : null).then(st => {
  if (st && !lastStatus) { lastStatus = st; showStatus() }
}).catch(() => {})

$("run").addEventListener("click", async () => {
  const out = $("preview")
  out.textContent = "running…"
  out.dataset.state = "running"
  try {
    const res = await fetch("v1/run", {
      method: "POST",
      headers: Object.assign({"Content-Type": "application/json"}, authHeaders),
      body: JSON.stringify({text: view.state.doc.toString(), kind}),
    })
    const body = await res.json().catch(() => ({error: res.statusText}))
    out.dataset.state = res.ok ? "done" : "error"
    out.textContent = res.ok ? JSON.stringify(body, null, 2) : `HTTP ${res.status}: ${body.error || res.statusText}`
  } catch (err) {
    out.dataset.state = "error"
    out.textContent = String(err)
  }
})

// For tests and the curious.
window.restlsDesigner = {view, client, setKind, get status() { return lastStatus }}
