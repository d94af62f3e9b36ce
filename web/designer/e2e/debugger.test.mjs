// Browser test of the designer's debugger: the real restls binary serves
// the page and /dap on loopback, Debian's chromium (playwright-core)
// clicks a breakpoint into the gutter, presses Debug, reads the
// variables at the stop, steps over and continues; then the same as a
// signed-in viewer, whose Debug is refused with the role it needs.
// Screenshots go to out/e2e-web/ (debug-*.png).
//
// Run with `make e2e-web` (builds bin/restls first). RESTLS_BIN overrides
// the binary, CHROMIUM the browser.
import {test, before, after} from "node:test"
import assert from "node:assert/strict"
import {spawn} from "node:child_process"
import {mkdtempSync, mkdirSync, writeFileSync, rmSync, readFileSync} from "node:fs"
import {tmpdir} from "node:os"
import {join, dirname, resolve} from "node:path"
import {fileURLToPath} from "node:url"
import {chromium} from "playwright-core"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const bin = process.env.RESTLS_BIN || join(repo, "bin", "restls")
const shots = join(repo, "out", "e2e-web")
const WAIT = 20000

// startBackend runs `restls serve --http 127.0.0.1:0 ARGS` and resolves
// with the page address it printed (with the access key in key mode) and
// its base.
function startBackend(args) {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(bin, ["serve", "--http", "127.0.0.1:0", ...args], {stdio: ["ignore", "ignore", "pipe"]})
    let err = ""
    const timer = setTimeout(() => reject(new Error("restls did not start:\n" + err)), WAIT)
    proc.stderr.on("data", d => {
      err += d
      const m = /designer and hints API on ((http:\/\/[^/\s]+)\/\S*)/.exec(err)
      if (m) { clearTimeout(timer); resolveStart({proc, url: m[1], base: m[2] + "/", log: () => err}) }
    })
    proc.on("exit", code => { clearTimeout(timer); reject(new Error(`restls exited ${code}:\n${err}`)) })
  })
}

function stopBackend(b) {
  if (!b || b.proc.exitCode !== null) return Promise.resolve()
  return new Promise(res => {
    b.proc.removeAllListeners("exit")
    b.proc.on("exit", res)
    b.proc.kill("SIGTERM")
  })
}

const SCRIPT = `var id = context.input.id;
var customer = api.rest.v1.get("crm-customers", {pathParams: [String(id)]}, {});
var name = customer.body.name;
var greeting = "Hello, " + name;
return {greeting: greeting};
`
const MOCKS = `- serviceId: crm-customers
  method: GET
  path: "*"
  body: {id: 42, name: Ann Example}
`

let context, keyed, viewer, userDataDir, projectDir

before(async () => {
  mkdirSync(shots, {recursive: true})
  keyed = await startBackend(["--config-root", join(repo, "testdata", "config"), "--allow-run"])
  // Signed in by a proxy: everyone is a viewer (no dry runs, no debug).
  projectDir = mkdtempSync(join(tmpdir(), "restls-dbg-roles-"))
  writeFileSync(join(projectDir, "restls.yaml"), `configRoot: ${join(repo, "testdata", "config")}\nroles:\n  default: viewer\n`)
  viewer = await startBackend(["--project", join(projectDir, "restls.yaml"), "--allow-run", "--auth", "proxy", "--trusted-proxy", "127.0.0.1"])
  userDataDir = mkdtempSync(join(tmpdir(), "restls-chromium-dbg-"))
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run",
      "--disable-component-update", "--disable-sync"],
    viewport: {width: 1280, height: 760},
  })
})

after(async () => {
  await context?.close()
  await Promise.all([stopBackend(keyed), stopBackend(viewer)])
  for (const d of [userDataDir, projectDir]) if (d) rmSync(d, {recursive: true, force: true})
})

// openDesigner loads the page with a fresh store, the script and the
// mocks above in place, and waits for the session.
async function openDesigner(url, headers) {
  const page = await context.newPage()
  if (headers) await page.setExtraHTTPHeaders(headers)
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  await page.addInitScript(([script, mocks]) => {
    localStorage.clear()
    localStorage.setItem("restls.designer.v1.scriptService", JSON.stringify({script, input: '{"id": 42}', mocks}))
  }, [SCRIPT, MOCKS])
  await page.goto(url)
  await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
  await page.waitForFunction(() => window.restlsDesigner && window.restlsDesigner.editor.state.run, null, {timeout: WAIT})
  page.errors = errors
  return page
}

// gutterClick clicks the breakpoint gutter beside 1-based line n.
async function gutterClick(page, n) {
  const box = await page.locator("#editor .cm-line").nth(n - 1).boundingBox()
  const gutter = await page.locator("#editor .cm-restls-breakpoints").boundingBox()
  await page.mouse.click(gutter.x + gutter.width / 2, box.y + box.height / 2)
}

