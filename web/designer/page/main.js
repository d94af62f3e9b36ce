// The restls designer page, built on @restls/designer-editor like any
// other embedding editor: the Script editor, and tabs for the Preview of
// the last dry run, its Input (context.input), Mocks (fixtures answering
// the calls) and the configuration's Problems. Script, input and mocks are
// kept per script kind in localStorage. Dry runs use the mocks when the
// Mocks tab holds any (until the user says otherwise); a live run, and a
// Record (a live run whose answers become the Mocks), first show which
// services they will call, in which environment and with which kind of
// credentials, once per session and environment.
import {EditorView, keymap, lineNumbers} from "@codemirror/view"
import {EditorState, Prec} from "@codemirror/state"
import {history as editHistory, defaultKeymap, historyKeymap} from "@codemirror/commands"
import {syntaxHighlighting, defaultHighlightStyle} from "@codemirror/language"
import {linter, lintGutter, lintKeymap} from "@codemirror/lint"
import {yaml} from "@codemirror/lang-yaml"
import {attachRestls, scriptKinds, el} from "@restls/designer-editor"
import {faultsTab} from "./faults.js"
import {testsTab} from "./tests.js"
import {setupDebugger} from "./debug.js"

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
const kindSelect = /** @type {HTMLSelectElement} */ ($("kind"))
const runButton = /** @type {HTMLButtonElement} */ ($("run"))
const recordButton = /** @type {HTMLButtonElement} */ ($("record"))
const useMocksBox = /** @type {HTMLInputElement} */ ($("use-mocks"))
const envSelect = /** @type {HTMLSelectElement} */ ($("env"))
const liveDialog = /** @type {HTMLDialogElement} */ ($("live-confirm"))

/**
 * @typedef {import("@restls/designer-editor").ScriptKind} ScriptKind
 * @typedef {import("@restls/designer-editor").RestlsState} RestlsState
 * @typedef {import("@restls/designer-editor").ServerStatus} ServerStatus
 * @typedef {import("@restls/designer-editor").ConfigDiagnostic} ConfigDiagnostic
 * @typedef {import("@restls/designer-editor").RunPlan} RunPlan
 * @typedef {import("@codemirror/lint").Diagnostic} LintDiagnostic
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
  save(kind, {script: editor.view.state.doc.toString(), input: inputBox.value, mocks: mocksText()})
}
addEventListener("pagehide", saveNow)

// The environment picked last, if the server still offers it.
const envKey = "restls.designer.v1.environment"
let savedEnv = ""
try { savedEnv = localStorage.getItem(envKey) || "" } catch {}

const token = accessKey()
const editor = attachRestls({
  url: new URL(".", location.href).href,
  token,
  parent: $("editor"),
  doc: current.script,
  kind,
  label: "Script",
  environment: savedEnv,
  onRun: () => run(),
  // Keep the text as it is typed; long lines wrap.
  extensions: [EditorView.lineWrapping, EditorView.updateListener.of(u => { if (u.docChanged) saveSoon() })],
})

// Mocks: a YAML editor, checked by the server as a run would parse it.
/**
 * @param {import("@codemirror/view").EditorView} view
 * @returns {Promise<LintDiagnostic[]>}
 */
async function mockLint(view) {
  const text = view.state.doc.toString()
  const found = await editor.checkMocks(text)
  // The text changed while the server answered: the next lint says.
  if (view.state.doc.toString() !== text) return []
  const doc = view.state.doc
  mocksProblems = found.filter(d => d.severity === "error").length
  showMocksState()
  return found.map(d => {
    const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines))
    const from = line.from + Math.min(Math.max(d.column - 1, 0), line.length)
    return {from, to: Math.max(from, line.to), severity: d.severity === "warning" ? "warning" : "error",
      message: d.message, source: d.code ? "restls " + d.code : "restls"}
  })
}
let mocksProblems = 0
/** What the last recording put in the Mocks, shown until they are edited. */
let recordedNote = ""
let keepNote = false
const mocksView = new EditorView({
  parent: $("mocks"),
  state: EditorState.create({
    doc: current.mocks,
    extensions: [
      lineNumbers(), editHistory(), yaml(), syntaxHighlighting(defaultHighlightStyle), EditorView.lineWrapping,
      lintGutter(), linter(mockLint, {delay: 300}),
      Prec.high(keymap.of([{key: "Mod-Enter", run: () => { run(); return true }, preventDefault: true}])),
      keymap.of([...lintKeymap, ...defaultKeymap, ...historyKeymap]),
      EditorView.contentAttributes.of({"aria-label": "Mocks: fixtures in YAML or JSON", "aria-describedby": "mocks-state mocks-help", tabindex: "0"}),
      EditorView.updateListener.of(u => {
        if (!u.docChanged) return
        // What a recording says stays until the user edits the mocks.
        if (keepNote) keepNote = false
        else recordedNote = ""
        showMocksState()
        saveSoon()
      }),
    ],
  }),
})
function mocksText() { return mocksView.state.doc.toString() }
/** @param {string} text */
function setMocks(text) {
  mocksView.dispatch({changes: {from: 0, to: mocksView.state.doc.length, insert: text}})
}

