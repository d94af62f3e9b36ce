// The Testing view: the test files of `restls test` and their cases,
// as the server reads them (restls.listTests), run through
// restls.runTests, and "Update expectation" through restls.updateTest.
// The server decides everything about a test file, which files are test
// files included (its testFiles glob); this only shows it.

import * as vscode from 'vscode';
import { CoverageMerge, CoverageReport } from './coverage';
import type { Files } from './protocol';

/** TestCommands are the server's test commands. */
export const TestCommands = {
  list: 'restls.listTests',
  run: 'restls.runTests',
  update: 'restls.updateTest',
} as const;

/** UPDATE_EXPECTATION is the Testing view's "Update expectation" command. */
export const UPDATE_EXPECTATION = 'restls.updateExpectation';

/** Outcome is one test of the `restls test --json` report. */
export interface Outcome {
  file: string;
  name: string;
  line: number;
  passed: boolean;
  updated?: boolean;
  failures?: string[];
  mismatches?: { path: string; expected: string; actual: string }[];
  durationMs?: number;
}

/** Report is the `restls test --json` object. */
export interface Report {
  tests: Outcome[];
  passed: number;
  failed: number;
  /** coverage is there when the run asked for it (Run with Coverage). */
  coverage?: CoverageReport;
}

type Exec = (command: string, args: unknown[]) => Promise<unknown>;

/** messagesFor are a failed outcome's test messages: one diff per mismatch (expected and actual by JSON path), then the failure text, all at the case's line. */
export function messagesFor(o: Outcome, uri: vscode.Uri): vscode.TestMessage[] {
  const at = new vscode.Location(uri, new vscode.Position(Math.max(0, o.line - 1), 0));
  const out: vscode.TestMessage[] = [];
  for (const m of o.mismatches ?? []) {
    const msg = vscode.TestMessage.diff(`${m.path}: expected ${m.expected}, got ${m.actual}`, m.expected, m.actual);
    msg.location = at;
    msg.contextValue = 'restls.expectation';
    out.push(msg);
  }
  const text = (o.failures ?? []).join('\n');
  if (text || out.length === 0) {
    const msg = new vscode.TestMessage(text || 'failed');
    msg.location = at;
    msg.contextValue = 'restls.expectation';
    out.push(msg);
  }
  return out;
}

/** TestsView keeps the Testing view's tree of test files and cases, and runs them. */
export class TestsView implements vscode.Disposable {
  readonly controller: vscode.TestController;
  private readonly disposables: vscode.Disposable[] = [];

  /** glob is the server's testFiles glob the watcher watches, and skip its skip glob; undefined before a server answered. */
  private glob: string | undefined;
  private skip: string | undefined;
  /** details are each FileCoverage's lines and branches, for loadDetailedCoverage. */
  private readonly details = new WeakMap<vscode.FileCoverage, vscode.FileCoverageDetail[]>();
  private watcher: vscode.Disposable[] = [];

