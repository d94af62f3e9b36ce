// restls mcp (stdio) and /mcp (serve --http) driven by the official
// TypeScript SDK's client, as an agent drives them: list the tools,
// write a script from the services and contract tools, get its
// diagnostics, fix them with the edits returned, make its fixtures, run
// it with them, run its test and explore its failure paths. RESTLS_BIN is the binary (make e2e-mcp
// builds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.RESTLS_BIN || join(here, "..", "..", "bin", "restls");

// project copies mcp/testdata/project to a temporary directory.
function project() {
  const dir = mkdtempSync(join(tmpdir(), "restls-mcp-"));
  cpSync(join(here, "..", "testdata", "project"), dir, { recursive: true });
  return dir;
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

// applyEdits applies edits (lines and columns from 1, columns in
// characters) to text, the last first.
function applyEdits(text, edits) {
  const lines = text.split("\n");
  const offset = (p) => {
    let off = 0;
    for (let i = 0; i < p.line - 1; i++) off += lines[i].length + 1;
    // Characters (code points), not UTF-16 units.
    return off + [...lines[p.line - 1]].slice(0, p.column - 1).join("").length;
  };
  const spans = edits.map((e) => ({ start: offset(e.range.start), end: offset(e.range.end), text: e.newText }));
  spans.sort((a, b) => b.start - a.start);
  for (const s of spans) text = text.slice(0, s.start) + s.text + text.slice(s.end);
  return text;
}

async function agentFlow(client, root) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["services", "contract", "check", "complete", "references", "curl", "fixtures", "run", "test", "faults"]) {
    assert.ok(names.includes(n), `tool ${n} listed in ${names}`);
  }
  const services = await call(client, "services", {});
  assert.equal(services.services[0].serviceId, "orders");
  const contract = await call(client, "contract", { serviceId: "orders", method: "POST", path: "orders" });
  assert.deepEqual(contract.operations[0].payload.required, ["item"]);

  let text = 'var res = api.rest.v1.post("order", {pathParams: ["orders"]}, {}, {quantity: 2});\nreturn res.body.id;\n';
  for (let round = 0; ; round++) {
    const c = await call(client, "check", { path: "scripts/new-order.js", text });
    if (c.diagnostics.length === 0) break;
    assert.ok(round < 3, `diagnostics left: ${JSON.stringify(c.diagnostics)}`);
    const fix = c.diagnostics.flatMap((d) => d.fixes || []).find((f) => f.preferred);
    assert.ok(fix, `no preferred fix in ${JSON.stringify(c.diagnostics)}`);
    text = applyEdits(text, fix.edits);
  }
  assert.match(text, /"orders"/);
  assert.match(text, /item:/);

  const fx = await call(client, "fixtures", { path: "scripts/new-order.js", text });
  assert.equal(fx.file, "scripts/new-order.mock.yaml");
  writeFileSync(join(root, "scripts", "new-order.js"), text);
  writeFileSync(join(root, fx.file), fx.text);
  const run = await call(client, "run", { path: "scripts/new-order.js" });
  assert.equal(run.threw, false, JSON.stringify(run));
  assert.equal(run.mode, "mock");
  assert.equal(run.calls.length, 1);

  // Its test: the fixtures written, the result the run gave.
  writeFileSync(join(root, "scripts", "new-order.test.yaml"),
    `script: new-order.js\nfixtures: new-order.mock.yaml\nresult: ${JSON.stringify(run.result ?? null)}\n`);
  const t = await call(client, "test", { path: "scripts/new-order.test.yaml" });
  assert.equal(t.passed, 1, JSON.stringify(t));
  assert.equal(t.failed, 0, JSON.stringify(t));
  assert.equal(t.tests[0].mode, "mock", JSON.stringify(t));

  // How it copes with its call failing: the error leaves it.
  const f = await call(client, "faults", { path: "scripts/new-order.js", outcomes: ["500", "connect-timeout"] });
  assert.equal(f.runs, 2, JSON.stringify(f));
  assert.equal(f.ok, true, JSON.stringify(f));
  assert.deepEqual(f.findings.map((x) => `${x.line} ${x.serviceId} ${x.outcome} ${x.verdict}`).sort(),
    ["1 orders 500 escaped", "1 orders connect-timeout escaped"]);
}

test("restls mcp on stdio", async () => {
  const root = project();
  const client = new Client({ name: "restls-e2e", version: "1" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp"], cwd: root, stderr: "pipe" }));
  try {
    await agentFlow(client, root);
  } finally {
    await client.close();
  }
});

// serve starts restls serve --http on loopback in root and returns its
// address once it says where it listens.
function serve(root, token) {
  const p = spawn(bin, ["serve", "--http", "127.0.0.1:0", "--allow-run", "--token", token], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    p.stderr.on("data", (b) => {
      err += b;
      const m = /designer and hints API on (http:\/\/[^/\s]+)\//.exec(err);
      if (m) resolve({ base: m[1], stop: () => p.kill("SIGTERM") });
    });
    p.on("exit", (code) => reject(new Error(`restls serve exited ${code}: ${err}`)));
  });
}

test("/mcp on restls serve --http", async () => {
  const root = project();
  const token = "e2e-token-" + process.pid;
  const s = await serve(root, token);
  try {
    const refused = new Client({ name: "restls-e2e", version: "1" });
    await assert.rejects(refused.connect(new StreamableHTTPClientTransport(new URL(s.base + "/mcp"))));
    const client = new Client({ name: "restls-e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.base + "/mcp"), { requestInit: { headers: { Authorization: "Bearer " + token } } }));
    try {
      await agentFlow(client, root);
    } finally {
      await client.close();
    }
  } finally {
    s.stop();
  }
});