// axeCheck fails on what axe-core calls serious or critical.
const axeSource = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "axe-core", "axe.min.js"), "utf8")
async function axeCheck(page, what) {
  await page.evaluate(axeSource)
  const res = await page.evaluate(() => window.axe.run(document, {resultTypes: ["violations"]}))
  const bad = res.violations.filter(v => v.impact === "serious" || v.impact === "critical")
  assert.deepEqual(bad.map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map(n => n.target.join(" ")).join(", ")}`), [], `axe-core on ${what}`)
}

const stoppedLine = page => page.evaluate(() => {
  const l = document.querySelector("#editor .cm-restls-debug-line")
  return l ? [...document.querySelectorAll("#editor .cm-line")].indexOf(l) + 1 : 0
})

test("Debug stops at a gutter breakpoint, shows the variables, steps over and continues to the result", async () => {
  const page = await openDesigner(keyed.url)
  assert.equal(await page.locator("#debug").isDisabled(), false, "Debug is on where dry runs are")
  await gutterClick(page, 3)
  // The marker (the gutter's first element is its hidden spacer).
  await page.locator("#editor .cm-restls-breakpoint").filter({visible: true}).first().waitFor({timeout: WAIT})
  assert.deepEqual(await page.evaluate(() => window.restlsDesigner.debug.breakpoints), [3])
  const clicked = Date.now()
  await page.locator("#debug").click()
  // Stopped on line 3: the line highlighted, the Debug tab says so.
  await page.locator("#editor .cm-restls-debug-line").waitFor({timeout: WAIT})
  console.log(`# the breakpoint's line highlighted ${Date.now() - clicked} ms after the click on Debug (socket, launch, run, stop, stack and scopes)`)
  assert.equal(await stoppedLine(page), 3)
  await page.locator("#debug-state", {hasText: "Paused at line 3 (breakpoint)"}).waitFor({timeout: WAIT})
  assert.equal(await page.locator("#tab-debug").getAttribute("aria-selected"), "true")
  assert.equal(await page.locator("#debug-controls").isHidden(), false, "the step buttons show while debugging")
  // The Locals scope's top-level rows: name and value.
  const vars = async () => Object.fromEntries(await page.locator('#debug-variables tbody[data-scope="Locals"] tr[data-depth="0"]').evaluateAll(rows =>
    rows.map(r => [r.querySelector("th")?.textContent?.replace(/^[▸▾]\s*/, ""), r.querySelector("td")?.textContent])))
  let v = await vars()
  assert.equal(v.id, "42", JSON.stringify(v))
  assert.ok(v.customer && v.customer !== "undefined", `customer holds the answer: ${JSON.stringify(v)}`)
  assert.equal(v.name, "undefined", "name is not set before its line runs")
  // An object expands on demand: customer's members, then its body's.
  await page.locator('#debug-variables tbody[data-scope="Locals"] tr[data-depth="0"]', {hasText: "customer"}).locator("button.expand").click()
  const body = page.locator('#debug-variables tr[data-depth="1"]', {hasText: "body"})
  await body.waitFor({timeout: WAIT})
  await body.locator("button.expand").click()
  await page.locator('#debug-variables tr[data-depth="2"]', {hasText: "Ann Example"}).waitFor({timeout: WAIT})
  const out = await page.locator("#debug-output").textContent()
  assert.match(out, /→ GET crm-customers/, "the call shows in the debug console")
  await page.screenshot({path: join(shots, "debug-1-stopped.png")})
  await axeCheck(page, "the page stopped at a breakpoint")

  // Step over: line 4, name set.
  await page.locator("#debug-next").click()
  await page.locator("#debug-state", {hasText: "Paused at line 4"}).waitFor({timeout: WAIT})
  assert.equal(await stoppedLine(page), 4)
  v = await vars()
  assert.match(v.name, /Ann Example/)
  await page.screenshot({path: join(shots, "debug-2-step.png")})

  // Continue: the result in the debug console, the session over.
  await page.locator("#debug-continue").click()
  await page.locator("#debug-output", {hasText: "result:"}).waitFor({timeout: WAIT})
  assert.match(await page.locator("#debug-output").textContent(), /result: \{"greeting":"Hello, Ann Example"\}/)
  await page.locator("#debug-controls").waitFor({state: "hidden", timeout: WAIT})
  assert.equal(await stoppedLine(page), 0, "no line highlighted once the run ended")
  assert.equal(await page.locator("#debug").isDisabled(), false)
  await page.screenshot({path: join(shots, "debug-3-done.png")})
  assert.deepEqual(page.errors, [])
  await page.close()
})

test("a viewer's Debug is off, and /dap refuses the launch with the role it needs", async () => {
  const page = await openDesigner(viewer.base, {"X-Forwarded-User": "vera"})
  assert.equal(await page.locator("#debug").isDisabled(), true, "Debug is off where dry runs are")
  assert.match(await page.locator("#run-reason").textContent(), /role/)
  // The socket itself, as a page that ignores the disabled button would use it.
  const answer = await page.evaluate(() => new Promise(res => {
    const ws = new WebSocket(new URL("dap", location.href).href.replace(/^http/, "ws"), ["restls.dap"])
    ws.onopen = () => ws.send(JSON.stringify({seq: 1, type: "request", command: "launch", arguments: {program: "/designer/scriptService/script.js", text: "return 1", fixturesText: "[]"}}))
    ws.onmessage = e => { const m = JSON.parse(e.data); if (m.type === "response") { ws.close(); res(m) } }
    ws.onerror = () => res({success: false, message: "socket error"})
  }))
  assert.equal(answer.success, false)
  assert.match(answer.message, /need the role mocker/)
  await page.screenshot({path: join(shots, "debug-4-viewer.png")})
  await page.close()
})
