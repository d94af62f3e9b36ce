// Browser test of the designer page: the real restls binary serves it on
// loopback, Debian's chromium (driven by playwright-core) types into the
// editor. Screenshots go to out/e2e-web/.
//
// Run with `make e2e-web` (builds bin/restls first). RESTLS_BIN overrides
// the binary, CHROMIUM the browser.
import {test, before, after} from "node:test"
import assert from "node:assert/strict"
import {spawn, spawnSync} from "node:child_process"
import {mkdtempSync, mkdirSync, writeFileSync, rmSync, readFileSync} from "node:fs"
import {tmpdir} from "node:os"
import {join, dirname, resolve} from "node:path"
import {fileURLToPath} from "node:url"
import {createServer} from "node:http"
import {chromium} from "playwright-core"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const bin = process.env.RESTLS_BIN || join(repo, "bin", "restls")
const shots = join(repo, "out", "e2e-web")
const CALLS = ["get", "delete", "post", "put", "patch"]
const WAIT = 15000

// startBackend runs `restls serve --http 127.0.0.1:0` and resolves once it
// says where it listens: url is the page address it printed (with the
// access key), base the same without it.
function startBackend(args, addr = "127.0.0.1:0") {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(bin, ["serve", "--http", addr, ...args], {stdio: ["ignore", "ignore", "pipe"]})
    let err = ""
    const timer = setTimeout(() => reject(new Error("restls did not start:\n" + err)), WAIT)
    proc.stderr.on("data", d => {
      err += d
      // The page address: with the secret that lets the page run scripts.
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

let context, good, broken, hostile, problems, userDataDir, brokenRoot, hostileRoot
// envs serves a project file with two environments, test and prod, whose
// service "orders" is orderService (on loopback) under /test and /prod,
// behind basic credentials the page must never show.
let envs, envRoot, orderService, contract, contractRoot
const orderHits = {test: 0, prod: 0}
const ORDER_SECRET = "0rders-Secret-Pass"

before(async () => {
  mkdirSync(shots, {recursive: true})
  // A config root whose every file fails to parse: the registry fails.
  brokenRoot = mkdtempSync(join(tmpdir(), "restls-broken-"))
  writeFileSync(join(brokenRoot, "application.yml"), "scriptservice:\n  api: [\n")
  mkdirSync(join(brokenRoot, "script-code-config"))
  writeFileSync(join(brokenRoot, "script-code-config", "script-service-api.xml"), "<scriptservice><api serviceId=\"x\"")
  // Descriptions with markup an editor must show as text, never run.
  hostileRoot = mkdtempSync(join(tmpdir(), "restls-hostile-"))
  writeFileSync(join(hostileRoot, "application.yml"), [
    "scriptservice:", "  api:",
    "    - serviceId: evil", "      url: https://evil.example.com",
    `      description: 'Look <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> <a href="javascript:window.pwned=3">here</a>'`,
    ""].join("\n"))
  good = await startBackend(["--config-root", join(repo, "testdata", "config"), "--allow-run"])
  hostile = await startBackend(["--config-root", hostileRoot])
  broken = await startBackend(["--config-root", brokenRoot])
  // One of each common configuration mistake: the Problems tab.
  problems = await startBackend(["--config-root", join(repo, "testdata", "config-broken")])
  orderService = createServer((req, res) => {
    const [, env, ...rest] = req.url.split("?")[0].split("/")
    orderHits[env] = (orderHits[env] || 0) + 1
    res.setHeader("Set-Cookie", "sid=" + ORDER_SECRET)
    if (rest[0] === "note") {
      res.setHeader("Content-Type", "text/plain")
      res.end(`{not json} a plain note from ${env}\nsecond line`)
      return
    }
    res.setHeader("Content-Type", "application/json")
    res.end(JSON.stringify({id: rest[0] || null, env, items: [{sku: "A-1", qty: 2}]}))
  })
  await new Promise(r => orderService.listen(0, "127.0.0.1", r))
  const port = orderService.address().port
  envRoot = mkdtempSync(join(tmpdir(), "restls-envs-"))
  const creds = Buffer.from("orders-robot:" + ORDER_SECRET).toString("base64")
  for (const env of ["test", "prod"]) {
    mkdirSync(join(envRoot, env))
    writeFileSync(join(envRoot, env, "application.yml"), [
      "scriptservice:", "  api:", "    - serviceId: orders", `      url: http://127.0.0.1:${port}/${env}`,
      "      description: Orders of the " + env + " environment",
      "      authorization:", "        type: basic", `        encodedCredentials: ${creds}`, ""].join("\n"))
  }
  writeFileSync(join(envRoot, "restls.yaml"), "environments:\n  test: {configRoot: test}\n  prod: {configRoot: prod}\ndefaultEnvironment: test\n")
  envs = await startBackend(["--project", join(envRoot, "restls.yaml"), "--allow-run"])
  // A description of crm-customers whose answer schema a fixture breaks:
  // the contract note beside the call (issue 27).
  contractRoot = mkdtempSync(join(tmpdir(), "restls-contract-"))
  writeFileSync(join(contractRoot, "crm.yaml"), [
    "openapi: 3.0.3", "info: {title: CRM, version: '1'}", "paths:", "  /{id}:", "    get:",
    "      parameters: [{name: id, in: path, required: true, schema: {type: string}}]",
    "      responses:", "        '200':", "          description: A customer.", "          content:", "            application/json:",
    "              schema:", "                type: object", "                required: [name, tier]", "                properties:",
    "                  name: {type: string}", "                  tier: {type: integer}", ""].join("\n"))
  contract = await startBackend(["--config-root", join(repo, "testdata", "config"), "--allow-run", "--openapi", "crm-customers=" + join(contractRoot, "crm.yaml")])
  userDataDir = mkdtempSync(join(tmpdir(), "restls-chromium-"))
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run",
      "--disable-component-update", "--disable-sync"],
    viewport: {width: 1280, height: 760},
  })
  await context.grantPermissions(["clipboard-read", "clipboard-write"])
})

