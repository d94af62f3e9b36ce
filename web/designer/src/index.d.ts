// Types of @restls/designer-editor.
import type {EditorView} from "@codemirror/view"
import type {Extension} from "@codemirror/state"
import type {LSPClient} from "@codemirror/lsp-client"

// The server's answers: generated from the Go types that write them
// (wire.gen.d.ts; regenerate with go test ./web -run TestWireTypesUpToDate -update).
import type {ScriptKind, RunAnswer, ServerStatus, Status, KindStatus, ConfigDiagnostic, Call, ContractNote, RunError, RunPlan, MockDiagnostic, FaultsResult, TestRunAnswer, ScriptCoverage, TestScript} from "./wire.gen.js"
export type {ScriptKind, ServerStatus, Status, KindStatus, ConfigDiagnostic, ContractNote, RunError, RunPlan, MockDiagnostic, FaultsResult, TestRunAnswer, ScriptCoverage, TestScript}
/** One call of a dry run, as `restls run --json` prints it. */
export type RunCall = Call
/** A dry run as POST /v1/run answers it: the run, and with record the fixtures built from its masked trace. */
export type RunResult = RunAnswer

export declare const version: string
export declare const scriptKinds: readonly ScriptKind[]
/** The document URI a kind's script is opened under (file:///designer/<kind>/script.js). */
export declare function documentURI(kind: ScriptKind): string

export interface RestlsOptions {
  /** The backend's base address, e.g. "https://designer.internal:7373/". Default: the page's own. */
  url?: string
  /** The access key: --token, or the secret restls serve --http printed. Needed for dry runs. */
  token?: string
  /** One of the project file's environments for hints and runs; default the server's. */
  environment?: string
  /**
   * For restls serve --http --auth oidc: the platform user's OpenID Connect
   * token, sent as "Authorization: Bearer" and, on /lsp, as the WebSocket
   * subprotocol restls.bearer.<token>; never in a URL. A function is asked
   * before every connection and request, so a refreshed token is used.
   */
  bearer?: string | (() => string | Promise<string>)
  /** Attach to this editor... */
  view?: EditorView
  /** ...or create one in this element. */
  parent?: Element
  /** The created editor's text. */
  doc?: string
  /** More extensions for the created editor (ignored with view). */
  extensions?: Extension[]
  /** The created editor's accessible name; default "Script". */
  label?: string
  /** The first script kind; default scriptService. */
  kind?: ScriptKind
  /** Called on Ctrl+Enter (Cmd+Enter) in the editor. */
  onRun?: () => void
  /** Called with the state whenever it changes. */
  onChange?: (state: RestlsState) => void
  /** Reconnection pauses in ms: doubling from initial (500) up to max (10000). */
  reconnect?: {initial?: number, max?: number}
  /** Request timeout in ms (10000). */
  timeout?: number
}

export type Connection = "connecting" | "connected" | "reconnecting"

export interface RestlsState {
  connection: Connection
  kind: ScriptKind
  /** serviceId hints for the current kind; null until known. */
  hints: {offered: boolean, message: string} | null
  /** Whether this client may dry run, and why not; null until known. */
  run: {allowed: boolean, reason?: string} | null
  /** The last restls/status notification. */
  status: Status | null
  server: ServerStatus | null
  /** The project file's environments the server offers ([] when none). */
  environments: string[]
  /** The environment hints and runs use now ("" when the project file has none). */
  environment: string
}

export type RunOutcome =
  | {state: "idle", message?: string}
  | {state: "running"}
  | {state: "done", result: RunResult, mode: "mock" | "live" | "record"}
  | {state: "error", message: string, httpStatus?: number}

export interface RunOptions {
  /** context.input (any JSON value). */
  input?: unknown
  /** Fixtures answering the calls: --mock format as YAML or JSON text, or the JSON document. Blank means live. */
  mock?: string | unknown[] | {fixtures: unknown[]}
  /** Run live and get the answers back as fixtures (result.fixtures); mock is ignored. */
  record?: boolean
}

/** What pasteCurl did: the call inserted (its serviceId, text and notes), or why not. */
export type PasteCurlOutcome =
  | {ok: true, serviceId: string, call: string, notes: string[]}
  | {ok: false, message: string}

