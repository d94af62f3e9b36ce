// Bundles src/main.js into ../static/designer.js (committed, embedded with
// go:embed). --check rebuilds in memory and fails when the committed bundle
// differs, so a source or dependency change without a rebuild is caught.
import * as esbuild from "esbuild"
import {readFileSync, writeFileSync} from "node:fs"
import {fileURLToPath} from "node:url"
import {dirname, join} from "node:path"

const here = dirname(fileURLToPath(import.meta.url))
const out = join(here, "..", "static", "designer.js")
const check = process.argv.includes("--check")

const result = await esbuild.build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  charset: "utf8",
  write: false,
  logLevel: "warning",
})
const text = result.outputFiles[0].text
if (check) {
  let have = ""
  try { have = readFileSync(out, "utf8") } catch {}
  if (have !== text) {
    console.error(`web/static/designer.js is stale: run 'make designer' and commit it`)
    process.exit(1)
  }
  console.log(`web/static/designer.js is current (${text.length} bytes)`)
} else {
  writeFileSync(out, text)
  console.log(`wrote web/static/designer.js (${text.length} bytes)`)
}
