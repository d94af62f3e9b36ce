// The packed module in a host page of its own, the way the platform's
// designer embeds it: `npm pack`, the tarball unpacked into a node_modules,
// a host page bundled against it with its own EditorView, served from
// another origin than the backend (--allow-origin), with the access key.
import {test, before, after} from "node:test"
import assert from "node:assert/strict"
import {spawn, spawnSync, execFileSync} from "node:child_process"
import {mkdtempSync, mkdirSync, readFileSync, rmSync, readdirSync, copyFileSync} from "node:fs"
import {createServer} from "node:http"
import {tmpdir} from "node:os"
import {join, dirname, resolve} from "node:path"
import {fileURLToPath} from "node:url"
import * as esbuild from "esbuild"
import {chromium} from "playwright-core"

const here = dirname(fileURLToPath(import.meta.url))
const pkgDir = resolve(here, "..")
const repo = resolve(pkgDir, "..", "..")
const bin = process.env.RESTLS_BIN || join(repo, "bin", "restls")
const shots = join(repo, "out", "e2e-web")
const WAIT = 15000

let work, host, backend, browser, files, unbuilt

function listen(server) {
  return new Promise(res => server.listen(0, "127.0.0.1", () => res(server.address().port)))
}

function startBackend(args) {
  return new Promise((res, reject) => {
    const proc = spawn(bin, ["serve", "--http", "127.0.0.1:0", ...args], {stdio: ["ignore", "ignore", "pipe"]})
    let err = ""
    const timer = setTimeout(() => reject(new Error("restls did not start:\n" + err)), WAIT)
    proc.stderr.on("data", d => {
      err += d
      const m = /designer and hints API on (http:\/\/[^/\s]+\/)/.exec(err)
      if (m) { clearTimeout(timer); res({proc, base: m[1]}) }
    })
    proc.on("exit", code => { clearTimeout(timer); reject(new Error(`restls exited ${code}:\n${err}`)) })
  })
}

before(async () => {
  mkdirSync(shots, {recursive: true})
  work = mkdtempSync(join(tmpdir(), "restls-embed-"))
  // The tarball as the platform team makes it: a fresh clone (nothing
  // built, no node_modules), npm ci, npm pack (whose prepack builds dist/).
  // Without npm ci, npm pack must fail rather than pack no code.
  execFileSync("git", ["clone", "-q", repo, join(work, "clone")], {stdio: "inherit"})
  const cloned = join(work, "clone", "web", "designer")
  unbuilt = spawnSync("npm", ["pack", "--pack-destination", work], {cwd: cloned, encoding: "utf8"})
  unbuilt.tarballs = readdirSync(work).filter(f => f.endsWith(".tgz"))
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], {cwd: cloned, stdio: ["ignore", "ignore", "inherit"]})
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], {cwd: cloned, encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"]}))
  files = packed[0].files.map(f => f.path).sort()
  const mod = join(work, "node_modules", "@restls", "designer-editor")
  mkdirSync(mod, {recursive: true})
  execFileSync("tar", ["-xzf", join(work, packed[0].filename), "-C", mod, "--strip-components=1"])
  // The host's bundle: the module from the tarball; CodeMirror from the
  // host's own dependencies (here the designer's, on NODE_PATH). The host
  // page is bundled from a copy outside web/designer: inside it, the name
  // @restls/designer-editor resolves to the package itself (a
  // self-reference, to its dist/), not to the tarball.
  const hostDir = join(work, "host")
  mkdirSync(hostDir)
  copyFileSync(join(here, "embed", "main.js"), join(hostDir, "main.js"))
  const built = await esbuild.build({
    entryPoints: [join(hostDir, "main.js")], bundle: true, format: "esm", write: false, logLevel: "warning",
    nodePaths: [join(work, "node_modules"), join(pkgDir, "node_modules")],
  })
  const pages = {"/": readFileSync(join(here, "embed", "index.html")), "/embed.js": built.outputFiles[0].contents}
  host = createServer((req, res) => {
    const body = pages[new URL(req.url, "http://x").pathname]
    if (!body) { res.writeHead(404).end(); return }
    res.writeHead(200, {"Content-Type": req.url.endsWith(".js") ? "text/javascript" : "text/html"}).end(body)
  })
  const port = await listen(host)
  host.origin = `http://127.0.0.1:${port}`
  backend = await startBackend(["--config-root", join(repo, "testdata", "config"), "--token", "embed-test-token", "--allow-origin", host.origin, "--allow-run"])
  browser = await chromium.launch({executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]})
})