after(async () => {
  await context?.close()
  await Promise.all([stopBackend(good), stopBackend(broken), stopBackend(hostile), stopBackend(problems), stopBackend(envs), stopBackend(contract)])
  orderService?.close()
  for (const d of [userDataDir, brokenRoot, hostileRoot, envRoot, contractRoot]) if (d) rmSync(d, {recursive: true, force: true})
})

// openDesigner loads the page and waits for the language server session.
async function openDesigner(url) {
  const page = await context.newPage()
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  // Every JSON-RPC message on /lsp, to wait for the server's answers.
  page.lsp = {sent: [], received: [], wake: new Set()}
  const record = (list, f) => {
    try { list.push(JSON.parse(f.payload)) } catch { return }
    for (const w of page.lsp.wake) w()
  }
  // Each new tab starts from the samples: localStorage is emptied once per
  // tab (sessionStorage marks it), so a reload keeps what the test typed.
  await page.addInitScript(() => {
    if (!sessionStorage.getItem("restls.test.fresh")) {
      localStorage.clear()
      sessionStorage.setItem("restls.test.fresh", "1")
    }
  })
  page.on("websocket", ws => {
    ws.on("framesent", f => record(page.lsp.sent, f))
    ws.on("framereceived", f => record(page.lsp.received, f))
  })
  await page.goto(url)
  await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
  // The status notification arrives after initialize.
  await page.waitForFunction(() => window.restlsDesigner && window.restlsDesigner.status, null, {timeout: WAIT})
  page.errors = errors
  return page
}

// fillMocks replaces the Mocks editor's text, as a paste would.
async function fillMocks(page, text) {
  await page.locator("#mocks .cm-content").click()
  await page.keyboard.press("Control+A")
  await page.keyboard.press("Delete")
  await page.keyboard.insertText(text)
}

// typeFresh empties the editor and types text key by key.
async function typeFresh(page, text) {
  await page.locator("#editor .cm-content").click()
  await page.keyboard.press("Control+A")
  await page.keyboard.press("Delete")
  await page.keyboard.type(text, {delay: 15})
}

// waitAnswer waits for the response to the first `method` request sent
// after index `from` of the sent frames.
function waitAnswer(page, from, method) {
  return new Promise((resolveAnswer, reject) => {
    const check = () => {
      const req = page.lsp.sent.slice(from).find(m => m.method === method && m.id !== undefined)
      const res = req && page.lsp.received.find(m => m.id === req.id && !m.method)
      if (res) { done(); resolveAnswer(res) }
    }
    const timer = setTimeout(() => { done(); reject(new Error(`no answer to ${method}`)) }, WAIT)
    const done = () => { clearTimeout(timer); page.lsp.wake.delete(check) }
    page.lsp.wake.add(check)
    check()
  })
}

// completionLabels waits until the completion list shows every label in
// want (typing fast, the list of an earlier keystroke may still be up),
// then returns what it shows; on timeout it returns the last list seen.
async function completionLabels(page, want) {
  const read = () => page.locator(".cm-tooltip-autocomplete li").evaluateAll(items =>
    items.map(li => li.querySelector(".cm-completionLabel")?.textContent ?? li.textContent))
  try {
    await page.waitForFunction(want => {
      const labels = [...document.querySelectorAll(".cm-tooltip-autocomplete li .cm-completionLabel")].map(e => e.textContent)
      return want.every(w => labels.includes(w))
    }, want, {timeout: WAIT})
  } catch {}
  return read()
}

test("api.rest.v1. offers the five calls", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "api.rest.v1.")
  const labels = await completionLabels(page, CALLS)
  for (const c of CALLS) assert.ok(labels.includes(c), `completion ${JSON.stringify(labels)} lacks ${c}`)
  assert.equal(await page.locator(".cm-restls-nohints").count(), 0, "no-hints notice shown with a working registry")
  await page.screenshot({path: join(shots, "1-calls.png")})
  assert.deepEqual(page.errors, [])
  await page.close()
})

test("the first argument of get offers the configured serviceIds, with signature help", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, 'api.rest.v1.get("')
  const ids = ["crm", "crm-customers", "geo", "payments"]
  const labels = await completionLabels(page, ids)
  for (const id of ids) assert.ok(labels.includes(id), `completion ${JSON.stringify(labels)} lacks ${id}`)
  // Signature help for the call, with the active parameter. "(" triggers
  // it, but the answer may come after the next keystroke and be dropped as
  // stale; ask explicitly (Ctrl-Shift-Space, the editor's key for it).
  await page.keyboard.press("Control+Shift+Space")
  const sig = page.locator(".cm-lsp-signature-tooltip")
  await sig.waitFor({timeout: WAIT})
  assert.match(await sig.textContent(), /serviceId/)
  await page.screenshot({path: join(shots, "2-serviceids.png")})
  await page.close()
})

test("an unknown serviceId is underlined with a diagnostic, and hover explains a call", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText('var r = api.rest.v1.get("crm-custmers", {}, {});\n')
  const bad = page.locator("#editor .cm-lintRange-error")
  await bad.first().waitFor({timeout: WAIT})
  assert.match(await bad.first().textContent(), /crm-custmers/)
  await bad.first().hover()
  const tip = page.locator(".cm-tooltip-lint, .cm-diagnostic")
  await tip.first().waitFor({timeout: WAIT})
  assert.match(await tip.first().textContent(), /unknown serviceId "crm-custmers".*crm-customers/)
  await page.screenshot({path: join(shots, "3-diagnostic.png")})
  // Hover on the call name.
  await page.mouse.move(0, 0)
  await page.locator("#editor .cm-line", {hasText: "api.rest.v1.get"}).first().locator("text=get").first().hover().catch(() => {})
  const hover = page.locator(".cm-lsp-hover-tooltip")
  if (await hover.count() === 0) {
    // Fall back to the coordinates of "get" in the text.
    const box = await page.evaluate(() => {
      const v = window.restlsDesigner.view
      const pos = v.state.doc.toString().indexOf(".get(") + 2
      const c = v.coordsAtPos(pos)
      return {x: c.left + 2, y: (c.top + c.bottom) / 2}
    })
    await page.mouse.move(box.x, box.y, {steps: 4})
  }
  await hover.first().waitFor({timeout: WAIT})
  assert.match(await hover.first().textContent(), /GET/)
  await page.screenshot({path: join(shots, "4-hover.png")})
  await page.close()
})

