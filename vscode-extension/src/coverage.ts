// Coverage in the Testing view (issue 35): "Run with Coverage" runs the
// test files with restls.runTests {coverage: true}; the server answers
// restls test --coverage's report (lines, branches and call outcomes of
// each script), merged here over the files of the run, and shown through
// VS Code's test coverage API (TestRun.addCoverage, FileCoverage).

import * as vscode from 'vscode';

/** ScriptCoverage is one script of the report's `coverage` (Go's coverage.Script). */
export interface ScriptCoverage {
  script: string;
  error?: string;
  lineHits: { line: number; hits: number }[];
  branchHits: { line: number; column: number; kind: string; taken: number[] }[];
  callSites: { line: number; column: number; method: string; serviceIds: string[]; outcomes: { outcome: string; calls: number }[] }[];
}

/** CoverageReport is the report's `coverage` (Go's coverage.Report). */
export interface CoverageReport {
  scripts: ScriptCoverage[];
}

interface Merged {
  lines: Map<number, number>;
  branches: Map<string, { line: number; column: number; kind: string; taken: number[] }>;
  sites: Map<string, { line: number; column: number; method: string; services: Set<string>; outcomes: Map<string, number> }>;
}

/** armLabel names arm i of a branch point of kind. */
export function armLabel(kind: string, i: number): string {
  switch (kind) {
    case 'if':
    case '?:':
      return i === 0 ? `${kind} true` : `${kind} false`;
    case '&&':
    case '||':
    case '??':
      return i === 1 ? `${kind} right side` : `${kind} left side only`;
    default:
      return `case ${i + 1}`;
  }
}

/** CoverageMerge adds up the coverage of a run's test files, script by script (a script several files test). */
export class CoverageMerge {
  private readonly scripts = new Map<string, Merged>();

  add(rep: CoverageReport | undefined): void {
    for (const s of rep?.scripts ?? []) {
      if (s.error) {
        continue;
      }
      let m = this.scripts.get(s.script);
      if (!m) {
        m = { lines: new Map(), branches: new Map(), sites: new Map() };
        this.scripts.set(s.script, m);
      }
      for (const l of s.lineHits ?? []) {
        m.lines.set(l.line, (m.lines.get(l.line) ?? 0) + l.hits);
      }
      for (const b of s.branchHits ?? []) {
        const k = `${b.line}:${b.column}:${b.kind}`;
        const old = m.branches.get(k);
        m.branches.set(k, old ? { ...old, taken: old.taken.map((n, i) => n + (b.taken[i] ?? 0)) } : { ...b, taken: [...b.taken] });
      }
      for (const c of s.callSites ?? []) {
        const k = `${c.line}:${c.column}`;
        let site = m.sites.get(k);
        if (!site) {
          site = { line: c.line, column: c.column, method: c.method, services: new Set(), outcomes: new Map() };
          m.sites.set(k, site);
        }
        c.serviceIds.forEach((id) => site!.services.add(id));
        for (const o of c.outcomes) {
          site.outcomes.set(o.outcome, (site.outcomes.get(o.outcome) ?? 0) + o.calls);
        }
      }
    }
  }

  /** coverage is each script's FileCoverage and its details: a statement per line, the line's branch arms and its call site's outcomes as branches. */
  coverage(): { file: vscode.FileCoverage; details: vscode.FileCoverageDetail[] }[] {
    const out: { file: vscode.FileCoverage; details: vscode.FileCoverageDetail[] }[] = [];
    for (const [script, m] of this.scripts) {
      const branchesOf = new Map<number, vscode.BranchCoverage[]>();
      const put = (line: number, b: vscode.BranchCoverage) => branchesOf.set(line, [...(branchesOf.get(line) ?? []), b]);
      let bHit = 0;
      let bFound = 0;
      for (const b of m.branches.values()) {
        b.taken.forEach((n, i) => {
          bFound++;
          if (n > 0) bHit++;
          put(b.line, new vscode.BranchCoverage(n, new vscode.Position(b.line - 1, Math.max(0, b.column - 1)), armLabel(b.kind, i)));
        });
      }
      for (const s of m.sites.values()) {
        const who = `${s.method.toUpperCase()} ${[...s.services].join(',')}`.trim();
        if (s.outcomes.size === 0) {
          put(s.line, new vscode.BranchCoverage(0, new vscode.Position(s.line - 1, Math.max(0, s.column - 1)), `${who}: never called`));
        }
        for (const [o, n] of s.outcomes) {
          put(s.line, new vscode.BranchCoverage(n, new vscode.Position(s.line - 1, Math.max(0, s.column - 1)), `${who} → ${o}`));
        }
      }
      const details: vscode.FileCoverageDetail[] = [];
      let hit = 0;
      for (const [line, n] of [...m.lines].sort((a, b) => a[0] - b[0])) {
        if (n > 0) hit++;
        details.push(new vscode.StatementCoverage(n, new vscode.Position(line - 1, 0), branchesOf.get(line) ?? []));
      }
      const file = new vscode.FileCoverage(
        vscode.Uri.file(script),
        new vscode.TestCoverageCount(hit, m.lines.size),
        bFound > 0 ? new vscode.TestCoverageCount(bHit, bFound) : undefined,
      );
      out.push({ file, details });
    }
    return out;
  }
}
