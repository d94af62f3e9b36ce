// Quick fixes: the language server's code actions at the cursor, offered
// with a lightbulb in the gutter and Ctrl+. (Cmd+. on a Mac), applied as
// edits. @codemirror/lsp-client has no code actions, so they live here.
import {StateField, StateEffect} from "@codemirror/state"
import {EditorView, ViewPlugin, gutter, GutterMarker, showTooltip, keymap} from "@codemirror/view"
import {forEachDiagnostic} from "@codemirror/lint"
import {LSPPlugin} from "@codemirror/lsp-client"
import {el} from "./dom.js"

/**
 * The parts of an LSP code action this module reads.
 * @typedef {{range: {start: {line: number, character: number}, end: {line: number, character: number}}, newText: string}} TextEdit
 * @typedef {{
 *   title: string, isPreferred?: boolean, command?: unknown,
 *   edit?: {changes?: Record<string, TextEdit[]>, documentChanges?: Array<{textDocument?: {uri: string}, edits: TextEdit[]}>}
 * }} CodeAction
 * @typedef {{pos: number, line: number, actions: CodeAction[]}} Found
 * @typedef {import("@codemirror/view").EditorView} View
 */

// setActions records the actions found at a position: {pos, line, actions}.
/** @type {import("@codemirror/state").StateEffectType<Found | null>} */
const setActions = StateEffect.define()
/** @type {import("@codemirror/state").StateEffectType<boolean>} */
const setMenu = StateEffect.define()

const actionsField = StateField.define({
  /** @returns {Found | null} */
  create: () => null,
  update(value, tr) {
    if (tr.docChanged) value = null // computed for another text
    for (const e of tr.effects) if (e.is(setActions)) value = e.value
    return value
  },
})

const menuField = StateField.define({
  /** @returns {boolean} */
  create: () => false,
  update(open, tr) {
    if (tr.docChanged || tr.selection) open = false
    for (const e of tr.effects) if (e.is(setMenu)) open = e.value
    return open
  },
  provide: f => showTooltip.compute([f, actionsField], state => {
    const a = state.field(actionsField)
    if (!state.field(f) || !a || !a.actions.length) return null
    return {pos: a.pos, above: false, create: view => menu(view, a.actions)}
  }),
})

// diagnosticNear reports whether a lint diagnostic touches the cursor's
// line: only then is the server asked (quick fixes belong to diagnostics).
/** @param {import("@codemirror/state").EditorState} state */
function diagnosticNear(state) {
  const line = state.doc.lineAt(state.selection.main.head)
  let found = false
  forEachDiagnostic(state, (d, from, to) => { if (from <= line.to && to >= line.from) found = true })
  return found
}

// fetchActions asks the server for the quick fixes at the selection.
/**
 * @param {View} view
 * @returns {Promise<Found | null>}
 */
async function fetchActions(view) {
  const plugin = LSPPlugin.get(view)
  if (!plugin || !plugin.client.connected) return null
  const {state} = view
  const sel = state.selection.main
  plugin.client.sync()
  /** @type {CodeAction[] | null} */
  let actions
  try {
    actions = await plugin.client.request("textDocument/codeAction", {
      textDocument: {uri: plugin.uri},
      range: {start: plugin.toPosition(sel.from), end: plugin.toPosition(sel.to)},
      context: {diagnostics: [], only: ["quickfix"]},
    })
  } catch {
    return null // a dropped socket or a timeout: no lightbulb, nothing to report
  }
  if (view.state.doc !== state.doc) return null
  const usable = (actions || []).filter(a => a && (a.edit || a.command))
  usable.sort((a, b) => (b.isPreferred ? 1 : 0) - (a.isPreferred ? 1 : 0))
  const value = {pos: sel.head, line: state.doc.lineAt(sel.head).from, actions: usable}
  view.dispatch({effects: setActions.of(value)})
  return value
}

const fetcher = ViewPlugin.fromClass(class {
  /** @param {View} view */
  constructor(view) {
    this.view = view
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined
  }
  /** @param {import("@codemirror/view").ViewUpdate} u */
  update(u) {
    if (!u.selectionSet && !u.docChanged && u.transactions.every(tr => tr.effects.length === 0)) return
    clearTimeout(this.timer)
    const a = u.state.field(actionsField)
    if (a && a.line === u.state.doc.lineAt(u.state.selection.main.head).from && !u.docChanged) return
    if (!diagnosticNear(u.state)) {
      if (a) queueMicrotask(() => this.view.dispatch({effects: setActions.of(null)}))
      return
    }
    this.timer = setTimeout(() => fetchActions(this.view), 250)
  }
  destroy() { clearTimeout(this.timer) }
})

/**
 * openQuickFixes shows the quick fixes at the cursor (fetching them first
 * when needed); the command behind Ctrl+. and the lightbulb.
 * @param {View} view
 */
export function openQuickFixes(view) {
  const a = view.state.field(actionsField, false)
  const here = view.state.doc.lineAt(view.state.selection.main.head).from
  if (a && a.line === here && a.actions.length) {
    view.dispatch({effects: setMenu.of(true)})
    return true
  }
  if (!LSPPlugin.get(view)) return false
  fetchActions(view).then(v => {
    if (v && v.actions.length) view.dispatch({effects: setMenu.of(true)})
  })
  return true
}

