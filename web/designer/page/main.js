// The restls designer page, built on @restls/designer-editor like any
// other embedding editor: the Script editor, and tabs for the Preview of
// the last dry run, its Input (context.input), Mocks (fixtures answering
// the calls) and the configuration's Problems. Script, input and mocks are
// kept per script kind in localStorage.
import {EditorView} from "@codemirror/view"
import {attachRestls, scriptKinds, el} from "@restls/designer-editor"

/**
 * $ is the page's element with this id: the page has every one, so a
 * missing one is a bug in the page, said as such.
 * @param {string} id
 * @returns {HTMLElement}
 */
function $(id) {
  const e = document.getElementById(id)
  if (!e) throw new Error(`designer page: no element #${id}`)
  return e
}
const inputBox = /** @type {HTMLTextAreaElement} */ ($("input"))
const mocksBox = /** @type {HTMLTextAreaElement} */ ($("mocks"))
const kindSelect = /** @type {HTMLSelectElement} */ ($("kind"))
const runButton = /** @type {HTMLButtonElement} */ ($("run"))

/**
 * @typedef {import("@restls/designer-editor").ScriptKind} ScriptKind
 * @typedef {import("@restls/designer-editor").RestlsState} RestlsState
 * @typedef {import("@restls/designer-editor").ServerStatus} ServerStatus
 * @typedef {import("@restls/designer-editor").ConfigDiagnostic} ConfigDiagnostic
 * @typedef {{script: string, input: string, mocks: string}} Saved
 */

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

/** @type {Record<ScriptKind, string>} */
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
/** @type {Record<ScriptKind, string>} */
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
const storeKey = (/** @type {ScriptKind} */ kind) => `restls.designer.v1.${kind}`
/**
 * @param {ScriptKind} kind
 * @returns {Saved}
 */
function load(kind) {
  let saved = null
  try { saved = JSON.parse(localStorage.getItem(storeKey(kind)) || "null") } catch {}
  return {script: samples[kind], input: sampleInput[kind], mocks: "", ...(saved || {})}
}
/**
 * @param {ScriptKind} kind
 * @param {Saved} data
 */
function save(kind, data) {
  try { localStorage.setItem(storeKey(kind), JSON.stringify(data)); localStorage.setItem("restls.designer.v1.kind", kind) } catch {}
}
let kind = scriptKinds[0]
try {
  const k = localStorage.getItem("restls.designer.v1.kind")
  const known = scriptKinds.find(s => s === k)
  if (known) kind = known
} catch {}
let current = load(kind)

/** @type {ReturnType<typeof setTimeout> | undefined} */
let saveTimer
function saveSoon() {
  clearTimeout(saveTimer)
  saveTimer = setTimeout(saveNow, 250)
}
function saveNow() {
  clearTimeout(saveTimer)
  save(kind, {script: editor.view.state.doc.toString(), input: inputBox.value, mocks: mocksBox.value})
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

kindSelect.value = kind
inputBox.value = current.input
mocksBox.value = current.mocks

kindSelect.addEventListener("change", () => {
  saveNow()
  kind = /** @type {ScriptKind} */ (kindSelect.value)
  current = load(kind)
  inputBox.value = current.input
  mocksBox.value = current.mocks
  editor.setKind(kind, current.script)
  checkInput()
  saveNow()
})

// Tabs (WAI-ARIA tabs pattern: arrows move between tabs, the selected tab
// is the one in the tab order).
const tabs = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('[role="tab"]')])
/**
 * @param {HTMLElement} tab
 * @param {boolean} [focus]
 */
function selectTab(tab, focus = true) {
  for (const t of tabs) {
    const on = t === tab
    t.setAttribute("aria-selected", String(on))
    t.tabIndex = on ? 0 : -1
    $(t.getAttribute("aria-controls") || "").hidden = !on
  }
  if (focus) tab.focus()
}
for (const t of tabs) {
  t.addEventListener("click", () => selectTab(t))
  t.addEventListener("keydown", e => {
    const i = tabs.indexOf(t)
    /** @type {Record<string, number>} */
    const moves = {ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1}
    const to = moves[e.key]
    if (to === undefined) return
    e.preventDefault()
    selectTab(tabs[(to + tabs.length) % tabs.length])
  })
}
const tab = (/** @type {string} */ name) => $("tab-" + name)

