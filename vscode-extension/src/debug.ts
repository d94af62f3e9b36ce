// The `restls` debug type: VS Code's debugger runs `restls dap` (the same
// binary as the language server) and talks the Debug Adapter Protocol to
// it. The launch configurations are restls dap's (docs/debugging.md): this
// file names them, fills what the editor knows (the script, its fixtures,
// the environment picked) and leaves every decision to restls dap, whose
// refusals VS Code shows.

import * as vscode from 'vscode';
import type { DryRunMode } from './dryRun';
import { MissingMocks } from './dryRun';
import type { DocumentInfo } from './protocol';
import type { Sources } from './settings';

/** DEBUG_TYPE is the debug type package.json contributes. */
export const DEBUG_TYPE = 'restls';

/** DebugCommands are the debugger's commands (package.json). */
export const DebugCommands = {
  debugScript: 'restls.debugScript',
  debugTestCase: 'restls.debugTestCase',
  replayLastRun: 'restls.replayLastRun',
  replayHistoryEntry: 'restls.replayHistoryEntry',
} as const;

/** RUN_TESTS is the server's command behind its "Run test" lenses. */
const RUN_TESTS = 'restls.runTests';

/** Launch is a `restls` launch configuration, as restls dap takes it. */
export interface Launch extends vscode.DebugConfiguration {
  program?: string;
  fixtures?: string;
  live?: boolean;
  input?: unknown;
  env?: string;
  stopOnEntry?: boolean;
  testFile?: string;
  case?: string;
  replay?: string;
}

/**
 * scriptLaunch is "Debug Script" for the script at file: its calls
 * answered as a dry run in mode answers them (restls.dryRun.mode): live,
 * from its fixture file (mock; MissingMocks without one), or auto (the
 * file beside when the server found one, else live).
 */
export function scriptLaunch(file: string, info: DocumentInfo | undefined, mode: DryRunMode, env?: string): Launch {
  const out: Launch = { type: DEBUG_TYPE, request: 'launch', name: 'Debug Script', program: file };
  switch (mode) {
    case 'live':
    case 'record':
      out.live = true;
      break;
    case 'mock':
      if (!info?.mockFile) {
        throw new MissingMocks(info?.displayPath || file, info?.fixtures ?? []);
      }
      out.fixtures = info.mockFile;
      break;
    default:
      if (info?.mockFile) {
        out.fixtures = info.mockFile;
      } else {
        out.live = true;
      }
  }
  if (env) {
    out.env = env;
  }
  return out;
}

/** testCaseLaunch is "Debug Test Case": one case of a test file (restls dap's testFile and case). */
export function testCaseLaunch(testFile: string, name: string): Launch {
  return { type: DEBUG_TYPE, request: 'launch', name: `Debug Test Case ${name}`, testFile, case: name };
}

/** replayLaunch replays a run of the script at program: "last" its last run, else a history entry or recorded fixtures file. */
export function replayLaunch(program: string, entry: string): Launch {
  return { type: DEBUG_TYPE, request: 'launch', name: entry === 'last' ? 'Replay Last Run' : `Replay ${entry}`, program, replay: entry };
}

/**
 * dapArgs are restls dap's arguments: the configuration sources the
 * settings name (absolute paths; none when they name none, and restls dap
 * reads the project file and the working directory as restls run does).
 */
export function dapArgs(src: Sources | undefined, logLevel: string): string[] {
  const out = ['dap', '--log-level', logLevel];
  if (!src) {
    return out;
  }
  const flag = (name: string, v: string) => (v ? out.push(`--${name}`, v) : undefined);
  flag('config-root', src.configRoot);
  for (const p of src.properties) {
    flag('properties', p);
  }
  flag('service-xml', src.serviceXml);
  flag('handler-xml', src.handlerXml);
  flag('platform-config', src.platformConfig);
  return out;
}

/** LensLike is a CodeLens as the language client gives it. */
export interface LensLike {
  range: vscode.Range;
  command?: { title: string; command: string; arguments?: unknown[] };
}

/**
 * withDebugLenses are a test file's lenses in VS Code: the server's "Run
 * test" lenses leave (the Testing view runs tests, with its own run
 * buttons) and a "Debug" lens stands above each case in their place.
 */
export function withDebugLenses<L extends LensLike>(lenses: L[] | null | undefined, make: (range: vscode.Range, cmd: { title: string; command: string; arguments: unknown[]; tooltip: string }) => L): L[] | null | undefined {
  if (!lenses) {
    return lenses;
  }
  const out: L[] = [];
  for (const l of lenses) {
    if (l.command?.command !== RUN_TESTS) {
      out.push(l);
      continue;
    }
    const a = l.command.arguments?.[0] as { uri?: unknown; name?: unknown } | undefined;
    if (typeof a?.uri === 'string' && typeof a.name === 'string' && a.name !== '') {
      out.push(make(l.range, { title: '$(debug-alt) Debug', command: DebugCommands.debugTestCase, arguments: [a.uri, a.name], tooltip: `Debug the test case ${a.name} in restls dap` }));
    }
  }
  return out;
}

