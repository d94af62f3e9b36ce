// Extension entry point: starts `restls serve` for the platform scripts
// chosen by restls.include, and wires the commands, the status bar and the
// Response Preview to it.

import * as crypto from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
} from 'vscode-languageclient/node';
import { BinaryProblem, binaryFiles, chooseBinary, findCandidates } from './binary';
import { DebugHost, Debugging, withDebugLenses } from './debug';
import { InlineValues, InlineValueText } from './inlineValues';
import { DryRunMode, MissingMocks, RunArgs, lensesFor, modeLabel, progressMessage, readDefaultMode, runArgsFor } from './dryRun';
import { CommandResults, CompareResult, DOCUMENT_INFO, DocumentInfo, Files, PasteCurlAnswer, RunResult, Service, UpdateFixturesResult, compareAnswerFrom, documentInfoFrom, environmentsFrom, filesFrom, pasteCurlAnswerFrom, servicesFor } from './protocol';
import { PreviewPanel } from './previewPanel';
import {
  SECTION,
  SKIP_BEFORE_SERVER,
  ServerConfig,
  Settings,
  classifyChange,
  configDocumentSelector,
  configured,
  readSettings,
  readsInput,
  serverArgs,
  serverConfig,
  serverEnv,
  scriptSelector,
  testFileSelector,
} from './settings';
import { ServicesView, REVEAL, VIEW_ID, reveal } from './servicesView';
import { Location } from './servicesTree';
import { StatusBar } from './status';
import { TestsView } from './testing';
import { EXPLORE_FAULTS, SERVER_EXPLORE_FAULTS, faultsTable } from './faults';

/** UPDATE_FIXTURES is the button that writes the last run's answers into the fixture file. */
const UPDATE_FIXTURES = 'Update Fixtures';

/** PICK_KEY is the workspaceState key of the environment picked in this workspace: the user's choice, sent to the server, which decides what it names. */
export const PICK_KEY = 'restls.environment';

/** NO_PICK is how the status bar and the pick name "no environment in force" (the server's default: the plain settings). */
export const NO_PICK = 'default';

/** Commands are the VS Code command ids this extension contributes. They differ from the server's own command ids (restls.runScript, restls.services, restls.reload), which the language client registers by itself. */
export const Commands = {
  dryRun: 'restls.dryRunScript',
  dryRunLive: 'restls.dryRunLive',
  dryRunWithMocks: 'restls.dryRunWithMocks',
  recordMocks: 'restls.recordMocks',
  showServices: 'restls.showServices',
  reload: 'restls.reloadConfiguration',
  restart: 'restls.restartServer',
  showLog: 'restls.showLog',
  selectEnvironment: 'restls.selectEnvironment',
  refreshServices: 'restls.refreshServices',
  diffWithPrevious: 'restls.diffWithPreviousRun',
  diffWithFixtures: 'restls.diffWithFixtures',
  updateFixtures: 'restls.updateFixturesFromLastRun',
  revealInConfiguration: REVEAL,
  showReferences: 'restls.showReferences',
  pasteCurl: 'restls.pasteCurlAsCall',
  exploreFaults: EXPLORE_FAULTS,
} as const;

/** ServerCommands are the workspace/executeCommand ids of restls serve. */
/**
 * showReferences is the server's code-lens command restls.showReferences
 * ("3 scripts call this" on a configuration entry): its arguments are the
 * entry's URI and LSP position, which VS Code's references view
 * (editor.action.findReferences) takes as a Uri and a Position; it then
 * asks the server's textDocument/references there.
 */
export function showReferences(u: unknown, p: unknown): Thenable<unknown> | undefined {
  const pos = p as { line?: unknown; character?: unknown } | undefined;
  if (typeof u !== 'string' || typeof pos?.line !== 'number' || typeof pos?.character !== 'number') {
    return undefined;
  }
  return vscode.commands.executeCommand('editor.action.findReferences', vscode.Uri.parse(u), new vscode.Position(pos.line, pos.character));
}

export const ServerCommands = {
  runScript: 'restls.runScript',
  services: 'restls.services',
  serviceTree: 'restls.serviceTree',
  compareWithPrevious: 'restls.compareWithPrevious',
  compareWithFixtures: 'restls.compareWithFixtures',
  updateFixtures: 'restls.updateFixtures',
  reload: 'restls.reload',
  pasteCurl: 'restls.pasteCurl',
  exploreFaults: SERVER_EXPLORE_FAULTS,
} as const satisfies Record<string, keyof CommandResults>;

/**
 * RECONFIGURE_IN_PLACE sends changed configuration settings to the running
 * server (workspace/didChangeConfiguration) instead of restarting it: the
 * server reloads, re-registers its file watchers and re-diagnoses open
 * scripts, and keeps its state. (restls serve builds before lsp commit
 * d0d45b0 blocked on such a change; false restarts instead.)
 */
const RECONFIGURE_IN_PLACE = true;

const RESTARTS_ALLOWED = 3;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

/**
 * Client is the language client with the promises vscode-languageclient 9
 * drops when the server exits while it starts handled: its pending start
 * (rejected after the client let go of it), and the stop() it calls itself
 * when initialize fails (which writes shutdown to a server that is gone,
 * or rejects "not running"). Unhandled, each is an unhandled rejection in
 * the extension host.
 */
class Client extends LanguageClient {
  /** failed tells whether a write to the server failed or its connection closed: the server is going away. */
  private failed = false;
  private closed = false;
  private readonly handledClose: Promise<void>;
  private closeHandled: () => void = () => undefined;

  constructor(id: string, name: string, server: ServerOptions, options: LanguageClientOptions) {
    const handler = options.errorHandler!;
    let self: Client | undefined;
    super(id, name, server, {
      ...options,
      errorHandler: {
        error: (error, message, count) => {
          if (self) {
            self.failed = true;
          }
          return handler.error(error, message, count);
        },
        closed: () => handler.closed(),
      },
    });
    self = this;
    this.handledClose = new Promise((resolve) => (this.closeHandled = resolve));
  }