  /**
   * exec runs a server command; testFiles asks the server for its files
   * (starting it if need be): the glob of test files, and the glob of the
   * directories restls test leaves out; undefined when it cannot say.
   */
  constructor(
    private readonly exec: Exec,
    private readonly testFiles: () => Promise<Files | undefined>,
  ) {
    this.controller = vscode.tests.createTestController('restls.tests', 'restls tests');
    this.controller.resolveHandler = (item) => (item ? this.resolveFile(item) : this.discover());
    this.controller.refreshHandler = () => this.discover();
    this.controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token), true);
    const cover = this.controller.createRunProfile('Run with Coverage', vscode.TestRunProfileKind.Coverage, (req, token) => this.run(req, token, true));
    cover.loadDetailedCoverage = async (_run, file) => this.details.get(file) ?? [];
    this.disposables.push(this.controller, vscode.commands.registerCommand(UPDATE_EXPECTATION, (arg: unknown) => this.updateExpectation(arg)));
  }

  /**
   * discover lists the workspace's test files: those the server's glob
   * finds outside the directories it leaves out (its skip glob: hidden
   * ones and node_modules, as restls test).
   */
  async discover(): Promise<void> {
    const tf = await this.testFiles();
    if (!tf?.testFiles) {
      return;
    }
    this.watch(tf.testFiles, tf.skip);
    const files = await vscode.workspace.findFiles(tf.testFiles, tf.skip || undefined);
    for (const u of files) {
      this.fileItem(u);
    }
  }

  /**
   * watch follows the test files of glob as they come, change and go,
   * leaving out those in the directories skip leaves out, as discover's
   * search does (VS Code's watcher takes no exclude: its events are
   * filtered); a new glob or skip replaces the old watcher.
   */
  private watch(glob: string, skip: string): void {
    if (glob === this.glob && skip === this.skip) {
      return;
    }
    this.glob = glob;
    this.skip = skip;
    this.watcher.forEach((d) => d.dispose());
    const skipped = skipMatcher(skip);
    const w = vscode.workspace.createFileSystemWatcher(glob);
    const seen = (u: vscode.Uri) => {
      if (!skipped(u)) {
        void this.resolveFile(this.fileItem(u));
      }
    };
    this.watcher = [
      w,
      w.onDidCreate(seen),
      w.onDidChange(seen),
      w.onDidDelete((u) => this.controller.items.delete(u.toString())),
    ];
  }

  private fileItem(u: vscode.Uri): vscode.TestItem {
    const id = u.toString();
    let item = this.controller.items.get(id);
    if (!item) {
      item = this.controller.createTestItem(id, vscode.workspace.asRelativePath(u), u);
      item.canResolveChildren = true;
      this.controller.items.add(item);
    }
    return item;
  }

  /** resolveFile lists a file's cases, or shows why it is malformed. */
  async resolveFile(file: vscode.TestItem): Promise<void> {
    if (!file.uri) {
      return;
    }
    let outline: { cases?: { name: string; line: number }[]; problem?: { line: number; message: string } };
    try {
      outline = (await this.exec(TestCommands.list, [{ uri: file.uri.toString() }])) as typeof outline;
    } catch (e) {
      file.error = e instanceof Error ? e.message : String(e);
      return;
    }
    file.error = outline.problem ? `line ${outline.problem.line}: ${outline.problem.message}` : undefined;
    const cases = (outline.cases ?? []).map((c) => {
      const item = this.controller.createTestItem(`${file.id}#${c.name}`, c.name, file.uri);
      item.range = new vscode.Range(c.line - 1, 0, c.line - 1, 0);
      return item;
    });
    file.children.replace(cases);
  }

  /** run runs the chosen cases and files (all files when none is chosen), one restls.runTests per file or case. */
  async run(req: vscode.TestRunRequest, token: vscode.CancellationToken, coverage = false): Promise<void> {
    const run = this.controller.createTestRun(req);
    const merged = coverage ? new CoverageMerge() : undefined;
    const chosen: vscode.TestItem[] = [];
    if (req.include) {
      chosen.push(...req.include);
    } else {
      await this.discover();
      this.controller.items.forEach((i) => chosen.push(i));
    }
    try {
      for (const item of chosen) {
        if (token.isCancellationRequested || req.exclude?.includes(item)) {
          continue;
        }
        const file = item.parent ?? item;
        if (!file.uri) {
          continue;
        }
        if (!item.parent) {
          // The cases as the file is now: a case may have been renamed.
          await this.resolveFile(item);
        }
        const name = item.parent ? item.label : undefined;
        const targets: vscode.TestItem[] = item.parent ? [item] : [];
        item.children.forEach((c) => targets.push(c));
        targets.forEach((t) => run.started(t));
        let report: Report;
        try {
          const args: Record<string, unknown> = { uri: file.uri.toString() };
          if (name) args.name = name;
          if (coverage) args.coverage = true;
          report = (await this.exec(TestCommands.run, [args])) as Report;
        } catch (e) {
          const msg = new vscode.TestMessage(e instanceof Error ? e.message : String(e));
          (targets.length ? targets : [item]).forEach((t) => run.errored(t, msg));
          continue;
        }
        this.record(run, file, report);
        merged?.add(report.coverage);
      }
      for (const c of merged?.coverage() ?? []) {
        this.details.set(c.file, c.details);
        run.addCoverage(c.file);
      }
    } finally {
      run.end();
    }
  }

  /** record marks each case of the report passed or failed. */
  private record(run: vscode.TestRun, file: vscode.TestItem, report: Report): void {
    for (const o of report.tests ?? []) {
      const item = file.children.get(`${file.id}#${o.name}`);
      if (!item) {
        // The malformed file's one outcome names no case.
        run.errored(file, new vscode.TestMessage((o.failures ?? []).join('\n') || `${o.name}: not listed; refresh the Testing view`));
        continue;
      }
      if (o.passed) {
        run.passed(item, o.durationMs);
      } else {
        run.failed(item, messagesFor(o, file.uri!), o.durationMs);
      }
    }
  }

  /** updateExpectation writes what `restls test --update` would into the case's expectations (the server answers the edit). */
  async updateExpectation(arg: unknown): Promise<boolean> {
    // testing/item/context passes the item; testing/message/context {test, message}.
    const a = arg as { test?: vscode.TestItem } & Partial<vscode.TestItem>;
    const item = (a && a.test) || (arg as vscode.TestItem);
    if (!item || !item.parent || !item.uri) {
      void vscode.window.showInformationMessage('restls: choose a test case to update its expectation.');
      return false;
    }
    let res: { edit?: unknown; updated?: boolean };
    try {
      res = (await this.exec(TestCommands.update, [{ uri: item.uri.toString(), name: item.label }])) as typeof res;
    } catch (e) {
      void vscode.window.showErrorMessage(`restls: cannot update ${item.label}: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    if (!res.updated || !res.edit) {
      void vscode.window.showInformationMessage(`restls: the expectations of ${item.label} already hold.`);
      return false;
    }
    const edit = editFrom(res.edit);
    return vscode.workspace.applyEdit(edit);
  }

  dispose(): void {
    for (const d of [...this.disposables, ...this.watcher]) {
      d.dispose();
    }
  }
}

/** maxGlob bounds the skip glob a server sends that skipMatcher compiles. */
const maxGlob = 1024;

/**
 * skipMatcher tells whether a file is in a directory the server's skip
 * glob leaves out (lsp.Files' skip, "**\/{.*,node_modules}/**"), by its
 * path relative to its workspace folder (a file in none is kept). The
 * glob is the server's; this only reads it: ** any directories, * and ?
 * within a name, {a,b} one of, and a trailing /** one or more names below
 * (a directory's files, never a file of that name). An empty or
 * unreadable glob skips nothing.
 */
export function skipMatcher(glob: string): (u: vscode.Uri) => boolean {
  const re = globRegExp(glob);
  if (!re) {
    return () => false;
  }
  return (u) => {
    const folder = vscode.workspace.getWorkspaceFolder(u);
    if (!folder) {
      return false;
    }
    const rel = u.path.startsWith(folder.uri.path + '/') ? u.path.slice(folder.uri.path.length + 1) : '';
    return rel !== '' && re.test(rel);
  };
}

/** globRegExp compiles glob (slash-separated) to a RegExp of whole paths; undefined when it is empty or too long. */
export function globRegExp(glob: string): RegExp | undefined {
  if (!glob || glob.length > maxGlob) {
    return undefined;
  }
  let out = '';
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      out += '(?:[^/]*/)*';
      i += 2;
    } else if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      out += '/.+';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (c === '*') {
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '{' && !inBraces) {
      inBraces = true;
      out += '(?:';
    } else if (c === '}' && inBraces) {
      inBraces = false;
      out += ')';
    } else if (c === ',' && inBraces) {
      out += '|';
    } else {
      out += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
    }
  }
  if (inBraces) {
    return undefined;
  }
  return new RegExp(`^${out}$`);
}

/** editFrom turns the server's WorkspaceEdit ({changes: {uri: [TextEdit]}}) into VS Code's. */
export function editFrom(raw: unknown): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  const changes = ((raw ?? {}) as { changes?: Record<string, { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }[]> }).changes ?? {};
  for (const [u, edits] of Object.entries(changes)) {
    for (const e of edits) {
      const r = new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character);
      edit.replace(vscode.Uri.parse(u), r, e.newText);
    }
  }
  return edit;
}
