// The designer's debugger: breakpoints in the gutter, the line where the
// run stands stopped highlighted, and a Debug Adapter Protocol client over
// the backend's /dap (restls dap's protocol, one message per WebSocket
// text frame). The script goes as text: the server reads no path a
// client names. The backend judges each launch as a dry run (--allow-run,
// roles: mocker with fixtures, runner live) and says why it refuses.
import {StateField, StateEffect, RangeSet, RangeSetBuilder} from "@codemirror/state"
import {EditorView, Decoration, GutterMarker, gutter} from "@codemirror/view"

/**
 * @typedef {import("./index.d.ts").RestlsEditor} RestlsEditor
 * @typedef {import("./index.d.ts").DebuggerOptions} DebuggerOptions
 * @typedef {import("./index.d.ts").DebugState} DebugState
 * @typedef {import("./index.d.ts").DebugStart} DebugStart
 * @typedef {import("./index.d.ts").DebugOutcome} DebugOutcome
 * @typedef {import("./index.d.ts").RestlsDebugger} RestlsDebugger
 */

/** The subprotocol /dap speaks; offered with a bearer token's. */
export const dapProtocol = "restls.dap"

/** How many output lines a session keeps. */
const maxOutput = 1000

class BreakpointMarker extends GutterMarker {
  toDOM() {
    const s = document.createElement("span")
    s.className = "cm-restls-breakpoint"
    s.textContent = "●"
    s.setAttribute("aria-label", "breakpoint")
    return s
  }
}
const breakpointMarker = new BreakpointMarker()

/** @type {import("@codemirror/state").StateEffectType<{pos: number, on: boolean}>} */
const setBreakpoint = StateEffect.define({map: (v, m) => ({pos: m.mapPos(v.pos), on: v.on})})

const breakpointField = StateField.define({
  /** @returns {RangeSet<GutterMarker>} */
  create: () => RangeSet.empty,
  update(set, tr) {
    set = set.map(tr.changes)
    for (const e of tr.effects) {
      if (!e.is(setBreakpoint)) continue
      const pos = e.value.pos
      set = e.value.on ? set.update({add: [breakpointMarker.range(pos)]}) : set.update({filter: from => from !== pos})
    }
    return set
  },
})

/** @type {import("@codemirror/state").StateEffectType<number | null>} */
const setStopped = StateEffect.define()

const stoppedField = StateField.define({
  /** @returns {import("@codemirror/view").DecorationSet} */
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes)
    for (const e of tr.effects) {
      if (!e.is(setStopped)) continue
      const n = e.value
      if (!n || n > tr.state.doc.lines) { deco = Decoration.none; continue }
      const b = new RangeSetBuilder()
      b.add(tr.state.doc.line(n).from, tr.state.doc.line(n).from, Decoration.line({class: "cm-restls-debug-line", attributes: {"data-debug-line": "stopped"}}))
      deco = /** @type {import("@codemirror/view").DecorationSet} */ (b.finish())
    }
    return deco
  },
  provide: f => EditorView.decorations.from(f),
})

/**
 * breakpointLines are the 1-based lines that hold a breakpoint.
 * @param {EditorView} view
 * @returns {number[]}
 */
function breakpointLines(view) {
  /** @type {number[]} */
  const out = []
  const iter = view.state.field(breakpointField).iter()
  for (; iter.value; iter.next()) out.push(view.state.doc.lineAt(iter.from).number)
  return [...new Set(out)].sort((a, b) => a - b)
}

/**
 * toggle sets or clears the breakpoint of the line at pos.
 * @param {EditorView} view
 * @param {number} pos
 */
function toggle(view, pos) {
  const line = view.state.doc.lineAt(pos)
  let on = true
  view.state.field(breakpointField).between(line.from, line.from, () => { on = false })
  view.dispatch({effects: setBreakpoint.of({pos: line.from, on})})
}

const debugTheme = EditorView.baseTheme({
  ".cm-restls-breakpoints .cm-gutterElement": {cursor: "pointer", width: "1.1em", textAlign: "center"},
  ".cm-restls-breakpoint": {color: "#c4001a"},
  ".cm-restls-debug-line": {backgroundColor: "#fff1a8", outline: "1px solid #8a6d00"},
})

