// Covered lines after a test run (issue 35): POST /v1/test answers the
// script's coverage as restls test --coverage computes it (coverage.Script:
// each line with a statement and how often it ran, branch arms, each call
// site's outcomes). A gutter left of the line numbers marks each such line
// covered (ran at least once) or uncovered (never ran); a call site's line
// says which outcomes the tests exercised in its marker's title. A line the
// user edits loses its mark (the mark belongs to the code that ran); the
// rest follow the edits, and all go with the next test run or a kind
// switch.
import {StateField, StateEffect, RangeSet, RangeSetBuilder} from "@codemirror/state"
import {EditorView, GutterMarker, gutter} from "@codemirror/view"

/**
 * @typedef {import("./wire.gen.js").ScriptCoverage} ScriptCoverage
 * @typedef {{line: number, hits: number, title: string}} LineMark
 */

/** @type {import("@codemirror/state").StateEffectType<LineMark[] | null>} */
const setCoverage = StateEffect.define()

class CoverageMarker extends GutterMarker {
  /**
   * @param {boolean} covered
   * @param {string} title
   */
  constructor(covered, title) { super(); this.covered = covered; this.title = title }
  /** @param {CoverageMarker} o */
  eq(o) { return o.covered === this.covered && o.title === this.title }
  toDOM() {
    const e = document.createElement("span")
    e.className = this.covered ? "cm-restls-covered" : "cm-restls-uncovered"
    e.title = this.title
    e.setAttribute("aria-label", this.title)
    e.textContent = this.covered ? "▌" : "▌"
    return e
  }
}

/**
 * coverageLines turns a script's coverage into one mark per line: its
 * hits, and a title saying them, the branch arms never taken there and
 * each call site's outcomes ("GET crm-customers: 2XX ×1, 404 ×1").
 * @param {ScriptCoverage | null | undefined} cov
 * @returns {LineMark[]}
 */
export function coverageLines(cov) {
  if (!cov || !Array.isArray(cov.lineHits)) return []
  /** @type {Map<number, string[]>} */
  const notes = new Map()
  const note = (/** @type {number} */ line, /** @type {string} */ text) => notes.set(line, [...(notes.get(line) || []), text])
  for (const b of cov.branchHits || []) {
    if (!b || typeof b.line !== "number" || !Array.isArray(b.taken)) continue
    const never = b.taken.map((n, i) => n ? -1 : i).filter(i => i >= 0)
    if (never.length) note(b.line, `${b.kind}: ${never.length} of ${b.taken.length} branches never taken`)
  }
  for (const s of cov.callSites || []) {
    if (!s || typeof s.line !== "number") continue
    const outs = (s.outcomes || []).map(o => `${o.outcome} ×${o.calls}`)
    const ids = (s.serviceIds || []).join(", ")
    note(s.line, `${String(s.method || "").toUpperCase()} ${ids}: ${outs.length ? outs.join(", ") : "never called"}`)
  }
  /** @type {LineMark[]} */
  const out = []
  for (const l of cov.lineHits) {
    if (!l || typeof l.line !== "number" || typeof l.hits !== "number") continue
    const head = l.hits > 0 ? `covered: ran ${l.hits} time${l.hits === 1 ? "" : "s"}` : "not covered: no test ran this line"
    out.push({line: l.line, hits: l.hits, title: [head, ...(notes.get(l.line) || [])].join("\n")})
  }
  return out.sort((a, b) => a.line - b.line)
}

/**
 * @param {import("@codemirror/state").EditorState} state
 * @param {LineMark[] | null} marks
 * @returns {RangeSet<GutterMarker>}
 */
function build(state, marks) {
  if (!marks) return RangeSet.empty
  /** @type {RangeSetBuilder<GutterMarker>} */
  const b = new RangeSetBuilder()
  for (const m of marks) {
    if (m.line < 1 || m.line > state.doc.lines) continue
    b.add(state.doc.line(m.line).from, state.doc.line(m.line).from, new CoverageMarker(m.hits > 0, m.title))
  }
  return b.finish()
}

const coverageField = StateField.define({
  /** @returns {RangeSet<GutterMarker>} */
  create: () => RangeSet.empty,
  update(marks, tr) {
    if (tr.docChanged) {
      // A changed line's mark goes: it belongs to the code that ran.
      /** @type {number[]} */
      const touched = []
      tr.changes.iterChangedRanges((fromA, toA) => {
        touched.push(tr.startState.doc.lineAt(fromA).from, tr.startState.doc.lineAt(toA).to)
      })
      marks = marks.update({filter: from => {
        for (let i = 0; i < touched.length; i += 2) if (from >= touched[i] && from <= touched[i + 1]) return false
        return true
      }}).map(tr.changes)
    }
    for (const e of tr.effects) if (e.is(setCoverage)) marks = build(tr.state, e.value)
    return marks
  },
})

const theme = EditorView.baseTheme({
  ".cm-restls-coverage .cm-gutterElement": {width: "0.6em", textAlign: "center", padding: "0"},
  ".cm-restls-covered": {color: "#1a7f37"},
  ".cm-restls-uncovered": {color: "#c62828"},
})

/** testCoverage is the extension that shows showCoverage's marks. */
export function testCoverage() {
  return [
    coverageField,
    gutter({class: "cm-restls-coverage", markers: v => v.state.field(coverageField)}),
    theme,
  ]
}

/**
 * showCoverage marks the lines of a test run's coverage; null clears them.
 * @param {EditorView} view
 * @param {ScriptCoverage | null | undefined} cov
 */
export function showCoverage(view, cov) {
  const marks = coverageLines(cov)
  view.dispatch({effects: setCoverage.of(marks.length ? marks : null)})
}
