// The Tests tab's list: a test run of the script (POST /v1/test: the
// project's test cases of the script, run as restls test --coverage runs
// them, with the editor's text) as each case's pass or fail with its
// failures, and the lines covered. Every text goes through el(): nothing
// from the server is parsed as markup.
import {el} from "./dom.js"

/**
 * @typedef {import("./index.d.ts").TestRunOutcome} TestRunOutcome
 */

/**
 * renderTests shows a test run, its progress or why it did not run in
 * container; a case's line opens nothing (the test file is not in the
 * designer), a covered line links to the script's editor (onPosition).
 * @param {HTMLElement} container
 * @param {TestRunOutcome} outcome
 * @param {{onPosition?: (line: number) => void}} [options]
 */
export function renderTests(container, outcome, options = {}) {
  container.dataset.state = outcome.state
  if (outcome.state === "running") {
    container.replaceChildren(el("p", {role: "status"}, "Running the script's test cases with the editor's text…"))
    return
  }
  if (outcome.state === "error") {
    container.replaceChildren(el("p", {class: "tests-error", role: "alert"}, outcome.message))
    return
  }
  const r = outcome.result
  const tests = Array.isArray(r.tests) ? r.tests : []
  const cov = r.coverage
  const parts = [`${r.passed} passed, ${r.failed} failed`]
  if (cov && cov.lines) parts.push(`lines ${cov.lines.hit}/${cov.lines.found} covered`)
  if (cov && cov.branches && cov.branches.found) parts.push(`branches ${cov.branches.hit}/${cov.branches.found}`)
  const files = Array.isArray(r.files) ? r.files : []
  const uncovered = cov && Array.isArray(cov.lineHits) ? cov.lineHits.filter(l => l.hits === 0).map(l => l.line) : []
  /** @type {HTMLElement[]} */
  const more = []
  if (cov && cov.error) more.push(el("p", {class: "tests-error"}, "Coverage: ", cov.error))
  if (uncovered.length) more.push(el("p", {class: "tests-uncovered"}, "Never run: line", uncovered.length === 1 ? " " : "s ",
    ...uncovered.flatMap((line, i) => [i ? ", " : "", options.onPosition
      ? el("button", {type: "button", class: "tests-line", title: `Go to line ${line}`, onclick: () => options.onPosition?.(line)}, String(line))
      : String(line)])))
  const sites = cov && Array.isArray(cov.callSites) ? cov.callSites : []
  if (sites.length) {
    more.push(el("h3", {class: "tests-h"}, "Call outcomes the tests exercised"),
      el("ul", {class: "tests-sites", "aria-label": "Call sites"}, sites.map(s => {
        const outs = (s.outcomes || []).map(o => `${o.outcome} ×${o.calls}`)
        return el("li", {"data-called": outs.length ? "true" : "false"},
          options.onPosition
            ? el("button", {type: "button", class: "tests-line", title: `Go to line ${s.line}`, onclick: () => options.onPosition?.(s.line)}, `line ${s.line}`)
            : `line ${s.line}`,
          " ", el("code", null, `${String(s.method || "").toUpperCase()} ${(s.serviceIds || []).join(", ")}`), ": ",
          outs.length ? outs.join(", ") : "never called")
      })))
  }
  container.replaceChildren(
    el("p", {class: "tests-summary", role: "status"}, `${r.script}: ${parts.join(" · ")}`),
    el("p", {class: "tests-files"}, files.length === 1 ? "From " : "From the test files ", files.join(", ")),
    el("ul", {class: "tests-list", "aria-label": "Test cases"}, tests.map(t => el("li", {class: "tests-case", "data-passed": t.passed ? "true" : "false"},
      el("span", {class: "tests-mark", "aria-hidden": "true"}, t.passed ? "✓" : "✗"), " ",
      el("span", {class: "tests-name"}, t.name), " ",
      el("span", {class: "tests-verdict"}, t.passed ? "passed" : "FAILED"), " ",
      el("span", {class: "tests-where"}, `${t.file}:${t.line}`),
      ...(t.failures || []).map(f => el("pre", {class: "tests-failure"}, f))))),
    ...more)
}
