// The designer page's Faults tab: explore the script's error paths (the
// server's restls.exploreFaults, as `restls faults`) from the Mocks tab's
// fixtures, and show the CLI's table. Exploring runs the script many
// times, each run answered by fixtures only: the role mocker may, a
// viewer may not (the button says why, as Dry Run does).
import {renderFaults} from "@restls/designer-editor"

/**
 * faultsTab wires the tab's button and table.
 * @param {{
 *   editor: import("@restls/designer-editor").RestlsEditor,
 *   mocks: () => string,
 *   input: () => {ok: boolean, value?: unknown},
 *   showInput: () => void,
 *   button: HTMLButtonElement,
 *   reason: HTMLElement,
 *   table: HTMLElement,
 *   tab: HTMLElement,
 * }} p
 */
export function faultsTab(p) {
  let exploring = false
  /** @param {import("@restls/designer-editor").RestlsState} s */
  function showState(s) {
    const run = s.run
    const allowed = !!(run && run.allowed)
    p.button.disabled = !allowed || exploring
    p.reason.textContent = run && !run.allowed ? "Exploring is off: " + run.reason : ""
  }
  p.editor.subscribe(showState)
  p.button.addEventListener("click", async () => {
    if (p.button.disabled) return
    const input = p.input()
    if (!input.ok) { p.showInput(); return }
    const mock = p.mocks()
    if (!mock.trim()) {
      renderFaults(p.table, {state: "error", message: "Put fixtures in the Mocks tab first (Record makes them): the exploration starts from a run they answer, and every run is answered by fixtures only."})
      return
    }
    exploring = true
    showState(p.editor.state)
    p.button.setAttribute("aria-busy", "true")
    renderFaults(p.table, {state: "running"})
    try {
      const outcome = await p.editor.exploreFaults({mock, input: input.value})
      renderFaults(p.table, outcome, {onPosition: line => p.editor.showPosition(line)})
      const failing = outcome.state === "done" ? outcome.result.failing : 0
      p.tab.textContent = failing ? `Faults (${failing})` : "Faults"
    } finally {
      exploring = false
      p.button.removeAttribute("aria-busy")
      showState(p.editor.state)
    }
  })
}
