// Browser test of the designer page's Faults tab (issue 36): the real
// restls binary serves the page behind --auth proxy with the project's
// roles; Debian's chromium (playwright-core) is a mocker, who explores
// the script from the Mocks tab's fixtures and sees the table restls
// faults prints for the same script and fixtures, row for row; and a
// viewer, whom the tab tells why not. Screenshot: out/e2e-web/faults.png.
//
// Run with `make e2e-web` (builds bin/restls first). RESTLS_BIN overrides
// the binary, CHROMIUM the browser.
import {test, before, after} from "node:test"
import assert from "node:assert/strict"
import {spawn, spawnSync} from "node:child_process"
import {mkdtempSync, mkdirSync, writeFileSync, rmSync} from "node:fs"
import {tmpdir} from "node:os"
import {join, dirname, resolve} from "node:path"
import {fileURLToPath} from "node:url"
import {chromium} from "playwright-core"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const bin = process.env.RESTLS_BIN || join(repo, "bin", "restls")
const shots = join(repo, "out", "e2e-web")
const WAIT = 15000
// Every rerun is a child process: on a loaded 2-core machine a dozen
// take seconds.
const EXPLORE_WAIT = 120000

const SCRIPT = `var customer;
try {
  customer = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {}).body;
} catch (e) {
  if (e.status.code === 404) return null;
  throw e;
}
var orders = api.rest.v1.get("crm-orders", {queryParams: {customer: "42"}}, {});
return {name: customer.name, orders: orders.body.length};
`
const MOCKS = `- {serviceId: crm-customers, body: {name: Ada}}
- {serviceId: crm-orders, body: [1, 2]}
`

let dir, backend, browser

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
  dir = mkdtempSync(join(tmpdir(), "restls-faults-"))
  writeFileSync(join(dir, "restls.yaml"), [
    `configRoot: ${JSON.stringify(join(repo, "testdata", "config"))}`,
    "roles:", "  default: viewer", "  groups:", "    authors: {role: mocker}", ""].join("\n"))
  writeFileSync(join(dir, "script.js"), SCRIPT)
  writeFileSync(join(dir, "script.mock.yaml"), MOCKS)
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

// openAs opens the page as the user the proxy names, with the script and
// mocks in place, on the Faults tab.
async function openAs(user, groups) {
  const context = await browser.newContext({viewport: {width: 1400, height: 860},
    extraHTTPHeaders: {"X-Forwarded-User": user, ...(groups ? {"X-Forwarded-Groups": groups} : {})}})
  const page = await context.newPage()
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  await page.addInitScript(([script, mocks]) => {
    localStorage.setItem("restls.designer.v1.scriptService", JSON.stringify({script, input: "", mocks}))
    localStorage.setItem("restls.designer.v1.kind", "scriptService")
  }, [SCRIPT, MOCKS])
  await page.goto(backend.base)
  await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
  await page.waitForFunction(() => window.restlsDesigner && window.restlsDesigner.editor.state.run, null, {timeout: WAIT})
  await page.locator("#tab-faults").click()
  page.errors = errors
  return page
}

// cliRows is restls faults' table for the same script and fixtures:
// [fail, outcome, verdict, detail] per row, and its first line.
function cliTable() {
  const r = spawnSync(bin, ["faults", "--config-root", join(repo, "testdata", "config"), "script.js"], {cwd: dir, encoding: "utf8"})
  assert.equal(r.status, 1, "restls faults fails the crashing script: " + r.stderr)
  const rows = []
  for (const line of r.stdout.split("\n")) {
    const m = /^  (FAIL|    ) (\S+) +(\S+) +(.*)$/.exec(line)
    if (m) rows.push([m[1] === "FAIL" ? "FAIL" : "", m[2], m[3], m[4]])
  }
  return {summary: r.stdout.split("\n")[0], rows}
}

test("Faults tab: a mocker explores from the Mocks tab and sees restls faults' table", async () => {
  const page = await openAs("ann", "authors")
  const explore = page.locator("#faults-explore")
  await assert.doesNotReject(explore.waitFor({state: "visible", timeout: WAIT}))
  assert.equal(await explore.isDisabled(), false, "a mocker may explore")
  const started = Date.now()
  await explore.click()
  await page.locator('#faults[data-state="done"], #faults[data-state="error"]').waitFor({timeout: EXPLORE_WAIT})
  const took = Date.now() - started
  assert.equal(await page.locator("#faults").getAttribute("data-state"), "done", await page.locator("#faults").textContent())
  console.log(`# exploration from the designer: ${took} ms`)

  const rows = await page.locator(".faults-table tbody tr").evaluateAll(trs => trs.map(tr => {
    const cells = [...tr.querySelectorAll("td")].map(td => td.textContent)
    return cells
  }))
  const cli = cliTable()
  assert.ok(cli.rows.length >= 14, `the CLI's table has both call sites' outcomes: ${cli.rows.length}`)
  assert.deepEqual(rows, cli.rows, "the tab's rows are restls faults' rows")
  const summary = await page.locator(".faults-summary").textContent()
  assert.equal(summary.replace(/^\S+: /, ""), cli.summary.replace(/^\S+: /, ""), "the same first line, but for the script's name")
  // The call sites, with their lines; a line moves the editor's cursor.
  const sites = await page.locator(".faults-site").allTextContents()
  assert.equal(sites.length, 2)
  assert.match(sites[0], /^line 3 GET crm-customers path "42"/)
  assert.match(sites[1], /^line 8 GET crm-orders path ""/)
  const crashed = page.locator('.faults-table tr[data-verdict="crashed"]')
  assert.ok(await crashed.count() >= 4, "the unchecked e.status.code crashes on each failure without a status")
  assert.equal(await page.locator("#tab-faults").textContent(), `Faults (${cli.rows.filter(r => r[0]).length})`)
  await page.locator("#pane-faults").screenshot({path: join(shots, "faults.png")})
  await page.screenshot({path: join(shots, "faults-page.png")})
  await page.locator(".faults-line").nth(1).click()
  const cursorLine = await page.evaluate(() => {
    const v = window.restlsDesigner.view
    return v.state.doc.lineAt(v.state.selection.main.head).number
  })
  assert.equal(cursorLine, 8, "the line button moves the cursor to the call site")
  // An exploration may take longer than the editor's request timeout
  // (10 s; here 1 ms): it waits for its own.
  const slow = await page.evaluate(async mock => {
    const c = /** @type {any} */ (window.restlsDesigner.client)
    const before = c.timeout
    c.timeout = 1
    try { return await window.restlsDesigner.editor.exploreFaults({mock, timeout: 60000}) } finally { c.timeout = before }
  }, MOCKS)
  assert.equal(slow.state, "done", slow.message)
  assert.deepEqual(page.errors, [])
  await page.context().close()
})

test("Faults tab: a viewer is told which role exploring needs", async () => {
  const page = await openAs("vera", "")
  const explore = page.locator("#faults-explore")
  assert.equal(await explore.isDisabled(), true)
  assert.match(await page.locator("#faults-reason").textContent(), /role mocker/)
  // Asked anyway (over /lsp), the server refuses: the gate decides, not the page.
  const answer = await page.evaluate(() => window.restlsDesigner.editor.exploreFaults({mock: "- {serviceId: crm-customers, body: {}}\n"}))
  assert.equal(answer.state, "error")
  assert.match(answer.message, /role mocker/)
  await page.context().close()
})