/** What exploreFaults takes: the fixtures the first run is answered by (the Mocks tab), its input. */
export interface FaultsOptions {
  /** A fixtures document (YAML or JSON): every run is answered by fixtures only. */
  mock: string
  /** context.input; undefined is {}. */
  input?: unknown
  /** How long to wait for the answer, in ms (default 120000). */
  timeout?: number
}

/** A fault exploration as renderFaults shows it: under way, done (the table), or why not. */
export type FaultsOutcome =
  | {state: "running"}
  | {state: "done", result: FaultsResult}
  | {state: "error", message: string}

/** What runTests takes: which script of the project the editor holds. */
export interface TestRunOptions {
  /**
   * The script's path in the project served, relative to its root with
   * "/" (scripts/orders.js): the test files (*.test.yaml) whose script:
   * resolves to it run, with the editor's text in place of the file.
   */
  script: string
}

/** A test run as renderTests shows it: under way, done (each case and the coverage), or why not. */
export type TestRunOutcome =
  | {state: "running"}
  | {state: "done", result: TestRunAnswer}
  | {state: "error", message: string, httpStatus?: number}

export interface RestlsEditor {
  readonly view: EditorView
  readonly client: LSPClient
  /** Whether attachRestls created the view (destroy() then destroys it). */
  readonly created: boolean
  readonly kind: ScriptKind
  readonly state: RestlsState
  /** Switch to another kind's registry, optionally replacing the text. */
  setKind(kind: ScriptKind, text?: string): void
  /** Call fn now and on every change; returns the unsubscribe function. */
  subscribe(fn: (state: RestlsState) => void): () => void
  /** Fetch GET /v1/status again. */
  refreshStatus(): Promise<ServerStatus | null>
  /** Open the quick fixes at the cursor (what Ctrl+. does). */
  quickFix(): boolean
  /** Move the cursor to a 1-based line and column. */
  showPosition(line: number, column?: number): void
  /** Dry-run the script (POST /v1/run); an uncaught error is marked in the editor. */
  run(options?: RunOptions): Promise<RunOutcome>
  /** The project file's environment hints and runs use ("" for the server's default). */
  readonly environment: string
  /** Use another of the project file's environments (RestlsState.environments) for hints and runs. */
  setEnvironment(name: string): void
  /** The services a live run would call and their kinds of credential (POST /v1/run/plan). */
  plan(): Promise<RunPlan>
  /** Where a fixtures document breaks, as a run would parse it (POST /v1/mock/check). */
  checkMocks(text: string): Promise<MockDiagnostic[]>
  /**
   * Turn a curl command line into the api.rest.v1 call at the cursor,
   * replacing the selection (the server's restls.pasteCurl, the engine of
   * `restls curl`); what was left out is a `// restls:` comment above it.
   * A command that cannot be read or a URL no service matches is
   * {ok: false} with the server's message (which base url to configure).
   */
  pasteCurl(curl: string): Promise<PasteCurlOutcome>
  /**
   * Explore the script's error paths (the server's restls.exploreFaults,
   * the engine of `restls faults`): one run answered by mock, then one per
   * call site and outcome. Needs the role mocker; a run that fails with
   * the fixtures, a refusal or no answer is {state: "error"}.
   */
  exploreFaults(options: FaultsOptions): Promise<FaultsOutcome>
  /**
   * Run the project's test cases of the script (POST /v1/test, the
   * engine of `restls test --coverage`) with the editor's text, and mark
   * in the gutter the lines they covered and those they never ran (a
   * marker's title says its hits, branches never taken and a call site's
   * outcomes). An edited line loses its mark; the next run or a kind
   * switch replaces them all. Needs the role mocker (every call is
   * answered by the test files' fixtures); a script no test file names is
   * {state: "error"} saying which file to create.
   */
  runTests(options: TestRunOptions): Promise<TestRunOutcome>
  /** The scripts the project's test files name, with those files (GET /v1/test/scripts); [] when this client may not run tests. */
  testScripts(): Promise<TestScript[]>
  /** Render a run with the response preview; the error position links to this editor. */
  renderPreview(container: HTMLElement, outcome: RunOutcome): void
  /** Detach from the view (destroying it if created) and close the socket. */
  destroy(): void
}

export declare function attachRestls(options: RestlsOptions): RestlsEditor

