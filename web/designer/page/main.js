// The restls designer page, built on @restls/designer-editor like any
// other embedding editor: the Script editor, and tabs for the Preview of
// the last dry run, its Input (context.input), Mocks (fixtures answering
// the calls) and the configuration's Problems. Script, input and mocks are
// kept per script kind in localStorage.
import {EditorView} from "@codemirror/view"
import {attachRestls, scriptKinds, el} from "@restls/designer-editor"

const $ = id => document.getElementById(id)

// The access key comes in the page's address (?access_token=...): the
// --token, or the secret restls serve --http made at start and printed
// with the address. The tab keeps it (sessionStorage) and the address bar
// loses it, so it is not bookmarked, shared or shown in a screenshot.
function accessKey() {
  const params = new URLSearchParams(location.search)
  const fromURL = params.get("access_token")
  let key = fromURL || ""
  try {
    if (fromURL) sessionStorage.setItem("restls.access_token", fromURL)
    key = fromURL || sessionStorage.getItem("restls.access_token") || ""
  } catch {}
  if (fromURL) {
    params.delete("access_token")
    const q = params.toString()
    history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash)
  }
  return key
}

const samples = {
  scriptService: `// A scriptService script: type api.rest.v1. to see the calls,
// and a quote inside get( to see the configured serviceIds.
var response = api.rest.v1.get("crm-customers", {pathParams: [String(context.input.id)]}, {});
return response.body;
`,
  scriptTask: `// A scriptTask script (services from script-handler-api.xml).
var response = api.rest.v1.get("crm-sync", {}, {});
return response.status.code;
`,
  validationScript: `// A validationScript.
return true;
`,
}
const sampleInput = {scriptService: `{"id": 42}\n`, scriptTask: "", validationScript: ""}
const sampleMocks = `# Fixtures in the restls run --mock format (YAML or JSON): each call is
# answered by the first fixture matching its serviceId, method and path.
- serviceId: crm-customers
  method: GET
  path: "*"
  status: 200
  body:
    id: 42
    name: Ann Example
`

// Storage: one entry per kind, and the last kind.
const storeKey = kind => `restls.designer.v1.${kind}`
function load(kind) {
  let saved = null
  try { saved = JSON.parse(localStorage.getItem(storeKey(kind)) || "null") } catch {}
  return {script: samples[kind], input: sampleInput[kind], mocks: "", ...(saved || {})}
}
function save(kind, data) {
  try { localStorage.setItem(storeKey(kind), JSON.stringify(data)); localStorage.setItem("restls.designer.v1.kind", kind) } catch {}
}
let kind = scriptKinds[0]
try { const k = localStorage.getItem("restls.designer.v1.kind"); if (scriptKinds.includes(k)) kind = k } catch {}
let current = load(kind)

let saveTimer = 0
function saveSoon() {
  clearTimeout(saveTimer)
  saveTimer = setTimeout(saveNow, 250)
}
function saveNow() {
  clearTimeout(saveTimer)
  save(kind, {script: editor.view.state.doc.toString(), input: $("input").value, mocks: $("mocks").value})
}
addEventListener("pagehide", saveNow)

const editor = attachRestls({
  url: new URL(".", location.href).href,
  token: accessKey(),
  parent: $("editor"),
  doc: current.script,
  kind,
  label: "Script",
  onRun: () => run(),
  // Keep the text as it is typed.
  extensions: [EditorView.updateListener.of(u => { if (u.docChanged) saveSoon() })],
})

$("kind").value = kind
$("input").value = current.input
$("mocks").value = current.mocks

$("kind").addEventListener("change", e => {
  saveNow()
  kind = e.target.value
  current = load(kind)
  $("input").value = current.input
  $("mocks").value = current.mocks
  editor.setKind(kind, current.script)
  checkInput()
  saveNow()
})

// Tabs (WAI-ARIA tabs pattern: arrows move between tabs, the selected tab
// is the one in the tab order).
const tabs = [...document.querySelectorAll('[role="tab"]')]
function selectTab(tab, focus = true) {
  for (const t of tabs) {
    const on = t === tab
    t.setAttribute("aria-selected", String(on))
    t.tabIndex = on ? 0 : -1
    $(t.getAttribute("aria-controls")).hidden = !on
  }
  if (focus) tab.focus()
}
for (const t of tabs) {
  t.addEventListener("click", () => selectTab(t))
  t.addEventListener("keydown", e => {
    const i = tabs.indexOf(t)
    const to = {ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1}[e.key]
    if (to === undefined) return
    e.preventDefault()
    selectTab(tabs[(to + tabs.length) % tabs.length])
  })
}
const tab = name => $("tab-" + name)

