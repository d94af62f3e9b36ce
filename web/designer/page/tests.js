// The designer page's Tests tab: run the project's test cases of the
// script being edited (POST /v1/test: restls test --coverage's engine,
// with the editor's text in place of the file) and show each case's pass
// or fail, and the covered and uncovered lines in the editor's gutter.
// The script is named by its path in the project the server serves, as
// the test files' script: keys name it; the page keeps it per kind. Every
// call of a test is answered by its fixtures: the role mocker may run
// tests, a viewer may not (the button says why, as Dry Run does).
import {renderTests} from "@restls/designer-editor"

const pathKey = (/** @type {string} */ kind) => `restls.designer.v1.testScript.${kind}`

/**
 * testsTab wires the tab's path field, button and list.
 * @param {{
 *   editor: import("@restls/designer-editor").RestlsEditor,
 *   path: HTMLInputElement,
 *   choices: HTMLDataListElement,
 *   button: HTMLButtonElement,
 *   reason: HTMLElement,
 *   list: HTMLElement,
 *   tab: HTMLElement,
 * }} p
 */
export function testsTab(p) {
  let running = false
  let kind = ""
  /** @param {import("@restls/designer-editor").RestlsState} s */
  function showState(s) {
    if (s.kind !== kind) {
      // Each kind has its own script, so its own path.
      kind = s.kind
      try { p.path.value = localStorage.getItem(pathKey(kind)) || "" } catch {}
    }
    const run = s.run
    const allowed = !!(run && run.allowed)
    p.button.disabled = !allowed || running
    p.reason.textContent = run && !run.allowed ? "Running tests is off: " + run.reason : ""
  }
  p.editor.subscribe(showState)
  // The scripts the test files name, offered in the field: asked when
  // the tab opens (the project's files change while the page is open).
  async function offerScripts() {
    if (!(p.editor.state.run && p.editor.state.run.allowed)) return
    const scripts = await p.editor.testScripts()
    p.choices.replaceChildren(...scripts.map(s => {
      const o = document.createElement("option")
      o.value = s.script
      o.label = (s.files || []).join(", ")
      return o
    }))
  }
  p.tab.addEventListener("click", offerScripts)
  p.tab.addEventListener("focus", offerScripts)
  p.path.addEventListener("change", () => {
    try { localStorage.setItem(pathKey(kind), p.path.value.trim()) } catch {}
  })
  async function runTests() {
    if (p.button.disabled) return
    const script = p.path.value.trim()
    if (!script) {
      renderTests(p.list, {state: "error", message: "Name the script's path in the project first (for example scripts/orders.js): the test files whose script: names it run."})
      p.path.focus()
      return
    }
    running = true
    showState(p.editor.state)
    p.button.setAttribute("aria-busy", "true")
    renderTests(p.list, {state: "running"})
    try {
      const outcome = await p.editor.runTests({script})
      renderTests(p.list, outcome, {onPosition: line => p.editor.showPosition(line)})
      const failed = outcome.state === "done" ? outcome.result.failed : 0
      p.tab.textContent = failed ? `Tests (${failed})` : "Tests"
      if (failed) p.tab.title = `${failed} case${failed === 1 ? "" : "s"} failed`
      else p.tab.removeAttribute("title")
    } finally {
      running = false
      p.button.removeAttribute("aria-busy")
      showState(p.editor.state)
    }
  }
  p.button.addEventListener("click", runTests)
  p.path.addEventListener("keydown", e => { if (e.key === "Enter") { e.preventDefault(); runTests() } })
}
