// Browser test of the designer page's Tests tab (issue 35, "the designer
// shows covered lines after a test run"): the real restls binary serves a
// project with a script and its test file behind --auth proxy with the
// project's roles; Debian's chromium (playwright-core) is a mocker, who
// names the script's path, runs its tests and sees each case's outcome
// and, in the gutter, the lines restls test --coverage reports covered and
// uncovered for the same cases; an edited line loses its mark; the
// editor's unsaved text is what runs (a case fails with it); a script with
// no test file is told what to create; and a viewer is told which role
// tests need. Screenshots: out/e2e-web/designer-coverage.png and
// designer-coverage-failed.png.
//
// Run with `make e2e-web` (builds bin/restls first). RESTLS_BIN overrides
// the binary, CHROMIUM the browser.
import {test, before, after} from "node:test"
import assert from "node:assert/strict"
import {spawn, spawnSync} from "node:child_process"
import {mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync} from "node:fs"
import {tmpdir} from "node:os"
import {join, dirname, resolve} from "node:path"
import {fileURLToPath} from "node:url"
import {chromium} from "playwright-core"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const bin = process.env.RESTLS_BIN || join(repo, "bin", "restls")
const shots = join(repo, "out", "e2e-web")
const WAIT = 15000
// Each case is a child process: on a loaded 2-core machine that takes
// seconds.
const RUN_WAIT = 60000

// cmd/restls's coverage example: three cases, a call site with three
// outcomes, a branch never taken.
const SCRIPT = readFileSync(join(repo, "cmd", "restls", "testdata", "coverage", "orders.js"), "utf8")
const TESTS = readFileSync(join(repo, "cmd", "restls", "testdata", "coverage", "orders.test.yaml"), "utf8")

let dir, backend, browser