/** The response preview, for a page that shows runs elsewhere. */
export declare function renderPreview(container: HTMLElement, outcome: RunOutcome, options?: {
  /** Called when the user picks the error's (or a log line's) script position. */
  onPosition?: (line: number, column: number) => void
  /** A heading above the run. */
  title?: string
  /** How the calls were answered, instead of what the run's mode says. */
  modeLabel?: string
  /** When the run finished, shown in the summary. */
  when?: Date
}): void
/** A JSON value as nested foldable <details>. */
export declare function jsonTree(value: unknown): HTMLElement
/** Render a fault exploration as the CLI's table; a line links through onPosition. */
export declare function renderFaults(container: HTMLElement, outcome: FaultsOutcome, options?: {onPosition?: (line: number) => void}): void
/** Render a test run: each case's pass or fail with its failures, the coverage; an uncovered line links through onPosition. */
export declare function renderTests(container: HTMLElement, outcome: TestRunOutcome, options?: {onPosition?: (line: number) => void}): void
/** Mark the lines of a test run's coverage in view's gutter; null clears them. */
export declare function showCoverage(view: EditorView, coverage: ScriptCoverage | null | undefined): void
/** Mark a run's uncaught error in view; null clears it. */
export declare function markRunError(view: EditorView, error: RunError | null): void
export declare function showPosition(view: EditorView, line: number, column?: number): void
export declare function openQuickFixes(view: EditorView): boolean
/**
 * Create an element: attributes (functions named on* become listeners),
 * children as nodes or strings, which become text and are never parsed.
 */
export declare function el(tag: string, attrs?: Record<string, unknown> | null, ...children: unknown[]): HTMLElement
/** Drop active content from server-rendered documentation HTML. */
export declare function sanitizeHTML(html: string): string
export {LSPPlugin} from "@codemirror/lsp-client"

/** Where the backend is and who signs in: as RestlsOptions. */
export interface DebuggerOptions {
  url?: string
  token?: string
  bearer?: string | (() => string | Promise<string>)
  /** Called with the state whenever it changes. */
  onChange?: (state: DebugState) => void
}

/** A variable: its value as text (an object or array as a summary); ref, when not 0, expands it (RestlsDebugger.expand). */
export interface DebugVariable {
  name: string
  value: string
  ref: number
}

/** A debug session as the debugger shows it. */
export interface DebugState {
  /** idle: no session; starting: connecting and launching; running; stopped: paused at line. */
  status: "idle" | "starting" | "running" | "stopped"
  /** The 1-based line where the run stands stopped, or null. */
  line: number | null
  /** Why it stopped: breakpoint, step, pause, entry. */
  reason: string
  /** The stack, innermost first (the script's own functions; "(script)" outermost). */
  frames: {id: number, name: string, line: number}[]
  /** The stopped frame's scopes (Locals first) and their variables. */
  scopes: {name: string, variables: DebugVariable[]}[]
  /** The debug console: each call as made and answered, console lines, the result. */
  output: string[]
  /** Why the last session failed ("" when it did not). */
  error: string
}

export interface DebugStart {
  /** context.input (any JSON value). */
  input?: unknown
  /** Fixtures answering the calls (--mock format as YAML or JSON text); without them and without live, every call fails with no-fixture. */
  mock?: string
  /** Send the calls no fixture answers to the services (needs the role runner). */
  live?: boolean
  /** Stop before the first statement. */
  stopOnEntry?: boolean
}

/** How a debug session ended: its console output, or why it failed (a refused launch says why). */
export type DebugOutcome = {state: "done", output: string[]} | {state: "error", message: string, output: string[]}

export interface RestlsDebugger {
  readonly state: DebugState
  /** The 1-based lines that hold a breakpoint (a click in the breakpoint gutter toggles one). */
  readonly breakpoints: number[]
  toggleBreakpoint(line: number): void
  subscribe(fn: (state: DebugState) => void): () => void
  /** Debug the editor's script over /dap; resolves when the session ends. */
  start(how?: DebugStart): Promise<DebugOutcome>
  continue(): void
  next(): void
  stepIn(): void
  stepOut(): void
  /** End the session, its run with it. */
  stop(): void
  /** The members of an object or array variable (its ref), while stopped. */
  expand(ref: number): Promise<DebugVariable[]>
  /** Evaluate an expression in the stopped frame. */
  evaluate(expression: string): Promise<string>
}

/**
 * Breakpoints in editor's gutter, the stopped line highlighted, and a
 * debugger over the backend's /dap (restls dap's protocol).
 */
export declare function attachDebugger(editor: RestlsEditor, options?: DebuggerOptions): RestlsDebugger
