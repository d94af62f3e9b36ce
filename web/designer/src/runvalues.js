// The last run's values (issue 35): after a dry run, the value each
// variable was last given (the run's `values`: line, column, name and the
// value as the preview shows it, credentials masked by the server) is
// written at the end of its line. A line the user edits loses its values
// (they belong to the code that ran); the rest follow the edits, and all
// go with the next run.
import {StateField, StateEffect} from "@codemirror/state"
import {EditorView, Decoration, WidgetType} from "@codemirror/view"
import {el} from "./dom.js"

/** @typedef {{line: number, column: number, name: string, value: string}} LineValue */

/** @type {import("@codemirror/state").StateEffectType<LineValue[] | null>} */
const setValues = StateEffect.define()

/** maxLineText bounds the text written at the end of one line. */
const maxLineText = 200

class Values extends WidgetType {
  /** @param {string} text */
  constructor(text) { super(); this.text = text }
  /** @param {Values} o */
  eq(o) { return o.text === this.text }
  toDOM() { return el("span", {class: "cm-restls-run-values", "aria-label": "values of the last run"}, this.text) }
}

/**
 * valueLines groups values by line, in order: "a = 1, b = 2", cut.
 * @param {LineValue[]} values
 * @returns {{line: number, text: string}[]}
 */
export function valueLines(values) {
  /** @type {Map<number, string[]>} */
  const byLine = new Map()
  for (const v of values || []) {
    if (!v || typeof v.line !== "number" || typeof v.name !== "string") continue
    byLine.set(v.line, [...(byLine.get(v.line) || []), `${v.name} = ${v.value}`])
  }
  return [...byLine.entries()].sort((a, b) => a[0] - b[0]).map(([line, texts]) => {
    const text = texts.join(", ")
    return {line, text: text.length > maxLineText ? text.slice(0, maxLineText) + "…" : text}
  })
}

/**
 * @param {import("@codemirror/state").EditorState} state
 * @param {LineValue[] | null} values
 */
function build(state, values) {
  if (!values) return Decoration.none
  const marks = []
  for (const {line, text} of valueLines(values)) {
    if (line < 1 || line > state.doc.lines) continue
    marks.push(Decoration.widget({widget: new Values(text), side: 1}).range(state.doc.line(line).to))
  }
  return Decoration.set(marks, true)
}

const valuesField = StateField.define({
  /** @returns {import("@codemirror/view").DecorationSet} */
  create: () => Decoration.none,
  update(deco, tr) {
    if (tr.docChanged) {
      // A changed line's values go: they belong to the code that ran.
      /** @type {number[]} */
      const touched = []
      tr.changes.iterChangedRanges((fromA, toA) => {
        const first = tr.startState.doc.lineAt(fromA), last = tr.startState.doc.lineAt(toA)
        touched.push(first.from, last.to)
      })
      deco = deco.update({filter: (from) => {
        for (let i = 0; i < touched.length; i += 2) if (from >= touched[i] && from <= touched[i + 1]) return false
        return true
      }})
      deco = deco.map(tr.changes)
    }
    for (const e of tr.effects) if (e.is(setValues)) deco = build(tr.state, e.value)
    return deco
  },
  provide: f => EditorView.decorations.from(f),
})

const theme = EditorView.baseTheme({
  ".cm-restls-run-values": {marginLeft: "2em", color: "#5a5a8a", fontStyle: "italic"},
})

/** runValues is the extension that shows showRunValues' values. */
export function runValues() { return [valuesField, theme] }

/**
 * showRunValues writes a run's values at the end of their lines; null
 * clears them.
 * @param {EditorView} view
 * @param {LineValue[] | null | undefined} values
 */
export function showRunValues(view, values) {
  view.dispatch({effects: setValues.of(values && values.length ? values : null)})
}
