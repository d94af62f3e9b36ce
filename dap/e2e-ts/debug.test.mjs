// restls dap driven by @vscode/debugadapter-testsupport's DebugClient,
// the client VS Code's own debug adapters are tested with (make
// e2e-dap): breakpoints, steps, golden stack traces and scopes,
// exception filters, conditions and logpoints, a test case, a replay.
// RESTLS_BIN is the binary; UPDATE=1 rewrites golden/*.json.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, basename } from "node:path";
import { fileURLToPath } from "node:url";
import { DebugClient } from "@vscode/debugadapter-testsupport";

// Each test is bounded: a wait on an event never outlives it.
const test = (name, fn) => nodeTest(name, { timeout: 60000 }, fn);

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.RESTLS_BIN || join(here, "..", "..", "bin", "restls");

// project copies dap/testdata/project to a temporary directory.
function project() {
  const dir = mkdtempSync(join(tmpdir(), "restls-dap-"));
  cpSync(join(here, "..", "testdata", "project"), dir, { recursive: true });
  return dir;
}

// golden compares got, the project's directory shown as <project>,
// with golden/NAME.json (UPDATE=1 writes it).
function golden(name, got, dir) {
  const file = join(here, "golden", name + ".json");
  const text = JSON.stringify(got, null, 2).replaceAll(dir + "/", "<project>/") + "\n";
  got = JSON.parse(text);
  if (process.env.UPDATE === "1" || !existsSync(file)) {
    writeFileSync(file, text);
    return;
  }
  assert.deepEqual(got, JSON.parse(readFileSync(file, "utf8")), `golden ${file} (UPDATE=1 rewrites it)`);
}

// client starts restls dap in dir (with env) through DebugClient.
async function client(t, dir, env) {
  const dc = new DebugClient(bin, "dap", "restls", { cwd: dir, env: { ...process.env, ...env } });
  dc.defaultTimeout = 20000; // a loaded CI machine
  const output = [];
  dc.on("output", (e) => output.push(e.body.output));
  await dc.start();
  t.after(() => dc.stop());
  return { dc, output };
}

// stopOrEnd is the next stopped or terminated event (the test's own
// timeout bounds the wait).
function stopOrEnd(dc) {
  return new Promise((resolve) => {
    const on = (e) => {
      dc.removeListener("stopped", on);
      dc.removeListener("terminated", on);
      resolve(e);
    };
    dc.on("stopped", on);
    dc.on("terminated", on);
  });
}

// frames is a stack trace as its golden holds it.
async function frames(dc) {
  const st = await dc.stackTraceRequest({ threadId: 1 });
  return st.body.stackFrames.map((f) => `${f.name} ${f.source ? basename(f.source.path) : ""}:${f.line}:${f.column}`);
}

// scopes lists the stopped frame's scopes with their variables (not the
// globals), expanding the variables named in expand.
async function scopes(dc, expand = []) {
  const out = {};
  const list = async (ref, depth) => {
    const vars = (await dc.variablesRequest({ variablesReference: ref })).body.variables;
    const got = {};
    for (const v of vars) {
      got[v.name] = v.variablesReference > 0 && expand.includes(v.name) && depth < 4 ? await list(v.variablesReference, depth + 1) : v.name === "durationMs" ? "N" : v.value;
    }
    return got;
  };
  for (const s of (await dc.scopesRequest({ frameId: 1 })).body.scopes) {
    out[s.name] = s.name === "Globals" ? "(not listed)" : await list(s.variablesReference, 0);
  }
  return out;
}

test("a breakpoint, its stack and scopes, a step over and out, the end", async (t) => {
  const dir = project();
  const { dc, output } = await client(t, dir);
  const script = join(dir, "scripts", "debug.js");
  await dc.hitBreakpoint({ program: script, input: { id: "42" } }, { path: script, line: 5 });
  golden("steps-stack", await frames(dc), dir);
  golden("steps-scopes", await scopes(dc, ["items", "res", "body", "#1 GET orders", "responseBody"]), dir);
  const ev = await dc.evaluateRequest({ expression: "res.body.status", frameId: 1, context: "watch" });
  assert.equal(ev.body.result, '"paid"');
  await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation("step", { line: 5 })]);
  await Promise.all([dc.stepOutRequest({ threadId: 1 }), dc.assertStoppedLocation("step", { line: 13 })]);
  await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent("terminated")]);
  assert.ok(output.includes('result: {"status":"paid","total":5}\n'), output.join(""));
  assert.ok(!output.join("").includes("orders-S3cret-pw"), "a configured credential was shown");
});

