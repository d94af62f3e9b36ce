// The designer page's debugger: the Debug button beside Dry Run, the step
// buttons, and the Debug tab (variables, call stack, debug console), over
// the module's attachDebugger (breakpoints in the gutter, the stopped line
// highlighted, restls dap's protocol on /dap).
import {attachDebugger, el} from "@restls/designer-editor"

/**
 * @typedef {import("@restls/designer-editor").RestlsEditor} RestlsEditor
 * @typedef {import("@restls/designer-editor").DebugStart} DebugStart
 * @typedef {import("@restls/designer-editor").DebugState} DebugState
 */

/**
 * setupDebugger wires the page's debugger to editor.
 * @param {{editor: RestlsEditor, url: string, token: string, $: (id: string) => HTMLElement,
 *   showTab: () => void, prepare: () => Promise<DebugStart | null>}} page
 */
export function setupDebugger({editor, url, token, $, showTab, prepare}) {
  const dbg = attachDebugger(editor, {url, token})
  const button = /** @type {HTMLButtonElement} */ ($("debug"))
  const controls = $("debug-controls")
  const stepButtons = /** @type {HTMLButtonElement[]} */ (["debug-continue", "debug-next", "debug-in", "debug-out"].map($))
  let allowed = false

  function showButton() {
    const active = dbg.state.status !== "idle"
    button.disabled = !allowed || active
    controls.hidden = !active
    if (active) button.setAttribute("aria-busy", "true")
    else button.removeAttribute("aria-busy")
  }
  editor.subscribe(s => { allowed = !!(s.run && s.run.allowed); showButton() })

  /** @type {Record<DebugState["status"], string>} */
  const words = {idle: "", starting: "Starting the debug run…", running: "Running…", stopped: ""}
  let lastOutput = 0
  dbg.subscribe(s => {
    showButton()
    for (const b of stepButtons) b.disabled = s.status !== "stopped"
    const state = $("debug-state")
    state.dataset.state = s.error ? "error" : s.status
    if (s.status === "stopped") {
      state.textContent = `Paused at line ${s.line} (${s.reason}). Step with the buttons above, or Continue.`
    } else if (s.status === "idle") {
      state.textContent = s.error ? "✗ " + s.error : lastOutput ? "The debug run ended." : state.textContent
    } else {
      state.textContent = words[s.status]
    }
    $("debug-variables").replaceChildren(...s.scopes.map(sc => el("tbody", {"data-scope": sc.name},
      el("tr", {class: "scope"}, el("th", {colspan: "2", scope: "rowgroup"}, sc.name)),
      sc.variables.map(v => row(v, 0)))))
    $("debug-stack").replaceChildren(...s.frames.map(f => el("li", null, `${f.name} — line ${f.line}`)))
    if (s.output.length !== lastOutput) {
      lastOutput = s.output.length
      const out = $("debug-output")
      out.textContent = s.output.join("")
      out.scrollTop = out.scrollHeight
    }
  })

  /**
   * row is a variable's row; an object or array gets a button that shows
   * its members below it (fetched when opened).
   * @param {import("@restls/designer-editor").DebugVariable} v
   * @param {number} depth
   * @returns {HTMLElement}
   */
  function row(v, depth) {
    const name = el("th", {scope: "row", style: `padding-left: ${depth * 1.2}em`}, v.name)
    const tr = el("tr", {"data-depth": String(depth)}, name, el("td", null, v.value))
    if (!v.ref || depth >= 8) return tr
    const toggle = el("button", {type: "button", class: "expand", "aria-expanded": "false", "aria-label": "Show the members of " + v.name}, "▸")
    name.prepend(toggle, " ")
    /** @type {HTMLElement[]} */
    let shown = []
    toggle.addEventListener("click", async () => {
      if (shown.length) {
        for (const r of shown) r.remove()
        shown = []
        toggle.setAttribute("aria-expanded", "false")
        toggle.textContent = "▸"
        return
      }
      const kids = await dbg.expand(v.ref)
      shown = kids.map(k => row(k, depth + 1))
      tr.after(...shown)
      toggle.setAttribute("aria-expanded", "true")
      toggle.textContent = "▾"
    })
    return tr
  }

  async function start() {
    if (button.disabled) return
    const how = await prepare()
    if (!how) return
    showTab()
    lastOutput = 0
    const outcome = await dbg.start(how)
    if (outcome.state === "error") $("debug-state").textContent = "✗ " + outcome.message
  }
  button.addEventListener("click", start)
  $("debug-continue").addEventListener("click", () => dbg.continue())
  $("debug-next").addEventListener("click", () => dbg.next())
  $("debug-in").addEventListener("click", () => dbg.stepIn())
  $("debug-out").addEventListener("click", () => dbg.stepOut())
  $("debug-stop").addEventListener("click", () => dbg.stop())
  // The usual keys while a run stands stopped.
  document.addEventListener("keydown", e => {
    if (dbg.state.status !== "stopped") return
    /** @type {Record<string, () => void>} */
    const keys = {F8: () => dbg.continue(), F10: () => dbg.next(), F11: () => (e.shiftKey ? dbg.stepOut() : dbg.stepIn())}
    const act = keys[e.key]
    if (!act) return
    e.preventDefault()
    act()
  })
  return dbg
}