test("the kind selector switches to the script tasks' registry, and Dry Run previews the result", async () => {
  const page = await openDesigner(good.url)
  await page.selectOption("#kind", "scriptTask")
  await typeFresh(page, 'api.rest.v1.get("')
  const labels = await completionLabels(page, ["archive", "crm-sync"])
  assert.ok(labels.includes("crm-sync") && !labels.includes("crm-customers"), `scriptTask completion ${JSON.stringify(labels)}`)
  assert.match(await page.locator("#services").textContent(), /6 services/)
  await page.screenshot({path: join(shots, "5-scripttask.png")})

  // A script that calls nothing: the preview shows the run's result.
  await typeFresh(page, "")
  await page.keyboard.insertText('console.log("hello from the designer");\nreturn {answer: 42};\n')
  await page.click("#run")
  const preview = page.locator('#preview[data-state="done"]')
  await preview.waitFor({timeout: WAIT})
  const text = await preview.textContent()
  assert.match(text, /"answer": 42/)
  assert.match(text, /hello from the designer/)
  await page.screenshot({path: join(shots, "6-dry-run.png")})
  await page.close()
})

test("the page from the printed address runs a dry run; without the key it runs nothing", async () => {
  assert.match(good.url, /\?access_token=[\w-]{20,}$/, "the printed address carries no key")
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText("return {keyed: true};\n")
  await page.click("#run")
  await page.locator('#preview[data-state="done"]').waitFor({timeout: WAIT})
  assert.match(await page.locator("#preview").textContent(), /"keyed": true/)
  await page.close()

  // The bare address (a fresh tab: nothing kept): hints work, runs do not.
  const bare = await openDesigner(good.base)
  await typeFresh(bare, "api.rest.v1.")
  const labels = await completionLabels(bare, CALLS)
  for (const c of CALLS) assert.ok(labels.includes(c), `completion without the key ${JSON.stringify(labels)} lacks ${c}`)
  // Dry Run is off, and says why.
  await bare.locator("#run-reason", {hasText: "access key"}).waitFor({timeout: WAIT})
  assert.ok(await bare.locator("#run").isDisabled(), "Dry Run enabled without the access key")
  await bare.screenshot({path: join(shots, "11-no-key.png")})
  await bare.close()
})

test("markup in a service description is shown inert", async () => {
  const page = await openDesigner(hostile.url)
  await typeFresh(page, 'api.rest.v1.get("')
  const labels = await completionLabels(page, ["evil"])
  assert.ok(labels.includes("evil"), `completion ${JSON.stringify(labels)}`)
  // The documentation of the selected item shows the description.
  const doc = page.locator(".cm-completionInfo")
  await doc.waitFor({timeout: WAIT})
  assert.match(await doc.textContent(), /Look/)
  // Hover on the serviceId renders it too.
  await page.keyboard.press("Escape")
  await typeFresh(page, "")
  await page.keyboard.insertText('var r = api.rest.v1.get("evil", {}, {});\n')
  const box = await page.evaluate(() => {
    const v = window.restlsDesigner.view
    const c = v.coordsAtPos(v.state.doc.toString().indexOf("evil") + 2)
    return {x: c.left + 2, y: (c.top + c.bottom) / 2}
  })
  await page.mouse.move(0, 0)
  await page.mouse.move(box.x, box.y, {steps: 4})
  try {
    await page.locator(".cm-lsp-hover-tooltip").first().waitFor({timeout: WAIT})
  } finally {
    await page.screenshot({path: join(shots, "9-inert-markup.png")})
  }
  assert.equal(await page.evaluate(() => window.pwned), undefined, "markup from a description ran")
  assert.equal(await page.locator(".cm-tooltip img[onerror], .cm-tooltip script, .cm-tooltip a[href^='javascript']").count(), 0)
  await page.close()
})

test("the page reconnects when the backend restarts", async () => {
  const first = await startBackend(["--config-root", join(repo, "testdata", "config")])
  let second
  try {
    const page = await openDesigner(first.url)
    await stopBackend(first)
    await page.locator('#connection[data-state="reconnecting"]').waitFor({timeout: WAIT})
    // The editor says so too, in words.
    await page.locator(".cm-restls-reconnecting", {hasText: "reconnecting"}).waitFor({timeout: WAIT})
    await page.screenshot({path: join(shots, "12-reconnecting.png")})
    const port = new URL(first.url).port
    second = await startBackend(["--config-root", join(repo, "testdata", "config")], `127.0.0.1:${port}`)
    await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
    await page.locator(".cm-restls-reconnecting").waitFor({state: "detached", timeout: WAIT})
    await typeFresh(page, "api.rest.v1.")
    const labels = await completionLabels(page, CALLS)
    for (const c of CALLS) assert.ok(labels.includes(c), `after reconnecting: completion ${JSON.stringify(labels)} lacks ${c}`)
    await page.close()
  } finally {
    await stopBackend(second)
  }
})

