// Bundles the extension into dist/extension.js (one file, vscode external),
// so the .vsix ships no node_modules.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const watch = process.argv.includes('--watch');
// RESTLS_ROOT names the restls source tree (scripts/dist.sh sets it for its
// staging copy of the extension, which lives outside the tree); the default
// is the parent directory.
const root = process.env.RESTLS_ROOT || '..';
// The Response Preview is the designer's preview component
// (web/designer/src/preview/view.ts, docs/decisions.md "One preview
// component"): src/ imports it by its path in the tree, resolved here
// against RESTLS_ROOT so a staging copy builds the same component.
const previewView = path.resolve(root, 'web', 'designer', 'src', 'preview', 'view.ts');
if (!fs.existsSync(previewView)) {
  console.error(`esbuild.mjs: ${previewView} is missing: build in the restls source tree, or set RESTLS_ROOT to it`);
  process.exit(1);
}
const sharedPreview = {
  name: 'restls-preview',
  setup(b) {
    b.onResolve({ filter: /\/web\/designer\/src\/preview\/view$/ }, () => ({ path: previewView }));
  },
};
const ctx = await esbuild.context({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  minify: !watch,
  logLevel: 'info',
  plugins: [sharedPreview],
});
// vscode-languageclient kills a server that ignores shutdown with
// terminateProcess.sh from its own directory, which is dist/ once bundled.
fs.mkdirSync('dist', { recursive: true });
fs.copyFileSync('node_modules/vscode-languageclient/lib/node/terminateProcess.sh', 'dist/terminateProcess.sh');
fs.chmodSync('dist/terminateProcess.sh', 0o755);
// The schemas (contributes.jsonValidation and yamlValidation) have one
// source each, the one restls itself validates against: the fixture schema,
// the script test schema and the project file's (restls.yaml).
const mockSchema = path.join(root, 'runtime', 'restclient', 'schema', 'mock.schema.json');
const testSchema = path.join(root, 'scripttest', 'schema', 'test.schema.json');
const projectSchema = path.join(root, 'workspace', 'schema', 'restls.schema.json');
for (const f of [mockSchema, testSchema, projectSchema]) {
  if (!fs.existsSync(f)) {
    console.error(`esbuild.mjs: ${f} is missing: build in the restls source tree, or set RESTLS_ROOT to it`);
    process.exit(1);
  }
}
fs.copyFileSync(mockSchema, 'dist/mock.schema.json');
fs.copyFileSync(projectSchema, 'dist/restls.schema.json');
// The test schema refers to the fixture schema by its $id, an address that
// an editor cannot fetch offline: the packaged copy refers to the file
// beside it instead, and has no $id that would change the base of that
// reference.
const test = JSON.parse(fs.readFileSync(testSchema, 'utf8'));
const mockID = JSON.parse(fs.readFileSync(mockSchema, 'utf8')).$id;
delete test.$id;
const rewrite = (v) => {
  if (Array.isArray(v)) return v.map(rewrite);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) =>
    [k, k === '$ref' && typeof x === 'string' && x.startsWith(mockID) ? './mock.schema.json' + x.slice(mockID.length) : rewrite(x)]));
};
const packaged = JSON.stringify(rewrite(test), null, 2);
const remote = packaged.match(/"\$ref": "https?:[^"]*"/);
if (remote) {
  console.error(`esbuild.mjs: the packaged ${testSchema} still refers to an address: ${remote[0]}`);
  process.exit(1);
}
fs.writeFileSync('dist/test.schema.json', packaged + '\n');

if (watch) {
  await ctx.watch();
} else {
  await ctx.rebuild();
  await ctx.dispose();
}