  override start(): Promise<void> {
    const starting = super.start();
    // A second start() while one is pending returns the client's own
    // promise of it, the one that a closed connection rejects.
    const pending = super.start();
    return Promise.all([starting, pending]).then(() => undefined);
  }

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    // Once the server is going away the extension's closed() tells the
    // user (once, or not at all while it restarts it): the client only logs.
    super.error(message, data, this.failed ? false : showNotification);
  }

  protected override async handleConnectionClosed(): Promise<void> {
    this.failed = true;
    this.closed = true;
    try {
      await super.handleConnectionClosed();
    } finally {
      this.closeHandled();
    }
  }

  override async stop(timeout = 2000): Promise<void> {
    if (this.failed) {
      // The server is going away: wait (at most timeout) until the client
      // has handled its closed connection instead of writing shutdown to it.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.handledClose, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeout)))]);
      clearTimeout(timer);
    }
    try {
      await super.stop(timeout);
    } catch (e) {
      // After the connection closed there is nothing to shut down; the
      // client's stop() still ends the process.
      if (!this.closed) {
        throw e;
      }
    }
  }
}

/** Restls is the extension's state: one language client at a time. */
export class Restls implements vscode.Disposable {
  client: LanguageClient | undefined;
  settings: Settings;
  /** problem is why the server is not running, shown in the status bar. */
  problem: string | undefined;
  readonly output: vscode.OutputChannel;
  readonly status: StatusBar;
  readonly preview: PreviewPanel;
  /** services is the Services view in the Explorer. */
  readonly services: ServicesView;
  /** values are the last dry run's values at the end of each line (inlineValues.ts). */
  readonly values = new InlineValues((doc) => this.inlineValues(doc));
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly notified = new Set<string>();
  private crashes: number[] = [];
  private queue: Promise<void> = Promise.resolve();
  private lastInput = new Map<string, string>();
  /** lenses are the dry-run CodeLenses above each script. */
  readonly lenses = new DryRunLenses(
    (doc) => this.selected(doc),
    (doc) => this.documentInfo(doc),
  );
  /**
   * fileWatcher refreshes "Dry run with mocks" when a fixture file the
   * server named (restls/documentInfo) appears or goes: the server names
   * fixture files, so the extension has no pattern of its own for them.
   */
  private readonly fileWatcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
  /** tests is the Testing view of the server's test files (testing.ts). */
  tests: TestsView | undefined;
  /** activeSeq orders the status bar's documentInfo answers: only the latest is shown. */
  private activeSeq = 0;

  constructor(private readonly ctx: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('restls');
    this.statusItem = vscode.window.createStatusBarItem('restls.status', vscode.StatusBarAlignment.Right, 100);
    this.statusItem.name = 'restls';
    this.status = new StatusBar(this.statusItem);
    this.preview = new PreviewPanel((uri, line, column) => this.reveal(uri, line, column));
    this.settings = readSettings(vscode.workspace.getConfiguration(SECTION));
    this.services = new ServicesView(() => this.fetchServiceTree());
    this.disposables.push(this.output, this.statusItem, this.preview, this.services, this.values);
  }

  /**
   * served is what the running server answered about environments
   * (restls/status): the ones to offer and the one in force. The server
   * lists and decides; the extension names and offers.
   */
  private served: { environments: string[]; environment: string | undefined } = { environments: [], environment: undefined };

  /** files are the server's globs of scripts and test files (initialize, then restls/status); undefined before a server answered. */
  files: Files | undefined;

  /** environment is the environment in force, as the server names it; undefined when none is. */
  environment(): string | undefined {
    return this.served.environment;
  }

  /** picked is the environment picked in this workspace, undefined for none (the server's default). */
  private picked(): string | undefined {
    return this.ctx.workspaceState.get<string>(PICK_KEY);
  }

  /** environmentLabel is what the status bar names: nothing when the server offers no environments. */
  private environmentLabel(): string | undefined {
    return this.served.environments.length > 0 ? (this.served.environment ?? NO_PICK) : undefined;
  }

  /** serverStatus takes the environments and files from a restls/status. */
  private serverStatus(params: unknown): void {
    this.served = environmentsFrom(params);
    this.files = filesFrom(params) ?? this.files;
    this.status.setEnvironment(this.environmentLabel());
  }

