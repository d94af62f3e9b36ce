// The uncaught error of the last dry run, marked where it happened: the
// line gets a background and a text note (colour is never the only sign),
// the column a wavy underline. The mark follows edits and goes with the
// next run.
import {StateField, StateEffect} from "@codemirror/state"
import {EditorView, Decoration, WidgetType} from "@codemirror/view"
import {el} from "./dom.js"

/** @typedef {import("./index.d.ts").RunError} RunError */

/** @type {import("@codemirror/state").StateEffectType<RunError | null>} */
const setRunError = StateEffect.define()

class Note extends WidgetType {
  /** @param {string} text */
  constructor(text) { super(); this.text = text }
  /** @param {Note} o */
  eq(o) { return o.text === this.text }
  toDOM() { return el("span", {class: "cm-restls-run-note", role: "note"}, "⚠ " + this.text) }
}

/**
 * @param {import("@codemirror/state").EditorState} state
 * @param {RunError | null} err
 */
function build(state, err) {
  if (!err || !err.line) return Decoration.none
  const line = state.doc.line(Math.min(Math.max(1, err.line), state.doc.lines))
  const from = Math.min(line.to, line.from + Math.max(0, (err.column || 1) - 1))
  let to = from
  const rest = state.sliceDoc(from, line.to)
  const word = /^[\w$.]+/.exec(rest)
  to = from + (word ? word[0].length : Math.min(1, rest.length))
  const marks = [Decoration.line({class: "cm-restls-run-error-line"}).range(line.from)]
  if (to > from) marks.push(Decoration.mark({class: "cm-restls-run-error"}).range(from, to))
  marks.push(Decoration.widget({widget: new Note(`${err.name || "Error"}: ${err.message || ""}`), side: 1}).range(line.to))
  return Decoration.set(marks, true)
}

const runErrorField = StateField.define({
  /** @returns {import("@codemirror/view").DecorationSet} */
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes)
    for (const e of tr.effects) if (e.is(setRunError)) deco = build(tr.state, e.value)
    return deco
  },
  provide: f => EditorView.decorations.from(f),
})

const theme = EditorView.baseTheme({
  ".cm-restls-run-error-line": {backgroundColor: "#fde8e8"},
  ".cm-restls-run-error": {textDecoration: "underline wavy #b00020", textUnderlineOffset: "3px"},
  ".cm-restls-run-note": {marginLeft: "1.5em", color: "#8a0018", fontStyle: "italic"},
})

/** runErrorMarks is the extension that shows markRunError's mark. */
export function runErrorMarks() { return [runErrorField, theme] }

/**
 * markRunError marks a run's uncaught error ({name, message, line,
 * column}, 1-based) in the editor; null clears the mark.
 * @param {EditorView} view
 * @param {RunError | null | undefined} error
 */
export function markRunError(view, error) {
  view.dispatch({effects: setRunError.of(error && error.line ? error : null)})
}

/**
 * showPosition moves the cursor to a 1-based line and column and focuses the editor.
 * @param {EditorView} view
 * @param {number} line
 * @param {number} [column]
 */
export function showPosition(view, line, column) {
  const l = view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines))
  const pos = Math.min(l.to, l.from + Math.max(0, (column || 1) - 1))
  view.dispatch({selection: {anchor: pos}, scrollIntoView: true})
  view.focus()
}