test("exception filters: an api.rest.v1 error, then the uncaught RestClientError", async (t) => {
  const dir = project();
  const { dc } = await client(t, dir);
  const script = join(dir, "scripts", "exceptions.js");
  const init = await dc.initializeRequest();
  assert.deepEqual(init.body.exceptionBreakpointFilters.map((f) => f.filter), ["all", "uncaught", "apiError", "restClientError"]);
  const initialized = dc.waitForEvent("initialized");
  await dc.launchRequest({ program: script });
  await initialized;
  await dc.setExceptionBreakpointsRequest({ filters: ["apiError", "uncaught"] });
  let next = stopOrEnd(dc);
  await dc.configurationDoneRequest();
  const got = [];
  for (let e = await next; e.event === "stopped"; e = await next) {
    const info = await dc.exceptionInfoRequest({ threadId: 1 });
    got.push({ stopped: e.body.description, text: e.body.text, id: info.body.exceptionId, breakMode: info.body.breakMode, stack: await frames(dc) });
    next = stopOrEnd(dc);
    await dc.continueRequest({ threadId: 1 });
  }
  golden("exceptions", got, dir);
});

test("a conditional breakpoint, a hit count, a logpoint", async (t) => {
  const dir = project();
  const { dc, output } = await client(t, dir);
  const script = join(dir, "scripts", "loop.js");
  const initialized = dc.waitForEvent("initialized");
  await dc.launch({ program: script });
  await initialized;
  const bps = await dc.setBreakpointsRequest({
    source: { path: script },
    breakpoints: [{ line: 4, condition: "i == 7" }, { line: 5, hitCondition: "%4" }, { line: 6, logMessage: "i={i}" }],
  });
  assert.deepEqual(bps.body.breakpoints.map((b) => b.verified), [true, true, true]);
  const stops = [];
  let next = stopOrEnd(dc);
  await dc.configurationDoneRequest();
  for (let e = await next; e.event === "stopped"; e = await next) {
    const st = await dc.stackTraceRequest({ threadId: 1 });
    const i = await dc.evaluateRequest({ expression: "i", frameId: 1 });
    stops.push(`line ${st.body.stackFrames[0].line} i=${i.body.result}`);
    next = stopOrEnd(dc);
    await dc.continueRequest({ threadId: 1 });
  }
  assert.deepEqual(stops, ["line 5 i=3", "line 4 i=7", "line 5 i=7"]);
  assert.equal(output.filter((o) => o.startsWith("i=")).join(""), "i=0\ni=1\ni=2\ni=3\ni=4\ni=5\ni=6\ni=7\ni=8\ni=9\n");
});

test("one case of a test file", async (t) => {
  const dir = project();
  const { dc, output } = await client(t, dir);
  const script = join(dir, "scripts", "debug.js");
  await dc.hitBreakpoint({ testFile: join(dir, "scripts", "debug.test.yaml"), case: "wrong total" }, { path: script, line: 10 });
  const id = await dc.evaluateRequest({ expression: "context.input.id", frameId: 1 });
  assert.equal(id.body.result, '"7"');
  await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent("terminated")]);
  assert.match(output.join(""), /test case "wrong total": failed\nresult \(expected vs actual, by JSON path\):\n  \$\.total: expected 11, got 10/);
});

test("replay of the last run, offline", async (t) => {
  const dir = project();
  const hist = mkdtempSync(join(tmpdir(), "restls-dap-history-"));
  const script = join(dir, "scripts", "debug.js");
  const input = join(dir, "input.json");
  writeFileSync(input, '{"id": "42"}');
  execFileSync(bin, ["run", "--save", "--mock", join(dir, "scripts", "debug.mock.yaml"), "--input", input, script], { cwd: dir, env: { ...process.env, RESTLS_HISTORY: hist } });
  const { dc, output } = await client(t, dir, { RESTLS_HISTORY: hist });
  await dc.hitBreakpoint({ program: script, replay: "last" }, { path: script, line: 10 });
  await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent("terminated")]);
  const text = output.join("");
  assert.match(text, /replay: call 1 \(GET orders\): identical to the recorded call/);
  assert.match(text, /replay: the result is identical to the recorded run's/);
});