  private async fetchServiceTree(): Promise<unknown> {
    if (!this.running() || !this.client) {
      return undefined;
    }
    return this.client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.serviceTree, arguments: [] });
  }

  /** workspaceFolder is the folder settings are resolved against. */
  workspaceFolder(uri?: vscode.Uri): string | undefined {
    const f = (uri && vscode.workspace.getWorkspaceFolder(uri)) || vscode.workspace.workspaceFolders?.[0];
    return f?.uri.fsPath;
  }

  /** serverConfigFor is the `restls` configuration section for a resource. */
  serverConfigFor(uri?: vscode.Uri): ServerConfig {
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : vscode.workspace.workspaceFolders?.[0];
    const s = readSettings(vscode.workspace.getConfiguration(SECTION, folder?.uri));
    return serverConfig(s, folder?.uri.fsPath ?? this.workspaceFolder(uri), this.picked(), this.workspaceFolder());
  }

  activate(): void {
    const reg = (id: string, fn: () => unknown) => this.disposables.push(vscode.commands.registerCommand(id, fn));
    // The editor-title button passes the script's URI; the keybinding and
    // the palette pass nothing (the active editor). Both use the default
    // mode (restls.dryRun.mode); the CodeLenses name theirs.
    const run = (mode: DryRunMode | undefined) => (uri?: unknown) => this.dryRun(mode, uri instanceof vscode.Uri ? uri : undefined);
    this.disposables.push(
      vscode.commands.registerCommand(Commands.dryRun, run(undefined)),
      vscode.commands.registerCommand(Commands.dryRunLive, run('live')),
      vscode.commands.registerCommand(Commands.dryRunWithMocks, run('mock')),
      vscode.commands.registerCommand(Commands.recordMocks, run('record')),
      vscode.commands.registerCommand(Commands.diffWithPrevious, (uri?: unknown) => this.compare('previous', uri instanceof vscode.Uri ? uri : undefined)),
      vscode.commands.registerCommand(Commands.diffWithFixtures, (uri?: unknown) => this.compare('fixtures', uri instanceof vscode.Uri ? uri : undefined)),
      vscode.commands.registerCommand(Commands.updateFixtures, (uri?: unknown) => this.updateFixtures(uri instanceof vscode.Uri ? uri : undefined)),
    );
    reg(Commands.showServices, () => this.showServices());
    reg(Commands.reload, () => this.reload());
    reg(Commands.restart, () => this.restart(true));
    reg(Commands.showLog, () => this.output.show(true));
    reg(Commands.selectEnvironment, () => this.selectEnvironment());
    reg(Commands.refreshServices, () => this.services.refresh());
    reg(Commands.pasteCurl, () => this.pasteCurl());
    this.disposables.push(vscode.commands.registerCommand(Commands.exploreFaults, (uri?: unknown) => this.exploreFaults(uri instanceof vscode.Uri ? uri : undefined)));
    this.disposables.push(vscode.commands.registerCommand(Commands.showReferences, (u?: unknown, p?: unknown) => showReferences(u, p)));
    this.disposables.push(
      vscode.commands.registerCommand(Commands.revealInConfiguration, (loc: Location) => reveal(loc)),
      vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this.services, showCollapseAll: true }),
    );
    this.tests = new TestsView(
      async (command, args) => {
        const client = await this.requireClient();
        if (!client) {
          throw new Error(this.problem ?? 'the restls server is not running');
        }
        return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
      },
      async () => {
        // The Testing view asks which files are tests: the running server,
        // else the binary (silently: opening the view in an unrelated
        // project starts no server and says nothing).
        const files = this.files?.testFiles ? this.files : await this.askBinary();
        return files?.testFiles ? files : undefined;
      },
    );
    this.disposables.push(this.tests);
    this.disposables.push(new Debugging(this.debugHost()));
    this.status.setEnvironment(this.environmentLabel());
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) {
          void this.onSettingsChanged();
        }
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateActive()),
      vscode.languages.registerCodeLensProvider({ scheme: 'file', language: 'javascript' }, this.lenses),
      this.lenses,
      this.fileWatcher,
      this.fileWatcher.onDidCreate((u) => this.lenses.fileChanged(u.fsPath)),
      this.fileWatcher.onDidDelete((u) => this.lenses.fileChanged(u.fsPath)),
      vscode.workspace.onDidOpenTextDocument((doc) => {
        this.updateActive();
        if (!this.started) {
          void this.wantsServer(doc).then((yes) => (yes ? this.ensureStarted() : undefined));
        }
      }),
    );
    this.updateActive();
    void this.startIfWanted();
  }

  /**
   * startIfWanted starts the server when the workspace has platform work:
   * a service configuration file or a project file (restls.yaml), or an
   * open script or test file (wantsServer). VS Code activates the
   * extension for any JavaScript file; an unrelated project must not get a
   * server process, let alone a "restls not found" message. Which files
   * are scripts or tests is the server's answer (the running server's
   * this.files, else the binary's defaults), never the extension's.
   */
  private async startIfWanted(): Promise<void> {
    for (const d of vscode.workspace.textDocuments) {
      if (await this.wantsServer(d)) {
        return this.ensureStarted();
      }
    }
    let files: vscode.Uri[] = [];
    try {
      files = await vscode.workspace.findFiles('**/{script-service-api.xml,script-handler-api.xml,restls.yaml}', SKIP_BEFORE_SERVER, 1);
    } catch {
      // No workspace: wait for a script.
    }
    if (files.length > 0) {
      return this.ensureStarted();
    }
    this.log('no platform script open and no service configuration in the workspace: restls serve starts when a script is opened');
  }

  /** started tells whether the server was asked to start (it may have failed). */
  started = false;

  /** ensureStarted starts the server once; later calls wait for the pending start or restart. */
  ensureStarted(): Promise<void> {
    if (!this.started) {
      return this.restart(false);
    }
    return this.queue;
  }

  /**
   * wantsServer tells whether opening doc starts the server: a JavaScript
   * or YAML file on disk in a workspace set up for restls
   * (settings.configured), or one that the server's globs of scripts or
   * test files select: the running server's, else the binary's defaults
   * (askBinary).
   */
  private async wantsServer(doc: vscode.TextDocument): Promise<boolean> {
    if (doc.uri.scheme !== 'file' || (doc.languageId !== 'javascript' && doc.languageId !== 'yaml')) {
      return false;
    }
    if (configured(this.settings)) {
      return true;
    }
    const files = this.files ?? (await this.askBinary());
    return files !== undefined && vscode.languages.match([...scriptSelector(files.scripts ?? []), ...testFileSelector(files.testFiles)], doc) > 0;
  }

  /** binaryDefaults is the binary's answer to askBinary, asked once. */
  private binaryDefaults: Promise<Files | undefined> | undefined;

  /**
   * askBinary asks the restls binary for its default globs of scripts and
   * test files (`restls version --json`) before any server runs; undefined,
   * silently, when there is no usable binary (a workspace that may not be
   * a platform one gets no message).
   */
  private askBinary(): Promise<Files | undefined> {
    this.binaryDefaults ??= (async () => {
      try {
        const { found } = await chooseBinary(findCandidates(this.settings.path, this.workspaceFolder(), this.ctx.extensionPath));
        return await binaryFiles(found);
      } catch {
        return undefined;
      }
    })();
    return this.binaryDefaults;
  }

  /**
   * isScript asks the running server whether doc is a platform script
   * (restls/documentInfo's script); false while no server runs or for a
   * document the server was not sent (its globs of scripts select them).
   */
  async isScript(doc: vscode.TextDocument | undefined): Promise<boolean> {
    if (!doc || !this.selected(doc)) {
      return false;
    }
    return (await this.documentInfo(doc))?.script === true;
  }

  /** selected tells whether the running server's selector sends doc to it (its globs of scripts); false before a server answered. */
  selected(doc: vscode.TextDocument): boolean {
    return this.files !== undefined && vscode.languages.match(scriptSelector(this.files.scripts ?? []), doc) > 0;
  }

  /**
   * documentInfo asks the running server what it decided about doc
   * (restls/documentInfo: kind and why, fixture files, display path);
   * undefined while no server runs or when it cannot say (an older
   * server answers MethodNotFound).
   */
  async documentInfo(doc: vscode.TextDocument): Promise<DocumentInfo | undefined> {
    const client = this.client;
    if (!client || !this.running()) {
      return undefined;
    }
    try {
      return documentInfoFrom(await client.sendRequest(DOCUMENT_INFO, { textDocument: { uri: doc.uri.toString() } }));
    } catch (e) {
      this.log(`${DOCUMENT_INFO} for ${doc.uri.toString()}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  /** kindOf is the script kind the server decided for doc (scriptService until a server answers). */
  async kindOf(doc: vscode.TextDocument): Promise<string> {
    return (await this.documentInfo(doc))?.kind.kind ?? 'scriptService';
  }

  /** updateActive asks the server about the active document: whether it is a script (the run commands' context restls.isScript) and its kind (the status bar). */
  private updateActive(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const seq = ++this.activeSeq;
    if (!doc || !this.selected(doc)) {
      void vscode.commands.executeCommand('setContext', 'restls.isScript', false);
      // A server that could not start cannot say which files are scripts:
      // the item says why on every JavaScript file of the workspace.
      const failed = this.problem !== undefined && !this.running() && doc?.uri.scheme === 'file' && doc.languageId === 'javascript';
      this.status.setActive(failed ? 'scriptService' : undefined);
      return;
    }
    void this.documentInfo(doc).then((info) => {
      if (seq !== this.activeSeq) {
        return;
      }
      const script = info?.script === true;
      void vscode.commands.executeCommand('setContext', 'restls.isScript', script);
      this.status.setActive(script ? info.kind.kind : undefined);
    });
  }

  private async onSettingsChanged(): Promise<void> {
    const before = this.settings;
    if (before.path !== readSettings(vscode.workspace.getConfiguration(SECTION)).path) {
      this.binaryDefaults = undefined; // another binary may say otherwise
    }
    const after = readSettings(vscode.workspace.getConfiguration(SECTION));
    this.settings = after;
    this.updateActive();
    const change = classifyChange(before, after);
    this.log(`settings changed: ${change}`);
    if (!this.started) {
      // Nothing runs yet; a new include may match an open script.
      await this.startIfWanted();
    } else if (change === 'restart' || (change === 'reconfigure' && (!RECONFIGURE_IN_PLACE || !this.running()))) {
      this.notified.clear();
      await this.restart(false);
    } else if (change === 'reconfigure' && this.client) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.serverConfigFor() } });
    }
  }

  running(): boolean {
    return this.client !== undefined && this.client.state === State.Running;
  }

  /** restart stops the client (if any) and starts a new one; calls are serialised. */
  restart(manual: boolean): Promise<void> {
    this.started = true;
    void vscode.commands.executeCommand('setContext', 'restls.started', true);
    this.queue = this.queue.then(async () => {
      if (this.disposed) {
        return;
      }
      if (manual) {
        this.notified.clear();
        this.crashes = [];
      }
      await this.stop();
      await this.start();
    });
    return this.queue;
  }

  private async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.status.reset();
    if (c) {
      try {
        await c.stop(2000);
      } catch (e) {
        this.log(`stopping the server: ${String(e)}`);
      }
      try {
        await c.dispose();
      } catch {
        // Already stopped.
      }
    }
  }

  private async start(): Promise<void> {
    const ws = this.workspaceFolder();
    let found;
    let version;
    try {
      const chosen = await chooseBinary(findCandidates(this.settings.path, ws, this.ctx.extensionPath));
      found = chosen.found;
      version = chosen.version;
      for (const why of chosen.skipped) {
        this.log(`skipped: ${why}`);
      }
      if (found.source === 'extension' && this.settings.path) {
        this.log(`restls.path (${this.settings.path}) is not used: the binary bundled in the extension comes first`);
      }
    } catch (e) {
      const msg = e instanceof BinaryProblem ? e.message : `restls could not be started: ${String(e)}`;
      this.fail(msg, true);
      return;
    }
    this.log(`starting ${found.path} (${found.source}, restls ${version}) ${serverArgs(this.settings).join(' ')} --stdio`);
    this.problem = undefined;
    this.status.setProblem(undefined);
    const serverOptions: ServerOptions = {
      command: found.path,
      args: serverArgs(this.settings),
      transport: TransportKind.stdio,
      options: { cwd: ws, env: serverEnv(this.settings) },
    };
    const clientOptions: LanguageClientOptions = {
      // The scripts restls.include names, the test files (the server gives
      // them diagnostics; the path decides; their lenses are the Testing
      // view's here), and the configuration files (by name only: no other
      // YAML, XML or properties file).
      // (The scripts and test files are added when the server names them:
      // adoptFiles.)
      documentSelector: configDocumentSelector(),
      outputChannel: this.output,
      // The client would pop up a message for every failed notification
      // while a server is down; this extension reports once (fail()).
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: this.serverConfigFor(),
      synchronize: {
        fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{xml,yml,yaml,properties}'),
      },
      middleware: {
        // The Testing view runs the tests: the server's "Run test"
        // lenses are for clients without one. A "Debug" lens takes
        // their place (debug.ts).
        provideCodeLenses: async (doc, token, next) =>
          withDebugLenses(await next(doc, token), (range, cmd) => new vscode.CodeLens(range, cmd)),
        workspace: {
          configuration: async (params, token, next) => {
            const res = await next(params, token);
            return params.items.map((item, i) =>
              item.section === SECTION ? this.serverConfigFor(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined) : Array.isArray(res) ? res[i] : null,
            );
          },
        },
      },
      errorHandler: {
        // Write errors while the server is going down are followed by
        // closed(), which decides; only log them here.
        error: (err) => {
          this.log(`connection to the server: ${err.message}`);
          return { action: ErrorAction.Continue, handled: true };
        },
        closed: () => {
          exited = true;
          return this.onClosed();
        },
      },
      initializationFailedHandler: (err) => {
        // A server that exits before answering initialize fails it too;
        // closed() has decided then.
        if (!exited) {
          this.fail(`restls serve failed to initialize: ${err instanceof Error ? err.message : String(err)}. See "restls: Show Log".`, false);
        }
        return false;
      },
    };
    // exited tells whether this client's server has exited (closed()).
    let exited = false;
    const client = new Client('restls', 'restls', serverOptions, clientOptions);
    // Running is set as the initialize answer arrives, before the client
    // registers its document selector: the server's globs go in then.
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.adoptFiles(client);
      }
    });
    client.onNotification('restls/status', (params: unknown) => {
      this.status.update(params);
      this.serverStatus(params);
      // A status follows every load and settings change, which may change
      // kinds (restls.scriptKinds): ask the server again.
      this.updateActive();
      // A status follows every load: the view shows the new registry.
      void this.services.refresh();
    });
    this.client = client;
    try {
      await client.start();
      this.log('server running');
      // The lenses shown before had no server to name the fixture files.
      this.lenses.refresh();
    } catch (e) {
      if (this.client === client && !exited) {
        this.fail(`restls serve could not be started: ${e instanceof Error ? e.message : String(e)}. See "restls: Show Log".`, false);
      } else {
        this.log(`the server exited while starting: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /**
   * adoptFiles takes the server's globs of scripts and test files from its
   * initialize answer (capabilities.experimental.restls) and selects the
   * documents they match, with the configuration files: the documents the
   * client sends and serves. A server that names none gets only the
   * configuration files, and the log says why.
   */
  private adoptFiles(client: LanguageClient): void {
    const files = filesFrom((client.initializeResult?.capabilities.experimental as { restls?: unknown } | undefined)?.restls);
    this.files = files;
    if (!files) {
      this.log('the server names no script files (capabilities.experimental.restls): update restls; until then no script is served');
    }
    client.clientOptions.documentSelector = [...scriptSelector(files?.scripts ?? []), ...testFileSelector(files?.testFiles), ...configDocumentSelector()];
  }

  /**
   * onClosed restarts a crashed server, at most RESTARTS_ALLOWED times in
   * RESTART_WINDOW_MS, then stops with one notification. The extension
   * restarts it with a new client (restart): the client's own restart
   * leaves the promise of a start that the server's exit interrupts
   * unhandled.
   */
  private onClosed(): { action: CloseAction; handled: boolean; message: string } {
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= RESTARTS_ALLOWED) {
      const message = `the server stopped unexpectedly; restarting (${this.crashes.length} of ${RESTARTS_ALLOWED} in 3 minutes)`;
      void this.restart(false);
      return { action: CloseAction.DoNotRestart, handled: true, message };
    }
    const message = `The restls server stopped ${this.crashes.length} times in 3 minutes and will not be restarted. See "restls: Show Log", then run "restls: Restart Server".`;
    this.fail(message, false);
    return { action: CloseAction.DoNotRestart, handled: true, message };
  }

  /** fail records why the server is not running and says so once. */
  fail(message: string, binary: boolean): void {
    this.problem = message;
    this.status.setProblem(message);
    this.updateActive();
    this.log(message);
    if (this.notified.has(message)) {
      return;
    }
    this.notified.add(message);
    const actions = binary ? ['Open Setting', 'Show Log'] : ['Show Log', 'Restart Server'];
    void vscode.window.showErrorMessage(message, ...actions).then((pick) => {
      if (pick === 'Open Setting') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'restls.path');
      } else if (pick === 'Show Log') {
        this.output.show(true);
      } else if (pick === 'Restart Server') {
        void this.restart(true);
      }
    });
  }

  /** debugHost is what the restls debug type asks of the extension (debug.ts). */
  private debugHost(): DebugHost {
    // An environment of restls.environments is the editor's: its sources
    // go to restls dap as flags; any other is the project file's, by name.
    const editorEnv = (folder: string | undefined) => {
      const picked = this.picked();
      const cfg = this.serverConfigFor(folder ? vscode.Uri.file(folder) : undefined);
      return { picked, cfg, editor: picked !== undefined && cfg.environments?.[picked] !== undefined };
    };
    return {
      binary: async (folder) => (await chooseBinary(findCandidates(this.settings.path, folder, this.ctx.extensionPath))).found.path,
      sources: (folder) => {
        const { picked, cfg, editor } = editorEnv(folder);
        return editor ? cfg.environments![picked!] : cfg;
      },
      environment: () => {
        const { picked, editor } = editorEnv(this.workspaceFolder());
        return editor ? undefined : picked;
      },
      logLevel: () => this.settings.logLevel,
      processEnv: () => serverEnv(this.settings),
      documentInfo: (doc) => this.documentInfo(doc),
      mode: (doc) => readDefaultMode(vscode.workspace.getConfiguration(SECTION, doc.uri).get('dryRun.mode')),
      log: (line) => this.log(line),
    };
  }

  log(message: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${message}`);
  }

  private async requireClient(): Promise<LanguageClient | undefined> {
    if (!this.started) {
      await this.ensureStarted();
    }
    if (this.running()) {
      return this.client;
    }
    const why = this.problem ?? 'the restls server is still starting; try again in a moment.';
    void vscode.window.showErrorMessage(`restls: ${why}`, 'Show Log').then((p) => p && this.output.show(true));
    return undefined;
  }

  /**
   * dryRun runs a script through restls.runScript and shows the Response
   * Preview: the script at target (a CodeLens or the editor-title button)
   * or the active one, in mode, or in restls.dryRun.mode when none is given.
   */
  async dryRun(mode?: DryRunMode, target?: vscode.Uri): Promise<RunResult | undefined> {
    const doc = await this.scriptDocument(target);
    const client = doc && (await this.requireClient());
    if (!doc || !client) {
      return undefined;
    }
    const runMode = mode ?? readDefaultMode(vscode.workspace.getConfiguration(SECTION, doc.uri).get('dryRun.mode'));
    const script = doc.uri.scheme === 'file' ? doc.uri.fsPath : undefined;
    let args: RunArgs;
    try {
      args = runArgsFor(doc.uri.toString(), await this.documentInfo(doc), runMode);
    } catch (e) {
      if (e instanceof MissingMocks) {
        void vscode.window.showWarningMessage(`restls: ${e.message}.`, 'Record Mocks').then((p) => p && this.dryRun('record', doc.uri));
        return undefined;
      }
      throw e;
    }
    if (readsInput(doc.getText())) {
      const input = await this.pickInput(doc);
      if (input === CANCELLED) {
        return undefined;
      }
      if (input !== undefined) {
        args.input = input;
      }
    }
    const name = path.basename(doc.uri.fsPath);
    const what = runMode === 'record' ? 'recording the mocks of' : runMode === 'mock' ? 'dry run with mocks of' : 'dry run of';
    let result: RunResult | null | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `restls: ${what} ${name}`, cancellable: true },
        async (progress, token) => {
          const wd = `restls-run-${crypto.randomUUID()}`;
          const sub = client.onProgress(WorkDoneProgress.type, wd, (v) => {
            const message = v.kind === 'end' ? undefined : progressMessage(v.message, script, doc.uri.toString());
            if (message) {
              progress.report({ message });
            }
          });
          try {
            return (await client.sendRequest(
              ExecuteCommandRequest.type,
              { command: ServerCommands.runScript, arguments: [args], workDoneToken: wd },
              token,
            )) as CommandResults[typeof ServerCommands.runScript];
          } finally {
            sub.dispose();
          }
        },
      );
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (/cancel/i.test(msg)) {
        this.log(`dry run of ${name} cancelled`);
        return undefined;
      }
      this.log(`dry run of ${name} failed: ${msg}`);
      void vscode.window.showErrorMessage(`restls: the dry run of ${name} failed: ${msg}`, 'Show Log').then((p) => p && this.output.show(true));
      return undefined;
    }
    if (!result || typeof result !== 'object') {
      void vscode.window.showErrorMessage(`restls: the dry run of ${name} returned no result; see "restls: Show Log".`);
      return undefined;
    }
    // Which file the run read or wrote: the one it named, else (mock or
    // record "auto") the one the server finds beside the script now.
    const named = typeof args.record === 'string' && args.record !== 'auto' ? args.record : typeof args.mock === 'string' && args.mock !== 'auto' ? args.mock : undefined;
    const now = named === undefined ? await this.documentInfo(doc) : undefined;
    const file = named ?? (now?.mockFile || (args.record === 'auto' ? now?.fixtures?.[0] : undefined));
    this.preview.show(result, doc.uri, name, modeLabel(result.mode, result.mode === 'live' ? undefined : file));
    void this.values.refresh(doc);
    if (runMode === 'record') {
      this.lenses.refresh();
    }
    return result;
  }

  /** inlineValues asks the server for the last run's values in doc (textDocument/inlineValue over the whole document). */
  private async inlineValues(doc: vscode.TextDocument): Promise<InlineValueText[] | undefined> {
    const client = this.client;
    if (!client || !this.running()) {
      return undefined;
    }
    const whole = { start: { line: 0, character: 0 }, end: { line: doc.lineCount, character: 0 } };
    return (await client.sendRequest('textDocument/inlineValue', {
      textDocument: { uri: doc.uri.toString() },
      range: whole,
      context: { frameId: 0, stoppedLocation: whole },
    })) as InlineValueText[] | undefined;
  }

  /**
   * scriptDocument is the open document at target, else the active one,
   * when the server says it is a platform script (starting the server if
   * need be); undefined, with a message, otherwise.
   */
  private async scriptDocument(target?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
    const doc = target ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString()) : vscode.window.activeTextEditor?.document;
    if (doc && doc.uri.scheme === 'file' && !this.started) {
      await this.ensureStarted();
    }
    if (!doc || !(await this.isScript(doc))) {
      void vscode.window.showInformationMessage(NOT_A_SCRIPT);
      return undefined;
    }
    return doc;
  }

  /**
   * pasteCurl turns the curl command line on the clipboard into an
   * api.rest.v1 call at the cursor of the active script (replacing the
   * selection, if any), with what was left out as `// restls:` comments
   * above it. The server converts it (restls.pasteCurl, the engine of
   * restls curl and of the designer's Paste curl); its error says what
   * to fix (a URL no service matches: which base url to configure).
   * Answers whether the call was inserted.
   */
  async pasteCurl(): Promise<boolean> {
    const editor = vscode.window.activeTextEditor;
    const doc = editor && (await this.scriptDocument());
    if (!editor || !doc) {
      return false;
    }
    const curl = await vscode.env.clipboard.readText();
    if (!curl.trim()) {
      void vscode.window.showInformationMessage('restls: the clipboard is empty: copy a curl command line first (a browser\'s "Copy as cURL (bash)").');
      return false;
    }
    const client = await this.requireClient();
    if (!client) {
      return false;
    }
    const sel = editor.selection;
    let answer: PasteCurlAnswer | undefined;
    try {
      answer = pasteCurlAnswerFrom(await client.sendRequest(ExecuteCommandRequest.type, {
        command: ServerCommands.pasteCurl,
        arguments: [{ uri: doc.uri.toString(), position: { line: sel.start.line, character: sel.start.character }, curl }],
      }));
    } catch (e) {
      void vscode.window.showWarningMessage(`restls: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    if (!answer) {
      void vscode.window.showWarningMessage('restls: restls.pasteCurl answered in a shape this extension does not know; update restls or the extension.');
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(sel.start, sel.end), answer.text);
    return vscode.workspace.applyEdit(edit);
  }

  /**
   * exploreFaults explores the script's error paths (restls.exploreFaults,
   * from the fixtures beside it) and shows the table in the log; the
   * server then shows the Faults lenses and warnings.
   */
  async exploreFaults(target?: vscode.Uri): Promise<string | undefined> {
    const doc = await this.scriptDocument(target);
    const client = doc && (await this.requireClient());
    if (!doc || !client) {
      return undefined;
    }
    const name = path.basename(doc.uri.fsPath);
    let table: ReturnType<typeof faultsTable>;
    try {
      table = faultsTable(await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `restls: exploring the faults of ${name}`, cancellable: true },
        (_progress, token) => client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.exploreFaults, arguments: [{ uri: doc.uri.toString() }] }, token),
      ));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log(`fault exploration of ${name} failed: ${msg}`);
      void vscode.window.showErrorMessage(`restls: ${msg}`, 'Show Log').then((p) => p && this.output.show(true));
      return undefined;
    }
    if (!table) {
      void vscode.window.showErrorMessage(`restls: the fault exploration of ${name} returned no result; see "restls: Show Log".`);
      return undefined;
    }
    this.output.appendLine(table.text);
    const show = (p: string | undefined) => p && this.output.show(true);
    if (table.failing > 0) {
      void vscode.window.showWarningMessage(`restls: ${table.summary}: see the warnings on the calls, whose quick fixes add test cases.`, 'Show Table').then(show);
    } else {
      void vscode.window.showInformationMessage(`restls: ${table.summary}`, 'Show Table').then(show);
    }
    return table.text;
  }

  /**
   * compare shows the diff of the script's last dry run against the run
   * before it, or against its fixtures (docs/lsp.md, "Run history"), as
   * the server renders it, in a document beside the script. After a diff
   * with the fixtures that is not empty it offers to update them.
   */
  async compare(against: 'previous' | 'fixtures', target?: vscode.Uri): Promise<CompareResult | undefined> {
    const doc = await this.scriptDocument(target);
    const client = doc && (await this.requireClient());
    if (!doc || !client) {
      return undefined;
    }
    const name = path.basename(doc.uri.fsPath);
    const command = against === 'previous' ? ServerCommands.compareWithPrevious : ServerCommands.compareWithFixtures;
    let answer: CompareResult | undefined;
    try {
      answer = compareAnswerFrom(await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [{ uri: doc.uri.toString() }] }));
    } catch (e) {
      // The server says what to do (run the script first, record fixtures).
      void vscode.window.showWarningMessage(`restls: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
    if (!answer) {
      void vscode.window.showErrorMessage(`restls: the comparison for ${name} returned no diff; see "restls: Show Log".`);
      return undefined;
    }
    const shown = await vscode.workspace.openTextDocument({ content: answer.text, language: 'plaintext' });
    await vscode.window.showTextDocument(shown, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
    if (against === 'fixtures' && !answer.diff?.same) {
      const file = answer.old.fixtures ? path.basename(answer.old.fixtures) : 'the fixtures';
      const pick = await vscode.window.showInformationMessage(`restls: the last run of ${name} differs from ${file}. Update ${file} with its answers?`, UPDATE_FIXTURES);
      if (pick === UPDATE_FIXTURES) {
        await this.writeFixtures(doc);
      }
    }
    return answer;
  }

  /**
   * updateFixtures writes the answers of the script's last run into its
   * fixture file, after showing the diff with the file when there is one
   * (compare asks), or asking first when there is none yet.
   */
  async updateFixtures(target?: vscode.Uri): Promise<UpdateFixturesResult | undefined> {
    const doc = await this.scriptDocument(target);
    if (!doc) {
      return undefined;
    }
    const info = await this.documentInfo(doc);
    if (info?.mockFile) {
      await this.compare('fixtures', doc.uri);
      return undefined;
    }
    const file = info?.fixtures?.[0] ? path.basename(info.fixtures[0]) : 'a fixture file beside the script';
    const pick = await vscode.window.showInformationMessage(`restls: write the answers of the last run of ${path.basename(doc.uri.fsPath)} to ${file}?`, UPDATE_FIXTURES);
    return pick === UPDATE_FIXTURES ? this.writeFixtures(doc) : undefined;
  }

  private async writeFixtures(doc: vscode.TextDocument): Promise<UpdateFixturesResult | undefined> {
    const client = await this.requireClient();
    if (!client) {
      return undefined;
    }
    let answer: UpdateFixturesResult | null;
    try {
      answer = (await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.updateFixtures, arguments: [{ uri: doc.uri.toString() }] })) as CommandResults[typeof ServerCommands.updateFixtures];
    } catch (e) {
      void vscode.window.showWarningMessage(`restls: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
    if (!answer || typeof answer !== 'object') {
      void vscode.window.showWarningMessage('restls: updating the fixtures returned no answer; see "restls: Show Log".');
      return undefined;
    }
    const skipped = answer.skipped > 0 ? ` (${answer.skipped} without an answer to write)` : '';
    void vscode.window.showInformationMessage(`restls: wrote ${answer.calls} answer${answer.calls === 1 ? '' : 's'} of the last run to ${path.basename(answer.file)}${skipped}.`);
    this.lenses.refresh();
    return answer;
  }

  /** pickInput asks for the input JSON of a script that reads context.input; undefined runs without input. */
  private async pickInput(doc: vscode.TextDocument): Promise<unknown> {
    const key = doc.uri.toString();
    const last = this.lastInput.get(key) ?? this.ctx.workspaceState.get<string>(`restls.input:${key}`);
    type Item = vscode.QuickPickItem & { id: 'last' | 'choose' | 'none' };
    const items: Item[] = [];
    if (last) {
      items.push({ id: 'last', label: `$(json) ${path.basename(last)}`, description: 'last used', detail: last });
    }
    items.push({ id: 'choose', label: '$(folder-opened) Choose an input JSON file…' });
    items.push({ id: 'none', label: '$(circle-slash) Run without input', description: 'context.input is undefined' });
    const pick = await vscode.window.showQuickPick(items, { title: 'restls: this script reads context.input', placeHolder: 'Input for the dry run' });
    if (!pick) {
      return CANCELLED;
    }
    if (pick.id === 'none') {
      return undefined;
    }
    let file = last;
    if (pick.id === 'choose') {
      const uris = await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { JSON: ['json'] },
        openLabel: 'Use as context.input',
        defaultUri: doc.uri,
      });
      if (!uris || uris.length === 0) {
        return CANCELLED;
      }
      file = uris[0].fsPath;
    }
    if (!file) {
      return CANCELLED;
    }
    try {
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(file));
      const value = JSON.parse(Buffer.from(bytes).toString('utf8'));
      this.lastInput.set(key, file);
      void this.ctx.workspaceState.update(`restls.input:${key}`, file);
      return value;
    } catch (e) {
      void vscode.window.showErrorMessage(`restls: cannot use ${file} as context.input: ${e instanceof Error ? e.message : String(e)}. Choose a file holding one JSON value.`);
      return CANCELLED;
    }
  }

  /** showServices lists the active script kind's services; the chosen serviceId is inserted at the cursor. */
  async showServices(): Promise<string | undefined> {
    const client = await this.requireClient();
    if (!client) {
      return undefined;
    }
    const editor = vscode.window.activeTextEditor;
    const script = editor && (await this.isScript(editor.document));
    const kind = script ? await this.kindOf(editor.document) : 'scriptService';
    // With a script the server decides its kind (it knows the same rules).
    const arg = script ? { uri: editor.document.uri.toString() } : { kind };
    let answer: unknown;
    try {
      answer = await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.services, arguments: [arg] });
    } catch (e) {
      void vscode.window.showErrorMessage(`restls: cannot list services: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
    const services: Record<string, Service> = servicesFor(answer, kind);
    const ids = Object.keys(services).sort();
    if (ids.length === 0) {
      const reason = this.status.statusOf(kind)?.reason;
      void vscode.window.showWarningMessage(`restls: no services are configured for ${kind}${reason ? ': ' + reason : ''}.`, 'Show Log').then((p) => p && this.output.show(true));
      return undefined;
    }
    const items = ids.map((id) => ({ label: id, description: services[id].url ?? '', detail: services[id].description || undefined }));
    const pick = await vscode.window.showQuickPick(items, {
      title: `restls: services for ${kind}`,
      placeHolder: 'Choose a serviceId to insert',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!pick) {
      return undefined;
    }
    if (editor) {
      await editor.edit((b) => {
        for (const sel of editor.selections) {
          const before = sel.start.character > 0 ? editor.document.lineAt(sel.start.line).text[sel.start.character - 1] : '';
          const quoted = before === '"' || before === "'" || before === '`';
          b.replace(sel, quoted ? pick.label : JSON.stringify(pick.label));
        }
      });
    } else {
      await vscode.env.clipboard.writeText(pick.label);
      void vscode.window.showInformationMessage(`restls: copied serviceId ${pick.label}`);
    }
    return pick.label;
  }

  /**
   * selectEnvironment offers the environments the server lists
   * (restls/status: restls.yaml's and restls.environments together) and
   * "default" (no pick: the server's default), with the one in force
   * checked, and sends the pick to the server, which decides and says in
   * its next status what is in force. The pick is remembered in this
   * workspace.
   */
  async selectEnvironment(): Promise<string | undefined> {
    const client = await this.requireClient();
    if (!client) {
      return undefined;
    }
    const { environments, environment } = this.served;
    if (environments.length === 0) {
      const pick = await vscode.window.showInformationMessage(
        'restls: no environments are defined. Define them in the project file (restls.yaml, "environments") or in the restls.environments setting: a name and its configRoot, properties, serviceXml, handlerXml and platformConfig.',
        'Open Setting',
      );
      if (pick === 'Open Setting') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'restls.environments');
      }
      return undefined;
    }
    // Where an environment of the setting points: shown, not decided.
    const where = (e: { configRoot: string; properties: string[]; serviceXml: string }) =>
      [e.configRoot, ...e.properties, e.serviceXml].filter(Boolean).join(', ') || 'the workspace folder';
    const own = this.settings.environments;
    type Item = vscode.QuickPickItem & { env: string | undefined };
    const check = (on: boolean) => (on ? '$(check) ' : '');
    const items: Item[] = [
      { env: undefined, label: `${check(environment === undefined)}${NO_PICK}`, description: "no pick: the server's default", detail: where(this.settings) },
      ...environments.map((n) =>
        Object.prototype.hasOwnProperty.call(own, n) ? { env: n, label: `${check(environment === n)}${n}`, detail: where(own[n]) } : { env: n, label: `${check(environment === n)}${n}`, description: 'restls.yaml' },
      ),
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'restls: environment', placeHolder: 'The configuration completion, diagnostics and dry runs use' });
    if (!pick) {
      return undefined;
    }
    const before = this.picked();
    await this.ctx.workspaceState.update(PICK_KEY, pick.env);
    this.log(`environment picked: ${pick.env ?? NO_PICK}`);
    if (pick.env !== before && this.running() && this.client) {
      this.status.reset();
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.serverConfigFor() } });
    }
    return pick.env ?? NO_PICK;
  }

  /** reload asks the server to read the configuration again. */
  async reload(): Promise<void> {
    const client = await this.requireClient();
    if (!client) {
      return;
    }
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommands.reload, arguments: [] });
      // The server itself says once that the platform needs a restart of
      // webforms-rest (docs/api.md#service-configuration); no need to repeat it here.
      void vscode.window.showInformationMessage('restls: configuration reloaded.');
    } catch (e) {
      void vscode.window.showErrorMessage(`restls: reload failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async reveal(uri: vscode.Uri, line: number, column: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), viewColumn: vscode.ViewColumn.One });
  }

  /** disposed tells whether dispose ran: a restart still queued (a crashed server's) starts nothing. */
  private disposed = false;

  async dispose(): Promise<void> {
    this.disposed = true;
    // A start under way ends first, then its client is stopped.
    await this.queue.catch(() => undefined);
    await this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

const CANCELLED = Symbol('cancelled');

/** NOT_A_SCRIPT is what a script command says on a document the server does not serve as a script. */
const NOT_A_SCRIPT = "restls: open a platform script first (a file restls serves as a script: restls.include, else the server's default).";

/**
 * DryRunLenses puts "Dry run", "Dry run with mocks" (when the server found
 * the script's fixture file) and "Record mocks" above the first line of
 * every platform script. The fixture files are the server's answer
 * (restls/documentInfo); a file event on one of them asks again.
 */
export class DryRunLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  /** fixtures are the fixture files of the scripts the lenses were given, as the server named them. */
  private readonly fixtures = new Set<string>();

  constructor(
    private readonly selected: (doc: vscode.TextDocument) => boolean,
    private readonly info: (doc: vscode.TextDocument) => Promise<DocumentInfo | undefined>,
  ) {}

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!this.selected(doc)) {
      return [];
    }
    const info = await this.info(doc);
    if (info && !info.script) {
      return [];
    }
    for (const f of info?.fixtures ?? []) {
      this.fixtures.add(f);
    }
    const top = new vscode.Range(0, 0, 0, 0);
    const command = { live: Commands.dryRunLive, mock: Commands.dryRunWithMocks, record: Commands.recordMocks, auto: Commands.dryRun };
    return lensesFor(info).map((l) => new vscode.CodeLens(top, { title: l.title, tooltip: l.tooltip, command: command[l.mode], arguments: [doc.uri] }));
  }

  /** fileChanged refreshes the lenses when file is a fixture file the server named. */
  fileChanged(file: string): void {
    if (this.fixtures.has(file)) {
      this.refresh();
    }
  }

  refresh(): void {
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

let instance: Restls | undefined;

export function activate(ctx: vscode.ExtensionContext): Restls {
  instance = new Restls(ctx);
  instance.activate();
  return instance;
}

export async function deactivate(): Promise<void> {
  const i = instance;
  instance = undefined;
  await i?.dispose();
}