// applyAction applies a code action's edit to this document, positions
// mapped through what changed since the server saw it.
/**
 * @param {View} view
 * @param {CodeAction} action
 */
function applyAction(view, action) {
  const plugin = LSPPlugin.get(view)
  if (!plugin) return
  if (action.edit) {
    let edits = (action.edit.changes && action.edit.changes[plugin.uri]) || []
    for (const dc of action.edit.documentChanges || [])
      if (dc.textDocument && dc.textDocument.uri === plugin.uri) edits = edits.concat(dc.edits)
    const changes = edits.map(e => ({
      from: plugin.unsyncedChanges.mapPos(plugin.fromPosition(e.range.start, plugin.syncedDoc), 1),
      to: plugin.unsyncedChanges.mapPos(plugin.fromPosition(e.range.end, plugin.syncedDoc), -1),
      insert: e.newText,
    }))
    if (changes.length) view.dispatch({changes, userEvent: "input.quickfix", scrollIntoView: true})
  }
  if (action.command) plugin.client.request("workspace/executeCommand", action.command).catch(() => {})
  view.dispatch({effects: setMenu.of(false)})
  view.focus()
}

// menu is the quick-fix list: buttons in a menu, arrow keys move, Enter
// applies, Escape goes back to the editor.
/**
 * @param {View} view
 * @param {CodeAction[]} actions
 */
function menu(view, actions) {
  const items = actions.map((a, i) => el("button", {
    type: "button", role: "menuitem", class: "cm-restls-fix", tabindex: i === 0 ? "0" : "-1",
    onclick: () => applyAction(view, a),
  }, a.isPreferred ? "★ " : "", a.title))
  const dom = el("div", {class: "cm-restls-fixes", role: "menu", "aria-label": "Quick fixes"}, items)
  dom.addEventListener("keydown", e => {
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement))
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault()
      const next = items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]
      next.focus()
    } else if (e.key === "Escape") {
      e.preventDefault()
      view.dispatch({effects: setMenu.of(false)})
      view.focus()
    }
  })
  return {dom, mount() { items[0].focus() }}
}

// bulbIcon draws the lightbulb (not an emoji: not every system has a font
// for it).
function bulbIcon() {
  const ns = "http://www.w3.org/2000/svg"
  const svg = document.createElementNS(ns, "svg")
  svg.setAttribute("viewBox", "0 0 16 16")
  svg.setAttribute("width", "14")
  svg.setAttribute("height", "14")
  svg.setAttribute("aria-hidden", "true")
  /** @type {Array<[string, Record<string, string>]>} */
  const shapes = [
    ["path", {d: "M8 1.5a4.5 4.5 0 0 0-2.6 8.2c.5.4.8.9.8 1.5V12h3.6v-.8c0-.6.3-1.1.8-1.5A4.5 4.5 0 0 0 8 1.5z", fill: "#f2c200", stroke: "#7a5c00", "stroke-width": "1"}],
    ["rect", {x: "6.2", y: "12.8", width: "3.6", height: "1.6", rx: ".5", fill: "#7a5c00"}],
  ]
  for (const [tag, attrs] of shapes) {
    const e = document.createElementNS(ns, tag)
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
    svg.append(e)
  }
  return svg
}

class Lightbulb extends GutterMarker {
  /** @param {number} count */
  constructor(count) { super(); this.count = count }
  /** @param {Lightbulb} other */
  eq(other) { return other.count === this.count }
  /** @param {View} view */
  toDOM(view) {
    return el("button", {type: "button", class: "cm-restls-lightbulb", title: "Quick fixes (Ctrl+.)",
      "aria-label": `${this.count} quick fix${this.count === 1 ? "" : "es"} available (Ctrl+.)`,
      onmousedown: (/** @type {Event} */ e) => e.preventDefault(),
      onclick: () => openQuickFixes(view)}, bulbIcon())
  }
}

const lightbulbGutter = gutter({
  class: "cm-restls-fix-gutter",
  lineMarker(view, line) {
    const a = view.state.field(actionsField)
    return a && a.line === line.from && a.actions.length ? new Lightbulb(a.actions.length) : null
  },
  lineMarkerChange: u => u.startState.field(actionsField) !== u.state.field(actionsField),
  initialSpacer: () => new Lightbulb(1),
})

const theme = EditorView.baseTheme({
  ".cm-restls-fix-gutter .cm-gutterElement": {padding: "0 2px"},
  ".cm-restls-lightbulb": {border: "none", background: "none", padding: 0, cursor: "pointer", font: "inherit", lineHeight: "inherit"},
  ".cm-restls-lightbulb:focus-visible": {outline: "2px solid #0b57d0"},
  ".cm-restls-fixes": {display: "flex", flexDirection: "column", padding: "2px"},
  ".cm-restls-fix": {textAlign: "left", border: "none", background: "none", padding: "3px 8px", font: "inherit", color: "inherit", cursor: "pointer"},
  ".cm-restls-fix:hover, .cm-restls-fix:focus": {background: "#dbe7fb"},
  ".cm-restls-fix:focus-visible": {outline: "2px solid #0b57d0"},
})

/** quickFixes is the extension: lightbulb, menu and Ctrl+. / Mod-. */
export function quickFixes() {
  return [actionsField, menuField, fetcher, lightbulbGutter, theme,
    keymap.of([{key: "Mod-.", run: openQuickFixes, preventDefault: true}])]
}
