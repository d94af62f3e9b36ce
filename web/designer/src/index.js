// @restls/designer-editor: restls in a CodeMirror 6 editor. attachRestls
// connects an EditorView (yours, or one it creates) to a restls backend
// (`restls serve --http`): completion, hover, signature help, diagnostics,
// quick fixes, go-to-definition where the server offers it, the registry's
// status, and dry runs, over /lsp with reconnection.
import {EditorState, Compartment, StateEffect, Prec} from "@codemirror/state"
import {EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, showPanel} from "@codemirror/view"
import {defaultKeymap, history, historyKeymap} from "@codemirror/commands"
import {syntaxHighlighting, defaultHighlightStyle, bracketMatching} from "@codemirror/language"
import {autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap} from "@codemirror/autocomplete"
import {lintGutter, lintKeymap} from "@codemirror/lint"
import {javascript} from "@codemirror/lang-javascript"
import {LSPClient, LSPPlugin, serverCompletion, hoverTooltips, signatureHelp, serverDiagnostics, jumpToDefinition} from "@codemirror/lsp-client"
import {el, clear, sanitizeHTML} from "./dom.js"
import {webSocketTransport, backoff} from "./transport.js"
import {quickFixes, openQuickFixes} from "./quickfix.js"
import {runErrorMarks, markRunError, showPosition} from "./runmark.js"
import {runValues, showRunValues} from "./runvalues.js"
import {renderPreview, jsonTree} from "./preview/dom.ts"
import {renderFaults} from "./faults.js"
import {testCoverage, showCoverage} from "./coverage.js"
import {renderTests} from "./tests.js"

export {renderPreview, jsonTree, markRunError, showPosition, openQuickFixes, sanitizeHTML, el, renderFaults, renderTests, showCoverage}
export {attachDebugger} from "./debugger.js"

/**
 * The types are index.d.ts's, which describes the module to its users.
 * @typedef {import("./index.d.ts").ScriptKind} ScriptKind
 * @typedef {import("./index.d.ts").RestlsOptions} RestlsOptions
 * @typedef {import("./index.d.ts").RestlsState} RestlsState
 * @typedef {import("./index.d.ts").RestlsEditor} RestlsEditor
 * @typedef {import("./index.d.ts").RunOptions} RunOptions
 * @typedef {import("./index.d.ts").RunOutcome} RunOutcome
 * @typedef {import("./index.d.ts").RunPlan} RunPlan
 * @typedef {import("./index.d.ts").MockDiagnostic} MockDiagnostic
 * @typedef {import("./index.d.ts").PasteCurlOutcome} PasteCurlOutcome
 * @typedef {import("./index.d.ts").FaultsOptions} FaultsOptions
 * @typedef {import("./index.d.ts").FaultsOutcome} FaultsOutcome
 * @typedef {import("./index.d.ts").TestRunOptions} TestRunOptions
 * @typedef {import("./index.d.ts").TestRunOutcome} TestRunOutcome
 */

/** The module's version, as in its package.json. */
export const version = "0.1.0"

/**
 * The script kinds a restls backend knows.
 * @type {readonly ScriptKind[]}
 */
export const scriptKinds = ["scriptService", "scriptTask", "validationScript"]

/**
 * The document URI a kind's script is opened under.
 * @param {ScriptKind} kind
 */
export function documentURI(kind) { return `file:///designer/${kind}/script.js` }

/**
 * attachRestls connects restls to options.view, or creates an editor in
 * options.parent. See index.d.ts for the options and what it returns.
 * @param {RestlsOptions} options
 * @returns {RestlsEditor}
 */