// axeCheck runs axe-core in the page and fails on serious or critical
// violations (as designer.test.mjs does for the other tabs).
const axeSource = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "axe-core", "axe.min.js"), "utf8")
async function axeCheck(page, what) {
  await page.evaluate(axeSource)
  const res = await page.evaluate(() => window.axe.run(document, {resultTypes: ["violations"]}))
  const bad = res.violations.filter(v => v.impact === "serious" || v.impact === "critical")
  assert.deepEqual(bad.map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map(n => n.target.join(" ") + " [" + n.failureSummary + "]").join(", ")}`), [],
    `axe-core on ${what}`)
}

function startBackend(args) {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(bin, ["serve", "--http", "127.0.0.1:0", ...args], {stdio: ["ignore", "ignore", "pipe"]})
    let err = ""
    const timer = setTimeout(() => reject(new Error("restls did not start:\n" + err)), WAIT)
    proc.stderr.on("data", d => {
      err += d
      const m = /designer and hints API on (http:\/\/[^/\s]+)\//.exec(err)
      if (m) { clearTimeout(timer); resolveStart({proc, base: m[1] + "/", log: () => err}) }
    })
    proc.on("exit", code => { clearTimeout(timer); reject(new Error(`restls exited ${code}:\n${err}`)) })
  })
}

before(async () => {
  mkdirSync(shots, {recursive: true})
  dir = mkdtempSync(join(tmpdir(), "restls-tests-"))
  writeFileSync(join(dir, "restls.yaml"), [
    `configRoot: ${JSON.stringify(join(repo, "testdata", "config"))}`,
    "roles:", "  default: viewer", "  groups:", "    authors: {role: mocker}", ""].join("\n"))
  mkdirSync(join(dir, "scripts"))
  writeFileSync(join(dir, "scripts", "orders.js"), SCRIPT)
  writeFileSync(join(dir, "scripts", "orders.test.yaml"), TESTS)
  backend = await startBackend(["--project", join(dir, "restls.yaml"), "--allow-run", "--auth", "proxy", "--trusted-proxy", "127.0.0.1"])
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
  })
})

after(async () => {
  await browser?.close()
  if (backend && backend.proc.exitCode === null) {
    await new Promise(res => { backend.proc.removeAllListeners("exit"); backend.proc.on("exit", res); backend.proc.kill("SIGTERM") })
  }
  if (dir) rmSync(dir, {recursive: true, force: true})
})

// openAs opens the page as the user the proxy names, with the script in
// the editor, on the Tests tab.
async function openAs(user, groups) {
  const context = await browser.newContext({viewport: {width: 1400, height: 860},
    extraHTTPHeaders: {"X-Forwarded-User": user, ...(groups ? {"X-Forwarded-Groups": groups} : {})}})
  const page = await context.newPage()
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  await page.addInitScript(script => {
    localStorage.setItem("restls.designer.v1.scriptService", JSON.stringify({script, input: "", mocks: ""}))
    localStorage.setItem("restls.designer.v1.kind", "scriptService")
  }, SCRIPT)
  await page.goto(backend.base)
  await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
  await page.waitForFunction(() => window.restlsDesigner && window.restlsDesigner.editor.state.run, null, {timeout: WAIT})
  await page.locator("#tab-tests").click()
  page.errors = errors
  return page
}

// cliCoverage is restls test --coverage's LCOV for the same cases: the
// lines it counts covered and uncovered.
function cliCoverage() {
  const out = mkdtempSync(join(tmpdir(), "restls-tests-cov-"))
  try {
    const r = spawnSync(bin, ["test", "--coverage", "--coverage-dir", out, "scripts/orders.test.yaml"], {cwd: dir, encoding: "utf8"})
    assert.equal(r.status, 0, "restls test --coverage passes: " + r.stdout + r.stderr)
    const covered = [], uncovered = []
    for (const line of readFileSync(join(out, "lcov.info"), "utf8").split("\n")) {
      const m = /^DA:(\d+),(\d+)$/.exec(line)
      if (m) (Number(m[2]) > 0 ? covered : uncovered).push(Number(m[1]))
    }
    return {covered, uncovered}
  } finally {
    rmSync(out, {recursive: true, force: true})
  }
}

// gutterMarks reads the coverage gutter as drawn: the line each marker
// stands beside, by its class, and its title.
async function gutterMarks(page) {
  return page.evaluate(() => {
    const view = window.restlsDesigner.view
    const marks = {covered: [], uncovered: [], titles: {}}
    for (const m of document.querySelectorAll(".cm-restls-coverage .cm-gutterElement > span")) {
      const r = m.getBoundingClientRect()
      const block = view.lineBlockAtHeight(r.top + r.height / 2 - view.documentTop)
      const line = view.state.doc.lineAt(block.from).number
      marks[m.className === "cm-restls-covered" ? "covered" : "uncovered"].push(line)
      marks.titles[line] = m.getAttribute("title")
    }
    return marks
  })
}

async function runTests(page, script) {
  await page.locator("#tests-script").fill(script)
  const started = Date.now()
  await page.locator("#tests-run").click()
  await page.locator('#tests[data-state="done"], #tests[data-state="error"]').waitFor({timeout: RUN_WAIT})
  return Date.now() - started
}

test("Tests tab: a mocker runs the script's tests and sees restls test --coverage's lines in the gutter", async () => {
  const page = await openAs("ann", "authors")
  assert.equal(await page.locator("#tests-run").isDisabled(), false, "a mocker may run tests")
  // The field offers the scripts the project's test files name.
  await page.locator('#tests-scripts option[value="scripts/orders.js"]').waitFor({state: "attached", timeout: WAIT})
  assert.deepEqual(await page.locator("#tests-scripts option").evaluateAll(os => os.map(o => [o.value, o.label])), [["scripts/orders.js", "scripts/orders.test.yaml"]])
  const took = await runTests(page, "scripts/orders.js")
  assert.equal(await page.locator("#tests").getAttribute("data-state"), "done", await page.locator("#tests").textContent())
  console.log(`# test run from the designer (3 cases, each a child process): ${took} ms`)
  assert.equal(await page.locator(".tests-summary").textContent(), "scripts/orders.js: 3 passed, 0 failed · lines 10/12 covered · branches 6/8")
  const cases = await page.locator(".tests-case").evaluateAll(lis => lis.map(li => [li.querySelector(".tests-name").textContent, li.dataset.passed, li.querySelector(".tests-where").textContent]))
  assert.deepEqual(cases, [["found", "true", "scripts/orders.test.yaml:14"], ["missing", "true", "scripts/orders.test.yaml:17"], ["slow", "true", "scripts/orders.test.yaml:20"]])

  const cli = cliCoverage()
  assert.deepEqual(cli.uncovered, [13, 14], "the example leaves the blocked branch uncovered")
  const marks = await gutterMarks(page)
  assert.deepEqual(marks.covered, cli.covered, "the gutter's covered lines are restls test --coverage's")
  assert.deepEqual(marks.uncovered, cli.uncovered, "the gutter's uncovered lines are restls test --coverage's")
  // A call site's marker says its outcomes; a branch point its arms.
  assert.equal(marks.titles[4], "covered: ran 3 times\nGET crm-customers: 2XX ×1, 404 ×1, read-timeout ×1")
  assert.equal(marks.titles[13], "not covered: no test ran this line\nPOST crm-customers: never called")
  assert.match(marks.titles[11], /\|\|: 1 of 2 branches never taken/)
  assert.equal(await page.locator(".tests-uncovered").textContent(), "Never run: lines 13, 14")
  assert.deepEqual(await page.locator(".tests-sites li").allTextContents(),
    ["line 4 GET crm-customers: 2XX ×1, 404 ×1, read-timeout ×1", "line 13 POST crm-customers: never called"])
  await page.screenshot({path: join(shots, "designer-coverage.png")})

  // An edited line loses its mark; the others stay where they were.
  await page.evaluate(() => {
    const v = window.restlsDesigner.view
    const line = v.state.doc.line(13)
    v.dispatch({changes: {from: line.to, insert: " // unblock first"}})
  })
  const edited = await gutterMarks(page)
  assert.deepEqual(edited.uncovered, [14], "line 13 was edited: its mark goes")
  assert.deepEqual(edited.covered, cli.covered)

  // The editor's unsaved text runs, not the file: "found" fails with it.
  await page.evaluate(() => {
    const v = window.restlsDesigner.view
    const text = v.state.doc.toString()
    const at = text.indexOf("return { name: name };")
    v.dispatch({changes: {from: at, to: at + "return { name: name };".length, insert: "return { name: name + \"!\" };"}})
  })
  await runTests(page, "scripts/orders.js")
  assert.equal(await page.locator(".tests-summary").textContent(), "scripts/orders.js: 2 passed, 1 failed · lines 10/12 covered · branches 6/8")
  const failed = page.locator('.tests-case[data-passed="false"]')
  assert.equal(await failed.count(), 1)
  assert.equal(await failed.locator(".tests-name").textContent(), "found")
  assert.match(await failed.locator(".tests-failure").first().textContent(), /\$\.name: expected "Ann", got "Ann!"/)
  assert.equal(await page.locator("#tab-tests").textContent(), "Tests (1)")
  assert.equal(await page.locator("#tab-tests").getAttribute("title"), "1 case failed")
  assert.deepEqual((await gutterMarks(page)).uncovered, [13, 14], "the next run marks every line again")
  await page.screenshot({path: join(shots, "designer-coverage-failed.png")})
  await axeCheck(page, "the Tests tab with a failed case and the coverage gutter")

  // A script no test file names: what to create.
  await runTests(page, "scripts/invoices.js")
  assert.equal(await page.locator("#tests").getAttribute("data-state"), "error")
  assert.match(await page.locator(".tests-error").textContent(), /no test file of this project tests scripts\/invoices\.js: create scripts\/invoices\.test\.yaml with "script: invoices\.js"/)
  assert.deepEqual(await gutterMarks(page), {covered: [], uncovered: [], titles: {}}, "a run that did not happen marks nothing")
  assert.deepEqual(page.errors, [])
  await page.context().close()
})

test("Tests tab: a viewer is told which role tests need", async () => {
  const page = await openAs("vera", "")
  assert.equal(await page.locator("#tests-run").isDisabled(), true)
  assert.match(await page.locator("#tests-reason").textContent(), /role mocker/)
  // Asked anyway, the server refuses: the gate decides, not the page.
  const answer = await page.evaluate(() => window.restlsDesigner.editor.runTests({script: "scripts/orders.js"}))
  assert.equal(answer.state, "error")
  assert.equal(answer.httpStatus, 403)
  assert.match(answer.message, /role mocker/)
  await page.context().close()
})
