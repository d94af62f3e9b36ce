// The Faults tab's table: a fault exploration (the server's
// restls.exploreFaults, the engine of `restls faults`) as the CLI prints
// it: per call site its line and call, a row per outcome with its verdict
// (FAIL when it fails the script) and what happened. Every text goes
// through el(): nothing from the server is parsed as markup.
import {el} from "./dom.js"

/**
 * @typedef {import("./index.d.ts").FaultsOutcome} FaultsOutcome
 */

/**
 * renderFaults shows an exploration, its progress or why it did not run
 * in container; a line links to the script's editor (onPosition).
 * @param {HTMLElement} container
 * @param {FaultsOutcome} outcome
 * @param {{onPosition?: (line: number) => void}} [options]
 */
export function renderFaults(container, outcome, options = {}) {
  container.dataset.state = outcome.state
  if (outcome.state === "running") {
    container.replaceChildren(el("p", {role: "status"}, "Exploring: the script runs once with the Mocks tab's fixtures, then again for each call site and outcome…"))
    return
  }
  if (outcome.state === "error") {
    container.replaceChildren(el("p", {class: "faults-error", role: "alert"}, outcome.message))
    return
  }
  const r = outcome.result
  const sites = Array.isArray(r.sites) ? r.sites : []
  /** @type {HTMLElement[]} */
  const body = []
  for (const s of sites) {
    const findings = Array.isArray(s.findings) ? s.findings : []
    findings.forEach((f, i) => {
      /** @type {HTMLElement[]} */
      const cells = []
      if (i === 0) {
        const line = typeof s.line === "number" ? s.line : 0
        const link = line > 0 && options.onPosition
          ? el("button", {type: "button", class: "faults-line", title: `Go to line ${line}`, onclick: () => options.onPosition?.(line)}, String(line))
          : String(line || "?")
        cells.push(el("th", {scope: "rowgroup", rowspan: String(findings.length), class: "faults-site"},
          el("span", {class: "faults-where"}, "line ", link), " ",
          el("code", null, `${s.method} ${s.serviceId}`), " ", el("span", {class: "faults-path"}, `path "${s.path}"`),
          s.operation ? el("span", {class: "faults-op"}, ` (${s.operation})`) : null,
          el("div", {class: "faults-tally"}, s.tally)))
      }
      cells.push(
        el("td", {class: "faults-fail"}, f.fails ? "FAIL" : ""),
        el("td", {class: "faults-outcome"}, el("code", null, f.outcome)),
        el("td", {class: "faults-verdict", "data-verdict": f.verdict}, f.verdict),
        el("td", {class: "faults-detail"}, f.detail))
      body.push(el("tr", {"data-verdict": f.verdict, "data-fails": f.fails ? "true" : "false"}, cells))
    })
  }
  const notes = (Array.isArray(r.notes) ? r.notes : []).map(n => el("p", {class: "faults-note"}, "note: ", n))
  container.replaceChildren(
    el("p", {class: "faults-summary", role: "status"}, r.summary),
    sites.length === 0 ? el("p", null, "The script made no call: nothing to explore.")
      : el("table", {class: "faults-table"},
        el("caption", {class: "visually-hidden"}, "Each call site's outcomes and the script's verdict"),
        el("thead", null, el("tr", null,
          el("th", {scope: "col"}, "Call site"), el("th", {scope: "col"}, el("span", {class: "visually-hidden"}, "Fails")),
          el("th", {scope: "col"}, "Outcome"), el("th", {scope: "col"}, "Verdict"), el("th", {scope: "col"}, "What happened"))),
        el("tbody", null, body)),
    ...notes)
}