/**
 * attachDebugger adds breakpoints (a click in the gutter left of the line
 * numbers) and the stopped line's highlight to the editor, and debugs its
 * script over the backend's /dap. See index.d.ts.
 * @param {RestlsEditor} editor
 * @param {DebuggerOptions} [options]
 * @returns {RestlsDebugger}
 */
export function attachDebugger(editor, options = {}) {
  const view = editor.view
  const base = new URL(options.url || "./", typeof document !== "undefined" ? document.baseURI : undefined)
  if (!base.pathname.endsWith("/")) base.pathname += "/"
  const wsURL = new URL("dap", base)
  wsURL.protocol = base.protocol === "https:" ? "wss:" : "ws:"
  if (options.token) wsURL.searchParams.set("access_token", options.token)

  /** @type {Set<(s: DebugState) => void>} */
  const listeners = new Set(options.onChange ? [options.onChange] : [])
  /** @type {DebugState} */
  let state = {status: "idle", line: null, reason: "", frames: [], scopes: [], output: [], error: ""}
  /** @param {Partial<DebugState>} p */
  function set(p) {
    state = {...state, ...p}
    for (const l of listeners) { try { l(state) } catch (e) { console.error(e) } }
  }

  view.dispatch({effects: StateEffect.appendConfig.of([
    breakpointField, stoppedField, debugTheme,
    gutter({
      class: "cm-restls-breakpoints",
      markers: v => v.state.field(breakpointField),
      initialSpacer: () => breakpointMarker,
      domEventHandlers: {
        mousedown(v, line) { toggle(v, line.from); return true },
      },
    }),
    // Breakpoints change while a session runs: tell it.
    EditorView.updateListener.of(u => {
      if (u.transactions.some(t => t.effects.some(e => e.is(setBreakpoint)))) sendBreakpoints()
    }),
  ])})

  /** @type {WebSocket | null} */
  let ws = null
  let seq = 0
  let program = ""
  let configured = false
  /** @type {Map<number, {resolve: (m: any) => void}>} */
  const pending = new Map()
  /** @type {((o: DebugOutcome) => void) | null} */
  let finish = null

  /**
   * @param {string} command
   * @param {unknown} [args]
   * @returns {Promise<any>}
   */
  function request(command, args) {
    const s = ws
    if (!s || s.readyState !== WebSocket.OPEN) return Promise.resolve({success: false, message: "no debug session"})
    const id = ++seq
    s.send(JSON.stringify({seq: id, type: "request", command, ...(args === undefined ? {} : {arguments: args})}))
    return new Promise(resolve => pending.set(id, {resolve}))
  }
  function sendBreakpoints() {
    if (!configured) return
    request("setBreakpoints", {source: {path: program}, breakpoints: breakpointLines(view).map(line => ({line}))})
  }
  /** @param {string} text */
  function output(text) {
    const out = [...state.output, text]
    set({output: out.length > maxOutput ? out.slice(out.length - maxOutput) : out})
  }

  /**
   * children are the variables under a reference: a scope's, or an
   * object's or array's (restls dap expands them lazily).
   * @param {number} ref
   * @returns {Promise<import("./index.d.ts").DebugVariable[]>}
   */
  async function children(ref) {
    if (!ref) return []
    const vs = await request("variables", {variablesReference: ref})
    return vs.success ? vs.body.variables.map((/** @type {any} */ v) => ({name: v.name, value: v.value, ref: v.variablesReference || 0})) : []
  }

  async function onStopped(/** @type {string} */ reason) {
    const st = await request("stackTrace", {threadId: 1})
    /** @type {DebugState["frames"]} */
    const frames = st.success ? st.body.stackFrames.map((/** @type {any} */ f) => ({id: f.id, name: f.name, line: f.line})) : []
    const line = frames.length ? frames[0].line : null
    /** @type {DebugState["scopes"]} */
    const scopes = []
    const sc = st.success && frames.length ? await request("scopes", {frameId: frames[0].id}) : null
    for (const s of (sc && sc.success ? sc.body.scopes : [])) {
      scopes.push({name: s.name, variables: await children(s.variablesReference)})
    }
    view.dispatch({effects: setStopped.of(line)})
    if (line) {
      const pos = view.state.doc.line(Math.min(line, view.state.doc.lines)).from
      view.dispatch({effects: EditorView.scrollIntoView(pos, {y: "nearest"})})
    }
    set({status: "stopped", reason, line, frames, scopes})
  }

  /** @param {any} m */
  function onMessage(m) {
    if (m.type === "response") {
      const p = pending.get(m.request_seq)
      if (p) { pending.delete(m.request_seq); p.resolve(m) }
      return
    }
    if (m.type !== "event") return
    switch (m.event) {
      case "initialized":
        configured = true
        sendBreakpoints()
        request("configurationDone")
        set({status: "running"})
        break
      case "stopped":
        onStopped(m.body && m.body.reason || "")
        break
      case "output":
        if (m.body && typeof m.body.output === "string") output(m.body.output)
        break
      case "terminated":
        end("")
        break
    }
  }

  /** @param {string} error */
  function end(error) {
    if (state.status === "idle") return
    view.dispatch({effects: setStopped.of(null)})
    const s = ws
    ws = null
    configured = false
    if (s) {
      if (s.readyState === WebSocket.OPEN) s.send(JSON.stringify({seq: ++seq, type: "request", command: "disconnect", arguments: {terminateDebuggee: true}}))
      try { s.close() } catch {}
    }
    for (const p of pending.values()) p.resolve({success: false, message: "the debug session ended"})
    pending.clear()
    set({status: "idle", line: null, frames: [], scopes: [], error})
    const f = finish
    finish = null
    if (f) f(error ? {state: "error", message: error, output: state.output} : {state: "done", output: state.output})
  }

  /**
   * @param {"continue" | "next" | "stepIn" | "stepOut"} command
   */
  function resume(command) {
    if (state.status !== "stopped") return
    view.dispatch({effects: setStopped.of(null)})
    set({status: "running", line: null, scopes: [], frames: []})
    request(command, {threadId: 1})
  }

  return {
    get state() { return state },
    get breakpoints() { return breakpointLines(view) },
    /** @param {number} line */
    toggleBreakpoint(line) { toggle(view, view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines)).from) },
    /** @param {(s: DebugState) => void} fn */
    subscribe(fn) { listeners.add(fn); fn(state); return () => listeners.delete(fn) },
    /**
     * @param {DebugStart} [how]
     * @returns {Promise<DebugOutcome>}
     */
    async start({input, mock, live, stopOnEntry} = {}) {
      if (state.status !== "idle") return {state: "error", message: "a debug session is running: stop it first", output: state.output}
      const b = options.bearer
      const bearer = (typeof b === "function" ? await b() : b) || ""
      // The path of the kind's document (documentURI): a name, never read.
      program = `/designer/${editor.kind}/script.js`
      set({status: "starting", output: [], error: "", line: null, frames: [], scopes: []})
      return new Promise(resolve => {
        finish = resolve
        const s = bearer ? new WebSocket(wsURL.href, [dapProtocol, "restls.bearer." + bearer]) : new WebSocket(wsURL.href, [dapProtocol])
        ws = s
        s.onmessage = e => { try { onMessage(JSON.parse(String(e.data))) } catch (err) { console.error(err) } }
        s.onclose = () => { if (ws === s) end("the connection to restls closed before the run ended") }
        s.onopen = async () => {
          await request("initialize", {adapterID: "restls", clientID: "restls-designer", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path"})
          const env = editor.environment
          const launch = await request("launch", {
            program, text: view.state.doc.toString(), kind: editor.kind,
            ...(input !== undefined ? {input} : {}),
            ...(typeof mock === "string" && mock.trim() !== "" ? {fixturesText: mock} : {}),
            ...(live ? {live: true} : {}),
            ...(env ? {env} : {}),
            ...(stopOnEntry ? {stopOnEntry: true} : {}),
          })
          if (!launch.success) end(launch.message || "restls refused to debug the script")
        }
      })
    },
    continue() { resume("continue") },
    next() { resume("next") },
    stepIn() { resume("stepIn") },
    stepOut() { resume("stepOut") },
    stop() { end("") },
    /**
     * @param {string} expression
     * @returns {Promise<string>}
     */
    /**
     * @param {number} ref
     */
    expand(ref) { return state.status === "stopped" ? children(ref) : Promise.resolve([]) },
    async evaluate(expression) {
      const frame = state.frames[0]
      const r = await request("evaluate", {expression, ...(frame ? {frameId: frame.id} : {}), context: "repl"})
      if (!r.success) throw new Error(r.message || "evaluation failed")
      return r.body.result
    },
  }
}