after(async () => {
  await browser?.close()
  if (backend && backend.proc.exitCode === null) {
    await new Promise(res => { backend.proc.removeAllListeners("exit"); backend.proc.on("exit", res); backend.proc.kill("SIGTERM") })
  }
  host?.close()
  if (work) rmSync(work, {recursive: true, force: true})
})

test("npm pack in a fresh clone without npm ci fails loudly instead of packing no code", () => {
  assert.notEqual(unbuilt.status, 0, `npm pack succeeded without node_modules:\n${unbuilt.stdout}`)
  assert.match(unbuilt.stderr, /run 'npm ci' in web\/designer first/)
  assert.deepEqual(unbuilt.tarballs, [], "no tarball was written")
})

test("npm pack ships the module, its types (with the generated wire types) and README, nothing else", () => {
  assert.deepEqual(files, ["README.md", "dist/index.d.ts", "dist/index.js", "dist/wire.gen.d.ts", "package.json"])
})

test("a host page's own EditorView gets serviceId completion from the packed module", async () => {
  const page = await browser.newPage({viewport: {width: 900, height: 480}})
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  await page.goto(`${host.origin}/?backend=${encodeURIComponent(backend.base)}&token=embed-test-token`)
  await page.locator('#host-state[data-connection="connected"]').waitFor({timeout: WAIT})
  await page.locator("#host-state", {hasText: "12 services"}).waitFor({timeout: WAIT})
  await page.locator(".cm-content").click()
  await page.keyboard.type('api.rest.v1.get("crm', {delay: 15})
  await page.waitForFunction(() => [...document.querySelectorAll(".cm-tooltip-autocomplete li .cm-completionLabel")]
    .some(e => e.textContent === "crm-customers"), null, {timeout: WAIT})
  await page.screenshot({path: join(shots, "20-embedded.png")})
  assert.deepEqual(errors, [])
  await page.close()
})

test("the packed module's preview shows a run: hostile values as text, a secret header masked by the server", async () => {
  const page = await browser.newPage({viewport: {width: 900, height: 900}})
  const errors = []
  page.on("pageerror", e => errors.push(String(e)))
  await page.goto(`${host.origin}/?backend=${encodeURIComponent(backend.base)}&token=embed-test-token`)
  await page.locator('#host-state[data-connection="connected"]').waitFor({timeout: WAIT})
  await page.evaluate(() => {
    const v = window.host.view
    v.dispatch({changes: {from: 0, to: v.state.doc.length, insert:
      'var c = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {"X-Partner-Api-Key": "embed-partner-secret"});\nreturn {name: c.body.name};\n'}})
    document.querySelector("#host-mocks").value = [
      "- serviceId: crm-customers", "  method: GET", '  path: "42"', "  status: 200",
      "  headers: {X-Evil: '\"><img src=x onerror=\"window.pwned=1\">'}",
      "  body: {name: '<script>window.pwned=2</script>'}", ""].join("\n")
  })
  await page.click("#host-run")
  const preview = page.locator("#host-preview[data-state]:not([data-state='running'])")
  await preview.waitFor({timeout: WAIT})
  const text = await preview.textContent()
  assert.equal(await preview.getAttribute("data-state"), "done", text)
  assert.match(text, /Ran with mocks/)
  assert.match(text, /x-evil\s*"><img src=x onerror="window\.pwned=1">/)
  assert.match(text, /"name": "<script>window\.pwned=2<\/script>"/)
  assert.match(text, /X-Partner-Api-Key\s*\*\*\*/)
  assert.doesNotMatch(text, /embed-partner-secret/)
  assert.equal(await page.locator("#host-preview img, #host-preview script").count(), 0)
  assert.equal(await page.evaluate(() => window.pwned), undefined)
  await page.screenshot({path: join(shots, "21-embedded-preview.png"), fullPage: true})
  assert.deepEqual(errors, [])
  await page.close()
})

test("index.d.ts declares every export of the module, and the host page type-checks against it", async () => {
  const built = await esbuild.build({entryPoints: [join(pkgDir, "src", "index.js")], bundle: true, format: "esm", write: false,
    metafile: true, outdir: join(work, "meta"), external: ["@codemirror/*", "@lezer/*"], logLevel: "warning"})
  const exported = Object.values(built.metafile.outputs).flatMap(o => o.exports).sort()
  const dts = readFileSync(join(pkgDir, "src", "index.d.ts"), "utf8")
  const declared = [...dts.matchAll(/^export (?:declare (?:function|const) (\w+)|\{(\w+)\} from)/gm)].map(m => m[1] || m[2])
  assert.deepEqual([...new Set(declared)].sort(), exported)
  // tsc: the declarations are valid and the host page uses them correctly.
  execFileSync(join(pkgDir, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {cwd: pkgDir, stdio: "inherit"})
})