export function attachRestls(options) {
  const base = new URL(options.url || "./", typeof document !== "undefined" ? document.baseURI : undefined)
  if (!base.pathname.endsWith("/")) base.pathname += "/"
  const token = options.token || ""
  /** The OpenID Connect token now (--auth oidc), or "". */
  async function bearer() {
    const b = options.bearer
    return (typeof b === "function" ? await b() : b) || ""
  }
  /** @returns {Promise<Record<string, string>>} */
  async function authHeaders() {
    const t = token || await bearer()
    return t ? {Authorization: "Bearer " + t} : {}
  }
  const wsURL = new URL("lsp", base)
  wsURL.protocol = base.protocol === "https:" ? "wss:" : "ws:"
  if (token) wsURL.searchParams.set("access_token", token)
  const retry = {initial: 500, max: 10000, ...(options.reconnect || {})}

  const listeners = new Set(options.onChange ? [options.onChange] : [])
  /** @type {{connection: RestlsState["connection"], kind: ScriptKind, status: RestlsState["status"], server: RestlsState["server"]}} */
  const state = {connection: "connecting", kind: options.kind || scriptKinds[0], status: null, server: null}
  let destroyed = false, attempt = 0
  /** The project file's environment runs and hints use; "" for the server's. */
  let environment = options.environment || ""
  const kindGlobs = Object.fromEntries(scriptKinds.map(k => [`**/designer/${k}/**`, k]))
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  /** @type {ReturnType<typeof webSocketTransport> | null} */
  let transport = null

  const notice = el("div", {class: "cm-restls-notice", role: "status", "aria-live": "polite"})
  /** @returns {RestlsState} */
  function snapshot() {
    const kindStatus = (state.status && state.status.kinds || []).find(k => k.kind === state.kind) ||
      (state.server && state.server.kinds || []).find(k => k.kind === state.kind) || null
    const hints = kindStatus ? {offered: !!kindStatus.hints, message: kindStatus.message} : null
    const run = state.server ? state.server.run || {allowed: false, reason: "this server does not report whether it runs scripts"} : null
    const environments = (state.server && state.server.environments) || []
    return {connection: state.connection, kind: state.kind, hints, run, status: state.status, server: state.server,
      environments, environment: environment || (state.server && state.server.environment) || ""}
  }
  function changed() {
    const s = snapshot()
    // The notice inside the editor: nothing while all is well.
    clear(notice)
    notice.dataset.connection = s.connection
    if (s.connection === "reconnecting") notice.append(el("div", {class: "cm-restls-reconnecting"}, "⟳ Connection to restls lost; reconnecting…"))
    if (s.hints && !s.hints.offered) {
      notice.append(el("div", {class: "cm-restls-nohints"}, "⚠ No serviceId hints: ",
        s.hints.message.replace(/^no serviceId hints:\s*/, ""), ". Calls, signatures and diagnostics still work."))
    }
    notice.hidden = !notice.firstChild
    for (const l of listeners) { try { l(s) } catch (e) { console.error(e) } }
  }

  async function fetchServer() {
    try {
      const res = await fetch(new URL("v1/status", base), {headers: await authHeaders()})
      if (res.ok) { state.server = await res.json(); changed() }
    } catch {}
    return state.server
  }
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let statusTimer
  const client = new LSPClient({
    rootUri: "file:///designer",
    timeout: options.timeout || 10000,
    sanitizeHTML,
    // Each kind's document lives in its own folder: the server picks the
    // kind's registry from the path. The selector is the script's kind,
    // as a run's kind is: explicitKinds lets it win over the script's
    // "// restls-kind:" line (the server holds that rule).
    initializationOptions: {scriptKinds: kindGlobs, explicitKinds: true, ...(environment ? {environment} : {})},
    notificationHandlers: {
      "restls/status": (_c, params) => {
        state.status = /** @type {RestlsState["status"]} */ (params)
        changed()
        // The problems and the run permission come over HTTP.
        clearTimeout(statusTimer)
        statusTimer = setTimeout(fetchServer, 50)
        return true
      },
    },
    extensions: [serverCompletion(), hoverTooltips(), signatureHelp(), serverDiagnostics()],
  })

  /** @param {RestlsState["connection"]} c */
  function setConnection(c) { state.connection = c; changed() }
  // connect opens /lsp; when the socket closes (the backend restarted, the
  // network dropped, a replica stopping with 1012) it tries again after a
  // doubling pause, and the client opens the document again on the new
  // session. A bearer function is asked for a fresh token first; without
  // one the socket opens at once.
  function connect() {
    if (destroyed) return
    const b = options.bearer
    if (typeof b !== "function") return open(b || "")
    Promise.resolve().then(b).then(t => open(t || ""), e => { console.error(e); open("") })
  }
  /** @param {string} b */
  function open(b) {
    if (destroyed) return
    transport = webSocketTransport(wsURL.href, {
      bearer: b,
      onOpen: () => { attempt = 0; setConnection("connected") },
      onClose: () => {
        if (destroyed) return
        client.disconnect()
        setConnection("reconnecting")
        timer = setTimeout(connect, backoff(attempt++, retry.initial, retry.max))
      },
    })
    client.connect(transport)
  }

  const onRun = options.onRun
  const lsp = new Compartment()
  const outer = new Compartment()
  const definition = (/** @type {EditorView} */ view) => client.serverCapabilities && client.serverCapabilities.definitionProvider ? jumpToDefinition(view) : false
  const restlsExtensions = [
    lsp.of(client.plugin(documentURI(state.kind), "javascript")),
    quickFixes(), runErrorMarks(), runValues(), testCoverage(),
    showPanel.of(() => ({dom: notice, top: true})),
    // Above the default keymap, whose Mod-Enter inserts a blank line.
    Prec.high(keymap.of([
      {key: "F12", run: definition},
      ...(onRun ? [{key: "Mod-Enter", run: () => { onRun(); return true }, preventDefault: true}] : []),
    ])),
    EditorView.baseTheme({
      ".cm-restls-notice": {padding: "4px 8px", fontSize: "13px"},
      ".cm-restls-nohints": {background: "#fff4c2", color: "#3d3000", border: "1px solid #8a6d00", padding: "3px 6px"},
      ".cm-restls-reconnecting": {background: "#e8eefc", color: "#10306b", border: "1px solid #3557a5", padding: "3px 6px", marginBottom: "2px"},
    }),
  ]

  let view = options.view
  const created = !view
  if (view) {
    view.dispatch({effects: StateEffect.appendConfig.of(outer.of(restlsExtensions))})
  } else {
    view = new EditorView({
      parent: options.parent,
      state: EditorState.create({
        doc: options.doc || "",
        extensions: [
          lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), highlightActiveLine(), bracketMatching(), closeBrackets(),
          syntaxHighlighting(defaultHighlightStyle), javascript(), lintGutter(),
          autocompletion({activateOnTyping: true}),
          keymap.of([...closeBracketsKeymap, ...completionKeymap, ...lintKeymap, ...defaultKeymap, ...historyKeymap]),
          // tabindex: axe-core counts a contenteditable as focusable only with it.
          EditorView.contentAttributes.of({"aria-label": options.label || "Script", tabindex: "0"}),
          ...(options.extensions || []),
          outer.of(restlsExtensions),
        ],
      }),
    })
  }
  connect()
  fetchServer()
  changed()

  const editor = {
    view, client, created,
    get kind() { return state.kind },
    get state() { return snapshot() },
    /** setKind switches the document to kind's registry, optionally with new text. */
    /**
     * @param {ScriptKind} kind
     * @param {string} [text]
     */
    setKind(kind, text) {
      if (!scriptKinds.includes(kind)) throw new Error(`unknown script kind ${kind}: use one of ${scriptKinds.join(", ")}`)
      if (kind === state.kind && text === undefined) return
      state.kind = kind
      view.dispatch({effects: lsp.reconfigure([])})
      if (text !== undefined) view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}})
      view.dispatch({effects: lsp.reconfigure(client.plugin(documentURI(kind), "javascript"))})
      markRunError(view, null)
      showRunValues(view, null)
      showCoverage(view, null)
      changed()
    },
    get environment() { return environment },
    /**
     * setEnvironment makes hints and runs use the project file's
     * environment name ("" for the server's own).
     * @param {string} name
     */
    setEnvironment(name) {
      environment = name || ""
      // The whole settings object: the session's settings are replaced.
      if (client.connected) client.notification("workspace/didChangeConfiguration", {settings: {restls: {scriptKinds: kindGlobs, explicitKinds: true, environment}}})
      changed()
    },
    /**
     * plan asks which services a live run of the script would call.
     * @returns {Promise<RunPlan>}
     */
    async plan() {
      const res = await fetch(new URL("v1/run/plan", base), {
        method: "POST", headers: {"Content-Type": "application/json", ...(await authHeaders())},
        body: JSON.stringify(/** @type {import("./wire.gen.js").PlanBody} */ ({text: view.state.doc.toString(), kind: state.kind, ...(environment ? {environment} : {})})),
      })
      const answer = await res.json().catch(() => ({error: res.statusText}))
      if (!res.ok) throw new Error(answer.error || res.statusText)
      return answer
    },
    /**
     * checkMocks asks the server where a fixtures document breaks.
     * @param {string} text
     * @returns {Promise<MockDiagnostic[]>}
     */
    async checkMocks(text) {
      const res = await fetch(new URL("v1/mock/check", base), {
        method: "POST", headers: {"Content-Type": "application/json", ...(await authHeaders())},
        body: JSON.stringify(/** @type {import("./wire.gen.js").MockCheckBody} */ ({mock: text, kind: state.kind})),
      })
      if (!res.ok) return []
      const answer = await res.json().catch(() => ({}))
      return Array.isArray(answer.diagnostics) ? answer.diagnostics : []
    },
    /** @param {(state: RestlsState) => void} fn */
    subscribe(fn) { listeners.add(fn); fn(snapshot()); return () => listeners.delete(fn) },
    refreshStatus: fetchServer,
    quickFix() { return openQuickFixes(view) },
    /**
     * @param {number} line
     * @param {number} [column]
     */
    showPosition(line, column) { showPosition(view, line, column) },
    /** run dry-runs the script; see index.d.ts. */
    /**
     * @param {RunOptions} [options]
     * @returns {Promise<RunOutcome>}
     */
    async run({input, mock, record} = {}) {
      /** @type {import("./wire.gen.js").RunBody} */
      const body = {text: view.state.doc.toString(), kind: state.kind}
      if (input !== undefined) body.input = input
      if (environment) body.environment = environment
      const useMock = !record && (typeof mock === "string" ? mock.trim() !== "" : mock != null)
      if (useMock) body.mock = mock
      if (record) body.record = true
      /** @type {RunOutcome} */
      let outcome
      try {
        const res = await fetch(new URL("v1/run", base), {
          method: "POST", headers: {"Content-Type": "application/json", ...(await authHeaders())}, body: JSON.stringify(body),
        })
        const answer = await res.json().catch(() => ({error: res.statusText}))
        outcome = res.ok ? {state: "done", result: answer, mode: record ? "record" : useMock ? "mock" : "live"}
          : {state: "error", httpStatus: res.status, message: answer.error || res.statusText}
      } catch (err) {
        outcome = {state: "error", message: "the backend did not answer: " + (err instanceof Error ? err.message : String(err))}
      }
      markRunError(view, outcome.state === "done" ? outcome.result.error : null)
      showRunValues(view, outcome.state === "done" ? outcome.result.values : null)
      return outcome
    },
    /**
     * runTests runs the project's test cases of the script (POST /v1/test)
     * with the editor's text, and marks the lines they covered; see
     * index.d.ts.
     * @param {TestRunOptions} options
     * @returns {Promise<TestRunOutcome>}
     */
    async runTests({script}) {
      /** @type {import("./wire.gen.js").TestRunBody} */
      const body = {script, text: view.state.doc.toString()}
      if (environment) body.environment = environment
      /** @type {TestRunOutcome} */
      let outcome
      try {
        const res = await fetch(new URL("v1/test", base), {
          method: "POST", headers: {"Content-Type": "application/json", ...(await authHeaders())}, body: JSON.stringify(body),
        })
        const answer = await res.json().catch(() => ({error: res.statusText}))
        outcome = res.ok && Array.isArray(answer.tests) ? {state: "done", result: answer}
          : res.ok ? {state: "error", message: "POST /v1/test answered in a shape this editor does not know: update restls or @restls/designer-editor"}
          : {state: "error", httpStatus: res.status, message: answer.error || res.statusText}
      } catch (err) {
        outcome = {state: "error", message: "the backend did not answer: " + (err instanceof Error ? err.message : String(err))}
      }
      // The marks are of the text that ran: an edit made meanwhile drops
      // those of its lines, as later edits do.
      showCoverage(view, outcome.state === "done" ? outcome.result.coverage : null)
      return outcome
    },
    /**
     * testScripts lists the scripts the project's test files name (GET
     * /v1/test/scripts); [] when this client may not run tests.
     * @returns {Promise<import("./wire.gen.js").TestScript[]>}
     */
    async testScripts() {
      try {
        const res = await fetch(new URL("v1/test/scripts", base), {headers: await authHeaders()})
        if (!res.ok) return []
        const answer = await res.json()
        return Array.isArray(answer.scripts) ? answer.scripts.filter((/** @type {any} */ s) => s && typeof s.script === "string") : []
      } catch {
        return []
      }
    },
    /**
     * pasteCurl inserts the api.rest.v1 call of a curl command line at
     * the cursor; see index.d.ts.
     * @param {string} curl
     * @returns {Promise<PasteCurlOutcome>}
     */
    async pasteCurl(curl) {
      if (!client.connected) return {ok: false, message: "not connected to restls; try again once the connection is back"}
      // The server reads the indentation of the cursor's line: send the
      // text as it is now.
      client.sync()
      const doc = view.state.doc
      const sel = view.state.selection.main
      const line = doc.lineAt(sel.from)
      /** @type {any} */
      let answer
      try {
        answer = await client.request("workspace/executeCommand", {command: "restls.pasteCurl",
          arguments: [{uri: documentURI(state.kind), position: {line: line.number - 1, character: sel.from - line.from}, curl}]})
      } catch (err) {
        // The client rejects with the JSON-RPC error object {code, message}.
        const message = err && typeof err === "object" && "message" in err ? String(err.message) : String(err)
        return {ok: false, message}
      }
      const edits = answer && answer.edit && answer.edit.changes ? Object.values(answer.edit.changes) : []
      const text = edits.length === 1 && Array.isArray(edits[0]) && edits[0].length === 1 ? edits[0][0].newText : undefined
      if (typeof text !== "string" || typeof answer.serviceId !== "string") {
        return {ok: false, message: "restls.pasteCurl answered in a shape this editor does not know: update restls or @restls/designer-editor"}
      }
      // Where the selection is now: the text may have changed meanwhile.
      const now = view.state.doc === doc ? sel : view.state.selection.main
      view.dispatch({changes: {from: now.from, to: now.to, insert: text}, selection: {anchor: now.from + text.length},
        scrollIntoView: true, userEvent: "input.paste"})
      return {ok: true, serviceId: answer.serviceId, call: String(answer.call || ""), notes: Array.isArray(answer.notes) ? answer.notes.map(String) : []}
    },
    /**
     * exploreFaults explores the script's error paths from the fixtures
     * given (the server's restls.exploreFaults over /lsp); see index.d.ts.
     * @param {FaultsOptions} options
     * @returns {Promise<FaultsOutcome>}
     */
    async exploreFaults({mock, input, timeout}) {
      if (!client.connected) return {state: "error", message: "not connected to restls; try again once the connection is back"}
      client.sync()
      /** @type {import("./wire.gen.js").ExploreFaultsArgs} */
      const args = {uri: documentURI(state.kind), mock}
      if (input !== undefined) args.input = input
      // An exploration runs the script up to 200 times: longer than the
      // client's request timeout (options.timeout) allows. lsp-client reads
      // its timeout as it sends a request, and offers no other way.
      const lsp = /** @type {{timeout: number}} */ (/** @type {unknown} */ (client))
      const before = lsp.timeout
      lsp.timeout = Math.max(before, timeout || 120000)
      try {
        const result = await client.request("workspace/executeCommand", {command: "restls.exploreFaults", arguments: [args]}).finally(() => { lsp.timeout = before })
        if (!result || typeof result !== "object" || !Array.isArray(/** @type {any} */ (result).sites)) {
          return {state: "error", message: "restls.exploreFaults answered in a shape this editor does not know: update restls or @restls/designer-editor"}
        }
        return {state: "done", result: /** @type {import("./wire.gen.js").FaultsResult} */ (result)}
      } catch (err) {
        const message = err && typeof err === "object" && "message" in err ? String(err.message) : String(err)
        return {state: "error", message}
      }
    },
    /** renderPreview shows a run in container; the error's position moves this editor's cursor. */
    /**
     * @param {HTMLElement} container
     * @param {RunOutcome} outcome
     */
    renderPreview(container, outcome) {
      renderPreview(container, outcome, {onPosition: (line, column) => showPosition(view, line, column)})
    },
    destroy() {
      destroyed = true
      clearTimeout(timer)
      clearTimeout(statusTimer)
      view.dispatch({effects: outer.reconfigure([])})
      if (transport) transport.close()
      client.disconnect()
      if (created) view.destroy()
      listeners.clear()
    },
  }
  return editor
}

export {LSPPlugin}