kindSelect.value = kind
inputBox.value = current.input

kindSelect.addEventListener("change", () => {
  saveNow()
  kind = /** @type {ScriptKind} */ (kindSelect.value)
  current = load(kind)
  inputBox.value = current.input
  setMocks(current.mocks)
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

// Use mocks: until the user decides, or the first run, it follows
// whether the Mocks tab holds fixtures; so the first dry run of a session
// is with mocks when there are any.
let mocksChosen = false
useMocksBox.addEventListener("change", () => { mocksChosen = true; showMocksState() })
function showMocksState() {
  const has = mocksText().trim() !== ""
  if (!mocksChosen) useMocksBox.checked = has
  useMocksBox.disabled = !has
  if (!has) useMocksBox.checked = false
  const on = has && useMocksBox.checked
  const state = $("mocks-state")
  state.dataset.state = recordedNote ? "recorded" : mocksProblems ? "warning" : ""
  state.textContent = recordedNote || (!has ? "Empty: dry runs call the configured services." :
    mocksProblems ? `✗ ${mocksProblems} problem${mocksProblems === 1 ? "" : "s"} in the fixtures: a run with them would be refused (see the marks in the gutter).` :
    on ? "Dry runs answer calls from these fixtures; no request leaves the server." : "Use mocks is off: dry runs call the configured services.")
  tab("mocks").textContent = on ? "Mocks (on)" : "Mocks"
  showRunMode()
}
$("mocks-example").addEventListener("click", () => {
  setMocks(sampleMocks)
  mocksView.focus()
})
checkInput()

// Dry Run and Record: disabled with the reason when the server would refuse.
let running = false
/** @param {RestlsState} s */
function showRunState(s) {
  const run = s.run
  const allowed = !!(run && run.allowed)
  runButton.disabled = !allowed || running
  recordButton.disabled = !allowed || running
  $("run-reason").textContent = run && !run.allowed ? "Dry Run is off: " + run.reason : ""
}
const envName = () => editor.state.environment
function showRunMode() {
  const env = envName()
  $("run-mode").textContent = useMocksBox.checked ? "with mocks" : env ? `live in ${env}` : "live"
}

// A live run first says what it will call: once per session and
// environment (a run that calls nothing needs no confirmation).
/** @type {Set<string>} */
const confirmed = new Set()
/** @type {Record<string, string>} The kinds of credential Go's planServiceJSON.Credentials names. */
const credentialWords = {none: "no credentials", basic: "basic credentials (login and password from the configuration)", oAuth: "an OAuth token (fetched with the configured client)"}
/**
 * @param {boolean} recording
 * @returns {Promise<boolean>}
 */
async function confirmLive(recording) {
  const env = envName()
  if (confirmed.has(env)) return true
  /** @type {RunPlan} */
  let plan
  try {
    plan = await editor.plan()
  } catch (e) {
    editor.renderPreview($("preview"), {state: "error", message: "could not ask which services the run calls: " + (e instanceof Error ? e.message : String(e))})
    return false
  }
  // The server sends [] for none; the wire type says a nil list is null.
  const services = plan.services || []
  if (services.length === 0 && plan.dynamic === 0) return true
  $("live-title").textContent = recording ? "Record: run live and keep the answers as mocks?" : "Run live?"
  $("live-env").replaceChildren("Environment: ", el("strong", null, env || "the server's configuration (no project environments)"),
    ". These services will be called for real:")
  $("live-services").replaceChildren(...services.map(s => el("li", null,
    el("strong", null, s.serviceId), s.calls > 1 ? ` (${s.calls} calls)` : "", " ",
    s.configured ? [el("code", null, s.url || ""), " — ", el("span", {class: "cred-" + s.credentials}, credentialWords[s.credentials] || s.credentials)]
      : el("span", {class: "unknown"}, "not configured: the call fails without a request"))))
  $("live-note").textContent = plan.dynamic ? `${plan.dynamic} more call${plan.dynamic === 1 ? "" : "s"} name${plan.dynamic === 1 ? "s" : ""} the serviceId at run time: not listed.` : ""
  ;/** @type {HTMLButtonElement} */ ($("live-go")).textContent = recording ? "Record" : "Run live"
  liveDialog.returnValue = ""
  liveDialog.showModal()
  const answer = await new Promise(resolve => liveDialog.addEventListener("close", () => resolve(liveDialog.returnValue), {once: true}))
  if (answer !== "run") return false
  confirmed.add(env)
  return true
}

/** @param {{record?: boolean}} [how] */
async function run(how = {}) {
  if (runButton.disabled) return
  const input = checkInput()
  if (!input.ok) {
    selectTab(tab("input"))
    return
  }
  const record = !!how.record
  const withMocks = !record && useMocksBox.checked && mocksText().trim() !== ""
  running = true
  showRunState(editor.state)
  const button = record ? recordButton : runButton
  button.setAttribute("aria-busy", "true")
  const preview = $("preview")
  try {
    if (!withMocks && !await confirmLive(record)) return
    // The first run decides: from now on the box says what the user set.
    mocksChosen = true
    selectTab(tab("preview"), false)
    editor.renderPreview(preview, {state: "running"})
    saveNow()
    const outcome = await editor.run({input: input.value, mock: withMocks ? mocksText() : undefined, record})
    editor.renderPreview(preview, outcome)
    if (record && outcome.state === "done") recorded(outcome.result)
  } finally {
    running = false
    button.removeAttribute("aria-busy")
    showRunState(editor.state)
  }
}
/**
 * recorded puts a recording's fixtures in the Mocks tab (Ctrl+Z there
 * brings the old ones back) and turns Use mocks on.
 * @param {import("@restls/designer-editor").RunResult} result
 */
function recorded(result) {
  const notes = result.fixtureNotes || []
  if (typeof result.fixtures !== "string") {
    recordedNote = "Nothing recorded: " + (notes.join("; ") || "the server sent no fixtures")
    showMocksState()
    return
  }
  const n = (result.fixtures.match(/^- serviceId:/gm) || []).length
  const env = envName()
  recordedNote = `● Recorded ${n} fixture${n === 1 ? "" : "s"} from a live run${env ? " in " + env : ""}; Use mocks is on (Ctrl+Z in the editor brings the previous mocks back).` +
    (notes.length ? " " + notes.join("; ") + "." : "")
  mocksChosen = true
  useMocksBox.checked = true
  keepNote = true
  setMocks(result.fixtures)
  showMocksState()
}
runButton.addEventListener("click", () => run())

// Debug: as a dry run answers its calls (the Mocks when Use mocks is on,
// else live after the same confirmation), stopping at the breakpoints.
const debug = setupDebugger({editor, url: new URL(".", location.href).href, token, $,
  showTab: () => selectTab(tab("debug"), false),
  async prepare() {
    const input = checkInput()
    if (!input.ok) {
      selectTab(tab("input"))
      return null
    }
    const withMocks = useMocksBox.checked && mocksText().trim() !== ""
    if (!withMocks && !await confirmLive(false)) return null
    mocksChosen = true
    saveNow()
    return {input: input.value, ...(withMocks ? {mock: mocksText()} : {live: true})}
  }})
recordButton.addEventListener("click", () => run({record: true}))

// Paste curl: a curl command line becomes the api.rest.v1 call at the
// cursor (the server's restls.pasteCurl, the engine of restls curl). The
// dialog starts from the clipboard when the browser lets the page read
// it and it holds a curl command; a server error (a URL no service
// matches: which base url to configure) stays in the dialog to fix.
const curlDialog = /** @type {HTMLDialogElement} */ ($("curl-dialog"))
const curlText = /** @type {HTMLTextAreaElement} */ ($("curl-text"))
$("paste-curl").addEventListener("click", async () => {
  $("curl-error").textContent = ""
  curlDialog.returnValue = ""
  curlDialog.showModal()
  curlText.focus()
  try {
    const clip = await navigator.clipboard.readText()
    if (/^\s*(\S*\/)?curl(\.exe)?\s/.test(clip) && !curlText.value.trim()) curlText.value = clip
    curlText.select()
  } catch {}
})
$("curl-form").addEventListener("submit", async e => {
  const submitter = /** @type {SubmitEvent} */ (e).submitter
  if (!submitter || /** @type {HTMLButtonElement} */ (submitter).value !== "insert") return
  e.preventDefault()
  const text = curlText.value
  if (!text.trim()) {
    $("curl-error").textContent = "Paste a curl command line first."
    return
  }
  const button = /** @type {HTMLButtonElement} */ ($("curl-insert"))
  button.disabled = true
  $("curl-error").textContent = ""
  try {
    const outcome = await editor.pasteCurl(text)
    if (!outcome.ok) {
      $("curl-error").textContent = outcome.message
      return
    }
    curlText.value = ""
    curlDialog.close("insert")
    editor.view.focus()
  } finally {
    button.disabled = false
  }
})

// Environment: the current one is always shown; a switch when the
// project file has several.
envSelect.addEventListener("change", () => {
  editor.setEnvironment(envSelect.value)
  try { localStorage.setItem(envKey, envSelect.value) } catch {}
  showRunMode()
})
let lastEnvs = ""
/** @param {RestlsState} s */
function showEnvironment(s) {
  if (savedEnv && s.server && !s.environments.includes(savedEnv)) {
    // Not offered any more: the server's default.
    savedEnv = ""
    editor.setEnvironment("")
    return
  }
  const cur = $("env-current")
  cur.textContent = s.environment || "default"
  cur.dataset.state = s.environment ? "named" : "none"
  cur.title = s.environment ? "The project file's environment whose services a live run calls" : "The project file defines no environments: runs use the server's configuration"
  const sig = s.environments.join("\u0000")
  if (sig !== lastEnvs) {
    lastEnvs = sig
    envSelect.replaceChildren(...s.environments.map(e => el("option", {value: e}, e)))
  }
  envSelect.value = s.environment
  const several = s.environments.length > 1
  $("env-switch").hidden = !several
  cur.hidden = several
  showRunMode()
}
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
const isNote = (/** @type {unknown} */ s) => ["information", "info", "hint"].includes(String(s).toLowerCase())
let lastProblems = ""
/** @param {ServerStatus | null} server */
function showProblems(server) {
  const list = problemsOf(server)
  // Whether the server answered is part of it: an empty list before and
  // after the first answer says two different things.
  const sig = JSON.stringify([!!server, list])
  if (sig === lastProblems) return
  lastProblems = sig
  // Notes (information, hints) are listed but are no problems: a
  // configuration with notes only still has "no configuration problems".
  const problems = list.filter(d => !isNote(d.severity)).length
  const notes = list.length - problems
  const noteWords = `${notes} note${notes === 1 ? "" : "s"}`
  tab("problems").textContent = problems ? `Problems (${problems})` : "Problems"
  $("problems-summary").textContent = !server ? "Loading…"
    : problems
      ? `${problems} configuration problem${problems === 1 ? "" : "s"}${notes ? " and " + noteWords : ""}. Paths are relative to the configuration root. Select one to read it.`
      : notes
        ? `✓ No configuration problems; ${noteWords}. Select one to read it.`
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
  showEnvironment(s)
})
showMocksState()
faultsTab({editor, mocks: mocksText, input: checkInput, showInput: () => selectTab(tab("input")),
  button: /** @type {HTMLButtonElement} */ ($("faults-explore")), reason: $("faults-reason"), table: $("faults"), tab: tab("faults")})
testsTab({editor, path: /** @type {HTMLInputElement} */ ($("tests-script")), choices: /** @type {HTMLDataListElement} */ ($("tests-scripts")),
  button: /** @type {HTMLButtonElement} */ ($("tests-run")), reason: $("tests-reason"), list: $("tests"), tab: tab("tests")})

// For tests and the curious.
Object.assign(window, {restlsDesigner: {editor, view: editor.view, client: editor.client, mocksView, debug,
  get mocks() { return mocksText() }, setMocks,
  setKind: (/** @type {ScriptKind} */ k) => { kindSelect.value = k; kindSelect.dispatchEvent(new Event("change")) },
  get status() { return editor.state.status }}})