// Input: context.input as JSON, checked as it is typed.
/** @returns {{ok: true, value: unknown, error?: undefined} | {ok: false, value?: undefined, error: string}} */
function parseInput() {
  const text = inputBox.value.trim()
  if (!text) return {ok: true, value: undefined}
  try { return {ok: true, value: JSON.parse(text)} } catch (e) { return {ok: false, error: e instanceof Error ? e.message : String(e)} }
}
function checkInput() {
  const p = parseInput()
  inputBox.setAttribute("aria-invalid", String(!p.ok))
  $("input-state").textContent = p.ok ? (p.value === undefined ? "No input: context.input is undefined." : "✓ Valid JSON.") : "✗ Not valid JSON: " + p.error
  $("input-state").dataset.state = p.ok ? "ok" : "error"
  return p
}
inputBox.addEventListener("input", () => { checkInput(); saveSoon() })
mocksBox.addEventListener("input", () => { showMocksState(); saveSoon() })
function showMocksState() {
  const on = mocksBox.value.trim() !== ""
  $("mocks-state").textContent = on ? "Dry runs answer calls from these fixtures; no request leaves the server." : "Empty: dry runs call the configured services."
  tab("mocks").textContent = on ? "Mocks (on)" : "Mocks"
}
$("mocks-example").addEventListener("click", () => {
  mocksBox.value = sampleMocks
  showMocksState()
  saveSoon()
  mocksBox.focus()
})
checkInput()
showMocksState()

// Dry Run: disabled with the reason when the server would refuse.
let running = false
/** @param {RestlsState} s */
function showRunState(s) {
  const run = s.run
  const allowed = !!(run && run.allowed)
  runButton.disabled = !allowed || running
  $("run-reason").textContent = run && !run.allowed ? "Dry Run is off: " + run.reason : ""
}

async function run() {
  if (runButton.disabled) return
  const input = checkInput()
  if (!input.ok) {
    selectTab(tab("input"))
    return
  }
  running = true
  showRunState(editor.state)
  runButton.setAttribute("aria-busy", "true")
  selectTab(tab("preview"), false)
  const preview = $("preview")
  editor.renderPreview(preview, {state: "running"})
  saveNow()
  try {
    const outcome = await editor.run({input: input.value, mock: mocksBox.value})
    editor.renderPreview(preview, outcome)
  } finally {
    running = false
    runButton.removeAttribute("aria-busy")
    showRunState(editor.state)
  }
}
runButton.addEventListener("click", () => run())
// Ctrl+Enter runs from anywhere on the page (the editor has its own key).
document.addEventListener("keydown", e => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !editor.view.hasFocus) {
    e.preventDefault()
    run()
  }
})

// Problems: every configuration diagnostic of every kind, once.
/**
 * @typedef {ConfigDiagnostic & {kinds: ScriptKind[]}} Problem
 * @param {ServerStatus | null} server
 * @returns {Problem[]}
 */
function problemsOf(server) {
  /** @type {Map<string, Problem>} */
  const seen = new Map()
  for (const k of (server && server.kinds) || []) {
    for (const d of k.diagnostics || []) {
      const key = [d.file, d.line, d.column, d.code, d.message].join("\u0000")
      if (!seen.has(key)) seen.set(key, {...d, kinds: []})
      seen.get(key)?.kinds.push(k.kind)
    }
  }
  return [...seen.values()]
}
const where = (/** @type {ConfigDiagnostic} */ d) => d.file ? `${d.file}${d.line ? ":" + d.line : ""}${d.column ? ":" + d.column : ""}` : "(no file)"
/** @type {Record<string, string>} */
const severityWords = {error: "Error", warning: "Warning", information: "Info", info: "Info", hint: "Hint"}
const severityWord = (/** @type {unknown} */ s) => severityWords[String(s).toLowerCase()] || String(s)
let lastProblems = ""
/** @param {ServerStatus | null} server */
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
/**
 * @param {Problem} d
 * @param {HTMLElement} button
 */
function showProblem(d, button) {
  for (const b of document.querySelectorAll("#problems .problem")) { b.removeAttribute("aria-current"); b.setAttribute("aria-expanded", "false") }
  button.setAttribute("aria-current", "true")
  button.setAttribute("aria-expanded", "true")
  // The detail opens under the problem picked.
  const box = $("problem-detail")
  button.parentElement?.append(box)
  /** @type {Array<[string, string]>} */
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
Object.assign(window, {restlsDesigner: {editor, view: editor.view, client: editor.client,
  setKind: (/** @type {ScriptKind} */ k) => { kindSelect.value = k; kindSelect.dispatchEvent(new Event("change")) },
  get status() { return editor.state.status }}})