test("with the registry broken: a visible notice, no serviceIds, calls still complete", async () => {
  const page = await openDesigner(broken.url)
  const notice = page.locator(".cm-restls-nohints")
  await notice.waitFor({state: "visible", timeout: WAIT})
  assert.match(await notice.textContent(), /No serviceId hints/)
  await typeFresh(page, "api.rest.v1.")
  const labels = await completionLabels(page, CALLS)
  for (const c of CALLS) assert.ok(labels.includes(c), `completion ${JSON.stringify(labels)} lacks ${c}`)
  await page.screenshot({path: join(shots, "7-broken-calls.png")})

  await typeFresh(page, 'api.rest.v1.get("')
  // Ask explicitly and wait for the server's answer to that request.
  const asked = page.lsp.sent.length
  await page.keyboard.press("Control+Space")
  const answer = await waitAnswer(page, asked, "textDocument/completion")
  const items = (answer.result && (answer.result.items || answer.result)) || []
  assert.deepEqual(items.map(i => i.label), [], "the server offered items in the serviceId argument")
  const ids = await page.locator(".cm-tooltip-autocomplete li").evaluateAll(items => items.map(li => li.textContent))
  for (const id of ["crm", "crm-customers", "geo"]) assert.ok(!ids.some(l => l.startsWith(id)), `serviceId ${id} offered: ${JSON.stringify(ids)}`)
  await page.keyboard.press("Control+Shift+Space")
  await page.locator(".cm-lsp-signature-tooltip").waitFor({timeout: WAIT})
  await page.screenshot({path: join(shots, "8-broken-no-serviceids.png")})
  await page.close()
})

test("with a --registry-url that does not answer: the notice says why, calls still complete", async () => {
  const dead = await startBackend(["--registry-url", "http://127.0.0.1:1"])
  try {
    const page = await openDesigner(dead.url)
    const notice = page.locator(".cm-restls-nohints")
    await notice.waitFor({state: "visible", timeout: WAIT})
    assert.match(await notice.textContent(), /No serviceId hints: .*registryUrl http:\/\/127\.0\.0\.1:1/)
    await typeFresh(page, "api.rest.v1.")
    const labels = await completionLabels(page, CALLS)
    for (const c of CALLS) assert.ok(labels.includes(c), `completion ${JSON.stringify(labels)} lacks ${c}`)
    await page.screenshot({path: join(shots, "10-registry-url-down.png")})
    await page.close()
  } finally {
    await stopBackend(dead)
  }
})

// tab opens one of the page's tabs with the keyboard, as a keyboard user
// would: focus the selected tab, then arrows.
async function openTab(page, name) {
  await page.locator(`#tab-${name}`).click()
  await page.locator(`#pane-${name}`).waitFor({state: "visible", timeout: WAIT})
}

