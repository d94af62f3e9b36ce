// Builds the editor module and the designer page from it.
//
//   dist/index.js, dist/index.d.ts  the module @restls/designer-editor (ES
//                                   module; @codemirror/* stay imports, so
//                                   an embedding editor shares its own)
//   dist/wire.gen.d.ts              the server's answers, generated from Go
//                                   (index.d.ts re-exports them)
//   ../static/designer.js           the designer page: page/main.js with the
//                                   module from dist/, bundled (committed,
//                                   embedded with go:embed)
//
// --check rebuilds the page in memory and fails when the committed bundle
// differs, so a source or dependency change without a rebuild is caught.
// --module-only builds dist/ alone (npm pack runs it).
import {readFileSync, writeFileSync, mkdirSync, copyFileSync} from "node:fs"
import {fileURLToPath} from "node:url"
import {dirname, join} from "node:path"

const here = dirname(fileURLToPath(import.meta.url))
const dist = join(here, "dist")
const out = join(here, "..", "static", "designer.js")
const check = process.argv.includes("--check")
const moduleOnly = process.argv.includes("--module-only")
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"))

// Without node_modules (a fresh clone) there is nothing to build with: say
// so, rather than let npm pack go on to pack a package without its code.
let esbuild
try {
  esbuild = await import("esbuild")
} catch (e) {
  console.error(`web/designer: esbuild is not installed (${e.code || e.message}): run 'npm ci' in web/designer first; ` +
    `npm pack builds dist/ (the module and its types) with it and must not pack without them`)
  process.exit(1)
}

// The version in the code is the package's.
const src = readFileSync(join(here, "src", "index.js"), "utf8")
if (!src.includes(`export const version = "${pkg.version}"`)) {
  console.error(`src/index.js's version is not package.json's ${pkg.version}: change both`)
  process.exit(1)
}

mkdirSync(dist, {recursive: true})
await esbuild.build({
  entryPoints: [join(here, "src", "index.js")],
  outfile: join(dist, "index.js"),
  bundle: true,
  format: "esm",
  target: ["es2020"],
  external: ["@codemirror/*", "@lezer/*"],
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
})
copyFileSync(join(here, "src", "index.d.ts"), join(dist, "index.d.ts"))
copyFileSync(join(here, "src", "wire.gen.d.ts"), join(dist, "wire.gen.d.ts"))
if (moduleOnly) {
  // On stderr: npm pack --json prints its JSON on stdout, where prepack's
  // output would land too.
  console.error(`wrote dist/ (${pkg.name} ${pkg.version})`)
  process.exit(0)
}

// The page imports the module by its name: resolve it to what was just
// built, so the page is the module's first user.
const self = {
  name: "self",
  setup(b) { b.onResolve({filter: /^@restls\/designer-editor$/}, () => ({path: join(dist, "index.js")})) },
}
const result = await esbuild.build({
  entryPoints: [join(here, "page", "main.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  charset: "utf8",
  write: false,
  logLevel: "warning",
  plugins: [self],
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