// Input: context.input as JSON, checked as it is typed.
function parseInput() {
  const text = $("input").value.trim()
  if (!text) return {ok: true, value: undefined}
  try { return {ok: true, value: JSON.parse(text)} } catch (e) { return {ok: false, error: e.message} }
}
function checkInput() {
  const p = parseInput()
  const box = $("input")
  box.setAttribute("aria-invalid", String(!p.ok))
  $("input-state").textContent = p.ok ? (p.value === undefined ? "No input: context.input is undefined." : "✓ Valid JSON.") : "✗ Not valid JSON: " + p.error
  $("input-state").dataset.state = p.ok ? "ok" : "error"
  return p
}
$("input").addEventListener("input", () => { checkInput(); saveSoon() })
$("mocks").addEventListener("input", () => { showMocksState(); saveSoon() })
function showMocksState() {
  const on = $("mocks").value.trim() !== ""
  $("mocks-state").textContent = on ? "Dry runs answer calls from these fixtures; no request leaves the server." : "Empty: dry runs call the configured services."
  tab("mocks").textContent = on ? "Mocks (on)" : "Mocks"
}
$("mocks-example").addEventListener("click", () => {
  $("mocks").value = sampleMocks
  showMocksState()
  saveSoon()
  $("mocks").focus()
})
checkInput()
showMocksState()

// Dry Run: disabled with the reason when the server would refuse.
let running = false
function showRunState(s) {
  const run = s.run
  const allowed = !!(run && run.allowed)
  $("run").disabled = !allowed || running
  $("run-reason").textContent = run && !run.allowed ? "Dry Run is off: " + run.reason : ""
}

async function run() {
  if ($("run").disabled) return
  const input = checkInput()
  if (!input.ok) {
    selectTab(tab("input"))
    return
  }
  running = true
  showRunState(editor.state)
  $("run").setAttribute("aria-busy", "true")
  selectTab(tab("preview"), false)
  const preview = $("preview")
  editor.renderPreview(preview, {state: "running"})
  saveNow()
  try {
    const outcome = await editor.run({input: input.value, mock: $("mocks").value})
    editor.renderPreview(preview, outcome)
  } finally {
    running = false
    $("run").removeAttribute("aria-busy")
    showRunState(editor.state)
  }
}
$("run").addEventListener("click", () => run())
// Ctrl+Enter runs from anywhere on the page (the editor has its own key).
document.addEventListener("keydown", e => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !editor.view.hasFocus) {
    e.preventDefault()
    run()
  }
})

// Problems: every configuration diagnostic of every kind, once.
function problemsOf(server) {
  const seen = new Map()
  for (const k of (server && server.kinds) || []) {
    for (const d of k.diagnostics || []) {
      const key = [d.file, d.line, d.column, d.code, d.message].join("\u0000")
      if (!seen.has(key)) seen.set(key, {...d, kinds: []})
      seen.get(key).kinds.push(k.kind)
    }
  }
  return [...seen.values()]
}
const where = d => d.file ? `${d.file}${d.line ? ":" + d.line : ""}${d.column ? ":" + d.column : ""}` : "(no file)"
const severityWord = s => ({error: "Error", warning: "Warning", information: "Info", info: "Info", hint: "Hint"})[String(s).toLowerCase()] || String(s)
let lastProblems = ""
function showProblems(server) {
  const list = problemsOf(server)
  const sig = JSON.stringify(list)
  if (sig === lastProblems) return
  lastProblems = sig
  tab("problems").textContent = list.length ? `Problems (${list.length})` : "Problems"
  $("problems-summary").textContent = !server ? "Loading…" : list.length
    ? `${list.length} configuration problem${list.length === 1 ? "" : "s"}. Paths are relative to the configuration root. Select one to read it.`
    : "✓ No configuration problems."
  const ul = $("problems")
  ul.replaceChildren(...list.map(d => {
    const b = el("button", {type: "button", class: "problem", "data-severity": String(d.severity).toLowerCase(), "aria-expanded": "false"},
      el("span", {class: "sev"}, severityWord(d.severity)), " ", el("span", {class: "loc"}, where(d)), " ",
      el("span", {class: "msg"}, d.message), " ", el("code", null, d.code || ""))
    b.addEventListener("click", () => showProblem(d, b))
    return el("li", null, b)
  }))
  const box = $("problem-detail")
  box.replaceChildren()
  ul.after(box)
}
function showProblem(d, button) {
  for (const b of document.querySelectorAll("#problems .problem")) { b.removeAttribute("aria-current"); b.setAttribute("aria-expanded", "false") }
  button.setAttribute("aria-current", "true")
  button.setAttribute("aria-expanded", "true")
  // The detail opens under the problem picked.
  const box = $("problem-detail")
  button.parentElement.append(box)
  const rows = [["Where", where(d)], ["Severity", severityWord(d.severity)], ["Code", d.code || "—"], ["Script kinds", d.kinds.join(", ")]]
  box.replaceChildren(
    el("h3", null, where(d)),
    el("p", null, d.message),
    el("dl", null, rows.map(([k, v]) => [el("dt", null, k), el("dd", null, v)])),
    el("p", {class: "hint"}, "Fix it in that file; the server reloads the configuration when it changes (docs/diagnostics.md lists every code)."))
  box.scrollIntoView({block: "nearest"})
}

editor.subscribe(s => {
  $("connection").textContent = s.connection
  $("connection").dataset.state = s.connection
  $("services").textContent = s.hints ? s.hints.message : "…"
  showRunState(s)
  showProblems(s.server)
})

// For tests and the curious.
window.restlsDesigner = {editor, view: editor.view, client: editor.client, setKind: k => { $("kind").value = k; $("kind").dispatchEvent(new Event("change")) },
  get status() { return editor.state.status }}