// axeCheck runs axe-core in the page and fails on serious or critical
// violations. The page's CSP allows only its own scripts; evaluate runs
// outside it.
const axeSource = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "axe-core", "axe.min.js"), "utf8")
async function axeCheck(page, what) {
  await page.evaluate(axeSource)
  const res = await page.evaluate(() => window.axe.run(document, {resultTypes: ["violations"]}))
  const bad = res.violations.filter(v => v.impact === "serious" || v.impact === "critical")
  assert.deepEqual(bad.map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map(n => n.target.join(" ") + " [" + n.failureSummary + "]").join(", ")}`), [],
    `axe-core on ${what}`)
}

test("a quick fix is applied from the lightbulb's menu with the keyboard", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText('var r = api.rest.v1.get("crm-custmers", {}, {});\n')
  await page.locator("#editor .cm-lintRange-error").first().waitFor({timeout: WAIT})
  // The cursor into the wrong serviceId: the lightbulb appears on its line.
  await page.evaluate(() => {
    const v = window.restlsDesigner.view
    v.dispatch({selection: {anchor: v.state.doc.toString().indexOf("custmers") + 2}})
    v.focus()
  })
  const bulb = page.locator(".cm-restls-lightbulb >> visible=true")
  await bulb.waitFor({timeout: WAIT})
  assert.match(await bulb.getAttribute("aria-label"), /quick fix/)
  await page.keyboard.press("Control+.")
  const menu = page.locator(".cm-restls-fixes")
  await menu.waitFor({timeout: WAIT})
  assert.match(await menu.textContent(), /Change to "?crm-customers/)
  await page.screenshot({path: join(shots, "13-quick-fix.png")})
  // The first item has the focus: Enter applies it.
  await page.keyboard.press("Enter")
  await page.waitForFunction(() => window.restlsDesigner.view.state.doc.toString().includes('"crm-customers"'), null, {timeout: WAIT})
  await page.locator("#editor .cm-lintRange-error").waitFor({state: "detached", timeout: WAIT})
  assert.deepEqual(page.errors, [])
  await page.close()
})

test("the Problems tab lists the broken configuration's diagnostics, and shows one when picked", async () => {
  const page = await openDesigner(problems.url)
  await openTab(page, "problems")
  const items = page.locator("#problems .problem")
  await items.first().waitFor({timeout: WAIT})
  const n = await items.count()
  assert.match(await page.locator("#tab-problems").textContent(), new RegExp(`Problems \\(${n}\\)`))
  const texts = await items.allTextContents()
  // Paths relative to the configuration root, with line and column.
  assert.ok(texts.some(t => /config\.xml:6:7 .*connection-timeout default 20000 ms/.test(t)), texts.join("\n"))
  assert.ok(texts.some(t => /script-code-config\/script-service-api\.xml:\d+:\d+ /.test(t)), texts.join("\n"))
  assert.ok(!texts.some(t => t.includes(repo)), "an absolute path in the Problems tab")
  // Every diagnostic the CLI reports for some kind is listed, once.
  const cliLines = new Set()
  for (const kind of ["scriptService", "scriptTask", "validationScript"]) {
    const cli = spawnSync(bin, ["services", "--kind", kind, "--config-root", join(repo, "testdata", "config-broken")], {encoding: "utf8"})
    for (const l of (cli.stdout + cli.stderr).split("\n")) if (/: (error|warning|info|hint): /.test(l)) cliLines.add(l)
  }
  const cliCount = cliLines.size
  assert.equal(n, cliCount, `Problems lists ${n}, restls services reports ${cliCount}`)
  // Keyboard: Tab to the first problem, Enter shows it.
  await items.first().focus()
  await page.keyboard.press("Enter")
  const detail = page.locator("#problem-detail")
  await detail.locator("h3").waitFor({timeout: WAIT})
  assert.equal(await detail.locator("h3").textContent(), (await items.first().locator(".loc").textContent()))
  assert.match(await detail.textContent(), /Code/)
  // Dry Run is off here (no --allow-run), and says why.
  assert.ok(await page.locator("#run").isDisabled())
  assert.match(await page.locator("#run-reason").textContent(), /--allow-run/)
  await page.screenshot({path: join(shots, "14-problems.png")})
  await axeCheck(page, "the Problems tab")
  await page.close()
})

test("Input is the script's context.input; invalid JSON is flagged and not run", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText("return {who: context.input.who, n: context.input.n + 1};\n")
  await openTab(page, "input")
  await page.locator("#input").fill('{"who": "the Input tab", "n": 41}')
  assert.match(await page.locator("#input-state").textContent(), /Valid JSON/)
  await page.keyboard.press("Control+Enter")
  const preview = page.locator('#preview[data-state="done"]')
  await preview.waitFor({timeout: WAIT})
  assert.match(await preview.textContent(), /"who": "the Input tab"/)
  assert.match(await preview.textContent(), /"n": 42/)
  // Broken JSON: marked (aria-invalid and words), and Dry Run goes back to it.
  await openTab(page, "input")
  await page.locator("#input").fill('{"who": ')
  assert.equal(await page.locator("#input").getAttribute("aria-invalid"), "true")
  assert.match(await page.locator("#input-state").textContent(), /Not valid JSON/)
  await openTab(page, "preview")
  await page.click("#run")
  await page.locator("#pane-input").waitFor({state: "visible", timeout: WAIT})
  await page.close()
})

test("a dry run with pasted mocks renders the preview, copies a call as cURL, and marks an error in the script", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText([
    'var c = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {"X-Partner-Api-Key": "partner-secret-1234"});',
    'console.log("customer " + c.body.name);',
    'return {name: c.body.name, status: c.status.code};', ""].join("\n"))
  await openTab(page, "mocks")
  await fillMocks(page, [
    "- serviceId: crm-customers", "  method: GET", '  path: "42"', "  status: 200",
    "  headers: {X-Source: pasted, X-Evil: '\"><img src=x onerror=\"window.pwned=1\">'}", "  body:", "    name: Pasted Person", "    tags: [a, b]",
    "    bio: '<script>window.pwned=2</script>'", ""].join("\n"))
  assert.match(await page.locator("#tab-mocks").textContent(), /Mocks \(on\)/)
  assert.ok(await page.locator("#use-mocks").isChecked(), "the first run of a session does not use the mocks the tab holds")
  await page.locator("#mocks .cm-content").press("Control+Enter")
  const preview = page.locator('#preview[data-state="done"]')
  await preview.waitFor({timeout: WAIT})
  const text = await preview.textContent()
  assert.match(text, /Ran with mocks/)
  assert.match(text, /"name": "Pasted Person"/)
  assert.match(text, /customer Pasted Person/)
  const call = page.locator(".restls-call").first()
  assert.match(await call.locator(":scope > summary").textContent(), /GET\s*crm-customers\s*200 OK/)
  assert.match(await call.textContent(), /https:\/\/crm\.example\.com\/api\/v2\/customers\/42/)
  assert.match(await call.textContent(), /x-source\s*pasted/)
  // Hostile values are text; the secret header arrives masked by the server.
  assert.match(await call.textContent(), /x-evil\s*"><img src=x onerror="window\.pwned=1">/)
  assert.match(await call.textContent(), /"bio": "<script>window\.pwned=2<\/script>"/)
  assert.equal(await page.locator("#preview img, #preview script").count(), 0, "markup from a run reached the DOM")
  assert.equal(await page.evaluate(() => window.pwned), undefined, "markup from a run ran")
  assert.match(await call.textContent(), /X-Partner-Api-Key\s*\*\*\*/)
  assert.doesNotMatch(text, /partner-secret-1234/)
  // Folding: the body's object folds.
  const fold = call.locator(".restls-json details").first()
  assert.equal(await fold.getAttribute("open"), "")
  await page.screenshot({path: join(shots, "15-preview-mocks.png")})
  await call.locator("button.restls-copy").click()
  await call.locator(".restls-copy-status", {hasText: "Copied"}).waitFor({timeout: WAIT})
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  // The secret header is a shell variable, named in a comment above the command.
  assert.match(copied, /^# set RESTLS_X_PARTNER_API_KEY_CRM_CUSTOMERS .*\ncurl .*https:\/\/crm\.example\.com\/api\/v2\/customers\/42/)
  assert.doesNotMatch(copied, /partner-secret-1234/)
  await axeCheck(page, "the preview of a run with calls")

  // An uncaught error: its position in the preview, and marked in the editor.
  await typeFresh(page, "")
  await page.keyboard.insertText('var x = 1;\nnull.foo;\n')
  await page.keyboard.press("Control+Enter")
  await page.locator('#preview[data-state="done"] .restls-error').waitFor({timeout: WAIT})
  assert.match(await page.locator("#preview").textContent(), /Uncaught TypeError/)
  const marked = page.locator(".cm-restls-run-error-line")
  await marked.waitFor({timeout: WAIT})
  assert.match(await marked.textContent(), /null\.foo.*TypeError/)
  await page.locator(".restls-pos").click()
  const line = await page.evaluate(() => { const v = window.restlsDesigner.view; return v.state.doc.lineAt(v.state.selection.main.head).number })
  assert.equal(line, 2)
  await page.screenshot({path: join(shots, "16-error-marked.png")})
  await page.close()
})

test("Paste curl inserts the api.rest.v1 call at the cursor through restls.pasteCurl; a URL no service matches says what to configure", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "var r = ")
  const curl = "curl 'https://registry.example.gov/api/companies/42?fields=name' \\\n  -H 'Authorization: Basic dXNlcjpwYXNz' -H 'X-Trace: 1' --compressed"
  await page.evaluate(t => navigator.clipboard.writeText(t), curl)
  const sent = page.lsp.sent.length
  await page.click("#paste-curl")
  // The dialog starts from the clipboard's command.
  await page.waitForFunction(t => document.getElementById("curl-text").value === t, curl, {timeout: WAIT})
  await page.screenshot({path: join(shots, "14-paste-curl.png")})
  await page.click("#curl-insert")
  await page.locator("#curl-dialog").waitFor({state: "hidden", timeout: WAIT})
  const answer = await waitAnswer(page, sent, "workspace/executeCommand")
  assert.equal(answer.result.serviceId, "registry", JSON.stringify(answer))
  const text = await page.evaluate(() => window.restlsDesigner.view.state.doc.toString())
  assert.equal(text, 'var r = // restls: The Authorization header is left out: serviceId "registry" has basic authorization configured, which replaces it.\n' +
    'api.rest.v1.get("registry", {pathParams: ["companies", "42"], queryParams: {fields: "name"}}, {"X-Trace": "1"});')
  assert.ok(!text.includes("dXNlcjpwYXNz"), "the pasted credential is in the script")

  // A URL no service of the kind matches: the server's advice in the
  // dialog, which stays open; the script is unchanged.
  await page.click("#paste-curl")
  await page.fill("#curl-text", "curl https://elsewhere.example.com/v1/things/7")
  await page.click("#curl-insert")
  await page.locator("#curl-error").filter({hasText: "configure one with url https://elsewhere.example.com/v1/things"}).waitFor({timeout: WAIT})
  assert.ok(await page.locator("#curl-dialog").isVisible())
  assert.equal(await page.evaluate(() => window.restlsDesigner.view.state.doc.toString()), text)
  await page.keyboard.press("Escape")
  await page.locator("#curl-dialog").waitFor({state: "hidden", timeout: WAIT})
  assert.deepEqual(page.errors, [])
  await page.close()
})

test("a broken fixture document is refused with its line, before anything runs", async () => {
  const page = await openDesigner(good.url)
  await openTab(page, "mocks")
  await fillMocks(page, "- serviceId: crm\n  status: nope\n")
  await page.click("#run")
  const err = page.locator('#preview[data-state="error"]')
  await err.waitFor({timeout: WAIT})
  assert.match(await err.textContent(), /HTTP 400.*pasted mocks:2:11: fixture 1/)
  await page.close()
})

test("script, input and mocks survive a reload, per kind", async () => {
  const page = await openDesigner(good.url)
  await page.selectOption("#kind", "scriptTask")
  await typeFresh(page, "")
  await page.keyboard.insertText("// kept across reloads\nreturn 7;\n")
  await openTab(page, "input")
  await page.locator("#input").fill('{"kept": true}')
  await openTab(page, "mocks")
  await fillMocks(page, "[]")
  await page.selectOption("#kind", "scriptService")
  await typeFresh(page, "")
  await page.keyboard.insertText("// the service script\n")
  await page.selectOption("#kind", "scriptTask")
  await page.reload()
  await page.locator('#connection[data-state="connected"]').waitFor({timeout: WAIT})
  assert.equal(await page.locator("#kind").inputValue(), "scriptTask")
  assert.equal(await page.evaluate(() => window.restlsDesigner.view.state.doc.toString()), "// kept across reloads\nreturn 7;\n")
  assert.equal(await page.locator("#input").inputValue(), '{"kept": true}')
  assert.equal(await page.evaluate(() => window.restlsDesigner.mocks), "[]")
  await page.selectOption("#kind", "scriptService")
  assert.equal(await page.evaluate(() => window.restlsDesigner.view.state.doc.toString()), "// the service script\n")
  // The key left the address bar but the tab still has it: runs work.
  assert.ok(!page.url().includes("access_token"), page.url())
  assert.ok(await page.locator("#run").isEnabled())
  await page.close()
})

test("keyboard only: tabs with arrows, focus visible, and axe-core finds nothing serious", async () => {
  const page = await openDesigner(good.url)
  await page.locator("#tab-preview").focus()
  await page.keyboard.press("ArrowRight")
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-input")
  assert.equal(await page.locator("#tab-input").getAttribute("aria-selected"), "true")
  assert.ok(await page.locator("#pane-input").isVisible())
  // The focused tab has a visible outline.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle)
  assert.notEqual(outline, "none")
  await page.keyboard.press("End")
  assert.equal(await page.evaluate(() => document.activeElement.id), await page.locator('[role="tab"]').last().getAttribute("id"), "End goes to the last tab")
  await page.keyboard.press("Home")
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-preview")
  await page.screenshot({path: join(shots, "17-keyboard.png")})
  await axeCheck(page, "the page as it opens")
  for (const t of ["input", "mocks", "debug", "problems"]) {
    await openTab(page, t)
    await axeCheck(page, `the ${t} tab`)
  }
  await page.close()
})

test("Record turns a live run into the Mocks; a live run says what it calls first; the environment switches", async () => {
  const page = await openDesigner(envs.url)
  // Two environments: the switch shows the current one before any run.
  await page.locator("#env-switch:not([hidden])").waitFor({timeout: WAIT})
  assert.equal(await page.locator("#env").inputValue(), "test")
  assert.deepEqual(await page.locator("#env option").allTextContents(), ["prod", "test"])
  // Long lines wrap in both editors.
  assert.equal(await page.locator("#editor .cm-content.cm-lineWrapping").count(), 1)
  await typeFresh(page, "")
  await page.keyboard.insertText([
    'var o = api.rest.v1.get("orders", {pathParams: ["7"]}, {});',
    "var note;",
    'try { api.rest.v1.get("orders", {pathParams: ["note"]}, {}); } catch (e) { note = e.code; }',
    "return {id: o.body.id, env: o.body.env, note: note};", ""].join("\n"))
  assert.ok(!await page.locator("#use-mocks").isChecked())
  assert.match(await page.locator("#run-mode").textContent(), /live in test/)

  // Record: first the confirmation, naming the service, the environment and the kind of credentials.
  await page.click("#record")
  const dialog = page.locator("#live-confirm[open]")
  await dialog.waitFor({timeout: WAIT})
  const asked = await dialog.textContent()
  assert.match(asked, /Environment: test/)
  assert.match(asked, /orders \(2 calls\)/)
  assert.match(asked, /basic credentials/)
  assert.doesNotMatch(asked, new RegExp(ORDER_SECRET))
  assert.equal(orderHits.test, 0, "a service was called before the confirmation")
  await page.screenshot({path: join(shots, "18-live-confirm.png")})
  await page.click("#live-go")
  const preview = page.locator('#preview[data-state="done"]')
  await preview.waitFor({timeout: WAIT})
  assert.equal(orderHits.test, 2)
  assert.match(await preview.textContent(), /Ran live and recorded/)
  // The text answer is shown as the text it is, not parsed as JSON.
  const textBody = page.locator(".restls-call").nth(1).locator("pre.restls-text")
  await page.locator(".restls-call").nth(1).evaluate(d => { d.open = true })
  assert.match(await textBody.textContent(), /\{not json\} a plain note from test\nsecond line/)
  await textBody.scrollIntoViewIfNeeded()
  await page.screenshot({path: join(shots, "19-recorded-preview.png")})

  // The Mocks hold the answers: YAML, highlighted, no credential.
  await openTab(page, "mocks")
  const mocks = await page.evaluate(() => window.restlsDesigner.mocks)
  assert.match(mocks, /^# Fixtures recorded from a live run \(the designer.s Record\)/)
  assert.match(mocks, /serviceId: orders[\s\S]*path: .7.\n[\s\S]*env: test/)
  assert.match(mocks, /bodyText:/)
  assert.doesNotMatch(mocks, new RegExp(ORDER_SECRET))
  assert.doesNotMatch(mocks, new RegExp(Buffer.from("orders-robot:" + ORDER_SECRET).toString("base64")))
  assert.doesNotMatch(mocks, /set-cookie/i)
  assert.match(await page.locator("#mocks-state").textContent(), /Recorded 2 fixtures from a live run in test/)
  assert.ok(await page.locator("#use-mocks").isChecked())
  assert.ok(await page.locator("#mocks .cm-content span[class]").count() > 3, "the YAML is not highlighted")
  await page.screenshot({path: join(shots, "20-recorded-mocks.png")})

  // A run now uses them: the service is not called again, and no confirmation.
  await page.click("#run")
  await page.locator('#preview[data-state="done"]').waitFor({timeout: WAIT})
  assert.match(await page.locator("#preview").textContent(), /Ran with mocks/)
  assert.match(await page.locator("#preview").textContent(), /"env": "test"/)
  assert.equal(orderHits.test, 2)

  // The server's checks of the fixture format, at their line, as typed.
  await openTab(page, "mocks")
  // A fixture for a serviceId the kind does not configure: a warning on its line.
  await fillMocks(page, mocks + "- serviceId: Orders\n  status: 200\n")
  await page.locator("#mocks .cm-lint-marker-warning").waitFor({timeout: WAIT})
  await page.locator("#mocks .cm-lintRange-warning").first().hover()
  await page.locator(".cm-tooltip-lint", {hasText: "did you mean orders"}).waitFor({timeout: WAIT})
  await page.screenshot({path: join(shots, "21-mocks-warning.png")})
  // A value of the wrong type: an error at its line, and a run would be refused.
  await fillMocks(page, mocks.replace(/status: 200/, "status: nope"))
  await page.locator("#mocks .cm-lint-marker-error").waitFor({timeout: WAIT})
  assert.match(await page.locator("#mocks-state").textContent(), /1 problem/)
  await axeCheck(page, "the Mocks editor with diagnostics")
  await page.locator("#mocks .cm-lintRange-error").first().hover()
  await page.locator(".cm-tooltip-lint", {hasText: "nope"}).waitFor({timeout: WAIT})
  await page.screenshot({path: join(shots, "21-mocks-error.png")})

  // Another environment: hints and runs use it, and it asks again.
  await page.selectOption("#env", "prod")
  await page.locator("#use-mocks").uncheck()
  assert.match(await page.locator("#run-mode").textContent(), /live in prod/)
  await page.click("#run")
  await dialog.waitFor({timeout: WAIT})
  assert.match(await dialog.textContent(), /Environment: prod/)
  await page.screenshot({path: join(shots, "22-prod-confirm.png")})
  // Cancel runs nothing, and the next run asks again.
  await page.locator("#live-confirm button[value=cancel]").click()
  await dialog.waitFor({state: "detached", timeout: WAIT}).catch(() => {})
  assert.equal(await page.locator("#live-confirm[open]").count(), 0)
  assert.equal(orderHits.prod, 0)
  await page.click("#run")
  await dialog.waitFor({timeout: WAIT})
  await page.click("#live-go")
  await page.locator('#preview[data-state="done"]').waitFor({timeout: WAIT})
  assert.match(await page.locator("#preview").textContent(), /"env": "prod"/)
  assert.equal(orderHits.prod, 2)
  // Once per session and environment: the next live run goes at once.
  await page.click("#run")
  await page.locator('#preview[data-state="done"]').waitFor({timeout: WAIT})
  assert.equal(orderHits.prod, 4)
  assert.equal(await page.locator("#live-confirm[open]").count(), 0)
  assert.deepEqual(page.errors, [])
  await page.close()
})

test("an error box keeps its caret under the column; Problems says when there are none", async () => {
  const page = await openDesigner(good.url)
  await openTab(page, "problems")
  await page.locator("#problems-summary", {hasText: "No configuration problems"}).waitFor({timeout: WAIT})
  // The shipped example's <id>/<suffix> entries that drop their base's
  // credentials are notes (service-reference-no-auth), listed, not counted
  // as problems.
  assert.match(await page.locator("#problems-summary").textContent(), /^✓ No configuration problems; \d+ notes?\./)
  assert.equal(await page.locator("#tab-problems").textContent(), "Problems")
  assert.match(await page.locator("#problems .problem").first().textContent(), /^Info .*service-reference-no-auth$/, "the notes are listed")
  await typeFresh(page, "")
  // Tabs and wide characters before the column, and a line longer than the pane.
  await page.keyboard.insertText('var s = 1;\n\t\tvar x = "日本語テキスト" + "' + "-".repeat(8) + '" + nope + "' + "-".repeat(80) + '";\n')
  await page.click("#run")
  await page.locator('#preview[data-state="done"] .restls-error').waitFor({timeout: WAIT})
  const {off, ch} = await page.evaluate(() => {
    const pre = document.querySelector(".restls-error pre.restls-source")
    const text = pre.firstChild
    const chars = Array.from(text.textContent)
    // The caret stands after the hidden copy of the text before it.
    const idx = Array.from(pre.querySelector(".restls-caret-pad").textContent).length
    const at = chars.slice(0, idx).join("").length
    const r = document.createRange()
    r.setStart(text, at)
    r.setEnd(text, at + chars[idx].length)
    return {off: Math.abs(r.getBoundingClientRect().left - pre.querySelector(".restls-caret").getBoundingClientRect().left), ch: chars[idx]}
  })
  assert.equal(ch, "n", "the error's column is not at nope")
  assert.ok(off < 2, `the caret is ${off}px away from its character`)
  await page.locator(".restls-error pre.restls-source").scrollIntoViewIfNeeded()
  await page.screenshot({path: join(shots, "23-caret.png")})
  await page.close()
})

test("an answer that breaks the service's API description shows a contract note beside its call", async () => {
  const page = await openDesigner(contract.url)
  await typeFresh(page, "")
  await page.keyboard.insertText('var c = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {});\nreturn c.body.name;\n')
  await openTab(page, "mocks")
  await fillMocks(page, ["- serviceId: crm-customers", "  method: GET", '  path: "42"', "  status: 200",
    "  body:", "    name: Pasted Person", "    tier: gold", ""].join("\n"))
  await page.locator("#mocks .cm-content").press("Control+Enter")
  const preview = page.locator('#preview[data-state="done"]')
  await preview.waitFor({timeout: WAIT})
  assert.match(await preview.textContent(), /"Pasted Person"/, "the run still answers: a contract note never fails it")
  const call = page.locator(".restls-call").first()
  assert.match(await call.locator(":scope > summary").textContent(), /\? contract \(1\)/)
  await call.evaluate(d => { d.open = true })
  const note = call.locator(".restls-contract li").first()
  await note.waitFor({timeout: WAIT})
  assert.match(await note.textContent(), /\? contract \(type\)/)
  assert.match(await note.textContent(), /tier/)
  await page.screenshot({path: join(shots, "24-contract.png")})
  await page.close()
})

// The last run's values (issue 35): after Dry Run, the value each variable
// was last given is written at the end of its line, as the server's run
// answered it; editing a line drops that line's values, the rest stay.
test("Dry Run writes the last run's values beside their lines; an edited line loses them", async () => {
  const page = await openDesigner(good.url)
  await typeFresh(page, "")
  await page.keyboard.insertText([
    'var c = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {});',
    "var name = c.body.name;",
    "var n = 1;",
    "n += 41;",
    "return {name: name, n: n};", ""].join("\n"))
  await openTab(page, "mocks")
  await fillMocks(page, ["- serviceId: crm-customers", "  method: GET", '  path: "42"', "  status: 200",
    "  body:", "    name: Ada", ""].join("\n"))
  await page.click("#run")
  await page.locator('#preview[data-state="done"]').waitFor({timeout: WAIT})
  const values = page.locator(".cm-restls-run-values")
  await values.nth(3).waitFor({timeout: WAIT})
  // Each line's text, and the values written at its end.
  const lineValues = () => page.locator("#editor .cm-line").evaluateAll(lines => lines.map(l =>
    [...l.querySelectorAll(".cm-restls-run-values")].map(v => v.textContent).join(" | ")))
  const before = await lineValues()
  assert.equal(before[1], 'name = "Ada"', before.join("\n"))
  assert.equal(before[2], "n = 1", before.join("\n"))
  assert.equal(before[3], "n = 42", before.join("\n"))
  assert.match(before[0], /^c = \{status: \{code: 200, message: "OK"\}/, before.join("\n"))
  assert.equal(before[4], "", "a return gives no value")
  await page.locator("#editor").screenshot({path: join(shots, "25-run-values.png")})
  // Edit line 4 (n += 41 becomes n += 40): its value goes, the others stay.
  await page.locator("#editor .cm-line").nth(3).click()
  await page.keyboard.press("End")
  await page.keyboard.press("ArrowLeft")
  await page.keyboard.press("Backspace")
  await page.keyboard.type("0")
  await page.waitForFunction(() => document.querySelectorAll(".cm-restls-run-values").length === 3, null, {timeout: WAIT})
  const after = await lineValues()
  assert.equal(after[3], "", "the edited line keeps the value of code that no longer exists")
  assert.equal(after[1], 'name = "Ada"')
  assert.equal(after[2], "n = 1")
  await page.locator("#editor").screenshot({path: join(shots, "26-run-values-edited.png")})
  assert.deepEqual(page.errors, [])
  await page.close()
})