/** DebugHost is what the debugger needs of the extension. */
export interface DebugHost {
  /** binary is the restls binary to run for a session in folder (the server's choice); it throws with a message to show. */
  binary(folder: string | undefined): Promise<string>;
  /** sources are the configuration sources the settings name for folder; undefined for none. */
  sources(folder: string | undefined): Sources | undefined;
  /** environment is the project file's environment picked in this workspace, if any. */
  environment(): string | undefined;
  logLevel(): string;
  processEnv(): Record<string, string>;
  documentInfo(doc: vscode.TextDocument): Promise<DocumentInfo | undefined>;
  mode(doc: vscode.TextDocument): DryRunMode;
  log(line: string): void;
}

/** Debugging registers the debug type, its configurations and commands. */
export class Debugging implements vscode.Disposable, vscode.DebugAdapterDescriptorFactory, vscode.DebugConfigurationProvider {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: DebugHost) {
    this.disposables.push(
      vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, this),
      vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, this),
      vscode.commands.registerCommand(DebugCommands.debugScript, (uri?: unknown) => this.debugScript(uri instanceof vscode.Uri ? uri : undefined)),
      vscode.commands.registerCommand(DebugCommands.debugTestCase, (uri?: unknown, name?: unknown) => this.debugTestCase(uri, name)),
      vscode.commands.registerCommand(DebugCommands.replayLastRun, (uri?: unknown) => this.replay(uri instanceof vscode.Uri ? uri : undefined, 'last')),
      vscode.commands.registerCommand(DebugCommands.replayHistoryEntry, (uri?: unknown) => this.replay(uri instanceof vscode.Uri ? uri : undefined, undefined)),
    );
  }

  /** createDebugAdapterDescriptor runs restls dap in the session's folder. */
  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const folder = session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const bin = await this.host.binary(folder);
    const args = dapArgs(this.host.sources(folder), this.host.logLevel());
    this.host.log(`debugging with ${bin} ${args.join(' ')}`);
    return new vscode.DebugAdapterExecutable(bin, args, { cwd: folder, env: this.host.processEnv() });
  }

  /**
   * resolveDebugConfiguration: F5 with no launch.json debugs the active
   * script; a configuration without env gets the environment picked.
   */
  async resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    if (!config.type && !config.request && !config.name) {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc || doc.uri.scheme !== 'file') {
        void vscode.window.showInformationMessage('restls: open a script to debug, or add a restls launch configuration (docs/debugging.md).');
        return undefined;
      }
      return this.scriptConfig(doc);
    }
    const env = this.host.environment();
    if (config.env === undefined && env) {
      config.env = env;
    }
    return config;
  }

  private async scriptConfig(doc: vscode.TextDocument): Promise<Launch | undefined> {
    try {
      return scriptLaunch(doc.uri.fsPath, await this.host.documentInfo(doc), this.host.mode(doc), this.host.environment());
    } catch (e) {
      void vscode.window.showErrorMessage(`restls: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  private target(uri: vscode.Uri | undefined): vscode.TextDocument | undefined {
    const doc = uri ? vscode.workspace.textDocuments.find((d: vscode.TextDocument) => d.uri.toString() === uri.toString()) : vscode.window.activeTextEditor?.document;
    if (!doc || doc.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('restls: open a saved script to debug it.');
      return undefined;
    }
    return doc;
  }

  async debugScript(uri?: vscode.Uri): Promise<boolean> {
    const doc = this.target(uri);
    const config = doc && (await this.scriptConfig(doc));
    if (!doc || !config) {
      return false;
    }
    await doc.save();
    return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(doc.uri), config);
  }

  async debugTestCase(uri: unknown, name: unknown): Promise<boolean> {
    if (typeof uri !== 'string' || typeof name !== 'string') {
      void vscode.window.showInformationMessage('restls: use the Debug lens above a test case.');
      return false;
    }
    const u = vscode.Uri.parse(uri);
    return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(u), testCaseLaunch(u.fsPath, name));
  }

  async replay(uri: vscode.Uri | undefined, entry: string | undefined): Promise<boolean> {
    const doc = this.target(uri);
    if (!doc) {
      return false;
    }
    const picked = entry ?? (await this.pickRun());
    if (!picked) {
      return false;
    }
    return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(doc.uri), replayLaunch(doc.uri.fsPath, picked));
  }

  /** pickRun asks which recorded run to replay: one of the last runs the history keeps, or a file (a history entry, restls run --json's output, a fixtures file). */
  private async pickRun(): Promise<string | undefined> {
    const file = '$(file) A recorded file…';
    const items = [
      { label: 'last', description: 'the last run' },
      ...[1, 2, 3, 4].map((n) => ({ label: `last~${n}`, description: `${n} run${n === 1 ? '' : 's'} before the last` })),
      { label: file, description: 'a history entry, restls run --json output or a fixtures file' },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Replay a run in the debugger', placeHolder: 'Which run of the script to replay, every call answered as recorded' });
    if (!pick) {
      return undefined;
    }
    if (pick.label !== file) {
      return pick.label;
    }
    const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Replay', filters: { 'Recorded runs': ['json', 'yaml', 'yml'] } });
    return chosen?.[0]?.fsPath;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
