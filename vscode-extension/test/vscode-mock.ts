// A mocked `vscode` module for node's test runner: enough of the API for
// the extension and vscode-languageclient to run outside VS Code. Calls the
// tests care about (commands, messages, webviews, quick picks, provider
// registrations) are recorded; anything else is a harmless no-op, so the
// language client's many feature registrations work. require('vscode')
// returns this module once install() has run.

/* eslint-disable @typescript-eslint/no-explicit-any */
import * as fs from 'fs';
import Module = require('module');
import * as path from 'path';

type Listener<T> = (e: T) => any;

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...ds: { dispose(): any }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  event = (l: Listener<T>, thisArg?: any, disposables?: Disposable[]): Disposable => {
    const bound = thisArg ? l.bind(thisArg) : l;
    this.listeners.add(bound);
    const d = new Disposable(() => this.listeners.delete(bound));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class CancellationTokenSource {
  private emitter = new EventEmitter<void>();
  token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isBefore(o: Position): boolean {
    return this.line < o.line || (this.line === o.line && this.character < o.character);
  }
  isEqual(o: Position): boolean {
    return this.line === o.line && this.character === o.character;
  }
  translate(dl = 0, dc = 0): Position {
    return new Position(this.line + dl, this.character + dc);
  }
  with(line = this.line, character = this.character): Position {
    return new Position(line, character);
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: any, b: any, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b;
    }
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    super(anchor, active);
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', p.split(path.sep).join('/'), '', '');
  }
  static parse(s: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) {
      return new Uri('file', '', s, '', '');
    }
    return new Uri(m[1], m[2] ?? '', decodeURIComponent(m[3]), m[4] ?? '', m[5] ?? '');
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri(u.scheme, u.authority, path.posix.join(u.path, ...parts), u.query, u.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString(): string {
    const p = this.path
      .split('/')
      .map((seg) => encodeURIComponent(seg))
      .join('/');
    return `${this.scheme}://${this.authority}${p}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }
  toJSON(): any {
    return { scheme: this.scheme, path: this.path, fsPath: this.fsPath, external: this.toString() };
  }
}

export class TextLine {
  constructor(
    readonly lineNumber: number,
    readonly text: string,
  ) {}
  get range(): Range {
    return new Range(this.lineNumber, 0, this.lineNumber, this.text.length);
  }
  get isEmptyOrWhitespace(): boolean {
    return this.text.trim() === '';
  }
}

export class TextDocument {
  version = 1;
  isClosed = false;
  isDirty = false;
  isUntitled = false;
  eol = 1;
  encoding = 'utf8';
  constructor(
    readonly uri: Uri,
    public languageId: string,
    private text: string,
  ) {}
  get fileName(): string {
    return this.uri.fsPath;
  }
  private lines(): string[] {
    return this.text.split(/\r?\n/);
  }
  get lineCount(): number {
    return this.lines().length;
  }
  lineAt(l: number | Position): TextLine {
    const n = typeof l === 'number' ? l : l.line;
    return new TextLine(n, this.lines()[n] ?? '');
  }
  offsetAt(p: Position): number {
    const lines = this.lines();
    let off = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) {
      off += lines[i].length + 1;
    }
    return off + p.character;
  }
  positionAt(off: number): Position {
    const before = this.text.slice(0, off).split('\n');
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  getText(r?: Range): string {
    if (!r) {
      return this.text;
    }
    return this.text.slice(this.offsetAt(r.start), this.offsetAt(r.end));
  }
  getWordRangeAtPosition(p: Position): Range | undefined {
    const line = this.lineAt(p.line).text;
    const re = /[\w$-]+/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(line))) {
      if (m.index <= p.character && p.character <= m.index + m[0].length) {
        return new Range(p.line, m.index, p.line, m.index + m[0].length);
      }
    }
    return undefined;
  }
  validateRange(r: Range): Range {
    return r;
  }
  validatePosition(p: Position): Position {
    return p;
  }
  save(): Promise<boolean> {
    return Promise.resolve(true);
  }
  setText(t: string): void {
    this.text = t;
    this.version++;
  }
}

// Classes the language client extends or constructs; plain records are enough.
function record(name: string): any {
  const C = class {
    constructor(...args: any[]) {
      (this as any).__args = args;
    }
  };
  Object.defineProperty(C, 'name', { value: name });
  return C;
}

export class CompletionItem {
  constructor(
    public label: any,
    public kind?: number,
  ) {}
  [k: string]: any;
}

export class CompletionList {
  constructor(
    public items: CompletionItem[] = [],
    public isIncomplete = false,
  ) {}
}

export class MarkdownString {
  constructor(
    public value = '',
    public supportThemeIcons = false,
  ) {}
  isTrusted?: boolean;
  supportHtml?: boolean;
  appendText(v: string): this {
    this.value += v;
    return this;
  }
  appendMarkdown(v: string): this {
    this.value += v;
    return this;
  }
  appendCodeblock(v: string, lang = ''): this {
    this.value += '\n```' + lang + '\n' + v + '\n```\n';
    return this;
  }
}

export class SnippetString {
  constructor(public value = '') {}
}

export class TextEdit {
  constructor(
    public range: Range,
    public newText: string,
  ) {}
  static replace(r: Range, t: string): TextEdit {
    return new TextEdit(r, t);
  }
  static insert(p: Position, t: string): TextEdit {
    return new TextEdit(new Range(p, p), t);
  }
  static delete(r: Range): TextEdit {
    return new TextEdit(r, '');
  }
}

export class Diagnostic {
  code?: any;
  source?: string;
  tags?: number[];
  relatedInformation?: any[];
  constructor(
    public range: Range,
    public message: string,
    public severity = 0,
  ) {}
}

export class CodeLens {
  constructor(
    public range: Range,
    public command?: { title: string; command: string; tooltip?: string; arguments?: any[] },
  ) {}
  get isResolved(): boolean {
    return this.command !== undefined;
  }
}

export class Hover {
  constructor(
    public contents: any,
    public range?: Range,
  ) {}
}

const enumProxy = (name: string): any =>
  new Proxy(
    {},
    {
      get: (_t, p) => (typeof p === 'string' ? `${name}.${p}` : undefined),
    },
  );

/** Recorded calls, for assertions. */
export const recorded = {
  commands: new Map<string, (...args: any[]) => any>(),
  executed: [] as { command: string; args: any[] }[],
  messages: [] as { level: 'info' | 'warning' | 'error'; message: string; items: string[] }[],
  providers: [] as { kind: string; selector: any; provider: any; args: any[] }[],
  webviews: [] as any[],
  statusItems: [] as any[],
  outputs: [] as { name: string; lines: string[] }[],
  contexts: new Map<string, any>(),
  quickPicks: [] as { items: any[]; options: any }[],
  clipboard: [] as string[],
  treeViews: [] as { id: string; options: any }[],
  shown: [] as { uri: string; options: any }[],
  untitled: [] as { language: string; text: string }[],
  edits: [] as WorkspaceEdit[],
  testControllers: [] as TestController[],
  debugStarts: [] as { folder: any; config: any }[],
  /** watchers are the file system watchers made, by glob: fire their events to play the disk. */
  watchers: [] as { glob: any; create: EventEmitter<Uri>; change: EventEmitter<Uri>; delete: EventEmitter<Uri> }[],
};

let untitled = 0;

/** answers decides what the UI answers: message buttons, quick picks, open dialogs. */
export const answers = {
  message: (_m: { level: string; message: string; items: string[] }): string | undefined => undefined,
  quickPick: (items: any[], _options: any): any => undefined,
  openDialog: (_options: any): Uri[] | undefined => undefined,
};

/** settings are the user's settings, keyed "section.key". */
export const settings = new Map<string, any>();

const configEmitter = new EventEmitter<any>();
const openEmitter = new EventEmitter<TextDocument>();
const activeEditorEmitter = new EventEmitter<any>();

/** setSetting changes a setting and fires onDidChangeConfiguration. */
export function setSetting(key: string, value: any): void {
  settings.set(key, value);
  configEmitter.fire({ affectsConfiguration: (s: string) => key === s || key.startsWith(s + '.') || s.startsWith(key + '.') });
}

function configuration(section?: string): any {
  const full = (k: string) => (section ? `${section}.${k}` : k);
  return {
    get(key: string, def?: any) {
      const k = full(key);
      if (settings.has(k)) {
        return settings.get(k);
      }
      const nested: Record<string, any> = {};
      let any = false;
      for (const [sk, v] of settings) {
        if (sk.startsWith(k + '.')) {
          nested[sk.slice(k.length + 1)] = v;
          any = true;
        }
      }
      return any ? nested : def;
    },
    has(key: string) {
      return settings.has(full(key));
    },
    inspect() {
      return undefined;
    },
    update(key: string, value: any) {
      setSetting(full(key), value);
      return Promise.resolve();
    },
  };
}

function matchSelector(selector: any, doc: TextDocument): number {
  const sels = Array.isArray(selector) ? selector : [selector];
  let best = 0;
  for (const s of sels) {
    if (typeof s === 'string') {
      if (s === doc.languageId) {
        best = Math.max(best, 10);
      }
      continue;
    }
    if (s.language && s.language !== doc.languageId) {
      continue;
    }
    if (s.scheme && s.scheme !== doc.uri.scheme) {
      continue;
    }
    if (s.pattern) {
      const pat = typeof s.pattern === 'string' ? s.pattern : path.posix.join(String(s.pattern.baseUri?.path ?? s.pattern.base), s.pattern.pattern);
      if (!globToRegExp(pat).test(doc.uri.path)) {
        continue;
      }
    }
    best = Math.max(best, 10);
  }
  return best;
}

/**
 * globToRegExp stands in for VS Code's glob matching of document
 * selectors (languages.match): **, *, ? and {a,b}. It is the mock's, for
 * restls.include; the kind rule's globs are the server's (restls/documentInfo).
 */
function globToRegExp(glob: string): RegExp {
  let re = '';
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        if (glob[i + 2] === '/') {
          re += '(?:.*/)?';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      inBraces = true;
      re += '(?:';
    } else if (c === '}' && inBraces) {
      inBraces = false;
      re += ')';
    } else if (c === ',' && inBraces) {
      re += '|';
    } else {
      re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp((glob.startsWith('/') || glob.startsWith('**') ? '^' : '(?:^|/)') + re + '$');
}

const documents: TextDocument[] = [];
let activeEditor: any;

function makeEditor(doc: TextDocument, cursor = new Position(0, 0)): any {
  const editor = {
    document: doc,
    selection: new Selection(cursor, cursor),
    /** decorations are what setDecorations set, by decoration type. */
    decorations: new Map<any, any[]>(),
    setDecorations(type: any, list: any[]) {
      editor.decorations.set(type, list);
    },
    get selections() {
      return [editor.selection];
    },
    edit(cb: (b: any) => void): Promise<boolean> {
      const edits: TextEdit[] = [];
      cb({
        replace: (r: Range, t: string) => edits.push(new TextEdit(r, t)),
        insert: (p: Position, t: string) => edits.push(TextEdit.insert(p, t)),
        delete: (r: Range) => edits.push(TextEdit.delete(r)),
      });
      let text = doc.getText();
      for (const e of edits.sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start))) {
        text = text.slice(0, doc.offsetAt(e.range.start)) + e.newText + text.slice(doc.offsetAt(e.range.end));
      }
      doc.setText(text);
      return Promise.resolve(true);
    },
  };
  return editor;
}

/** openDocument opens a file as a document (fires onDidOpenTextDocument) and, with active, makes it the active editor. */
export function openDocument(file: string, languageId = 'javascript', active = true, cursor?: Position): TextDocument {
  const doc = new TextDocument(Uri.file(file), languageId, fs.readFileSync(file, 'utf8'));
  documents.push(doc);
  openEmitter.fire(doc);
  if (active) {
    activeEditor = makeEditor(doc, cursor);
    activeEditorEmitter.fire(activeEditor);
  }
  return doc;
}

let workspaceFolders: { uri: Uri; name: string; index: number }[] | undefined;

/** setWorkspaceFolder sets the single workspace folder. */
export function setWorkspaceFolder(dir: string | undefined): void {
  workspaceFolders = dir ? [{ uri: Uri.file(dir), name: path.basename(dir), index: 0 }] : undefined;
}

/** reset clears recorded calls and state between tests. */
export function reset(): void {
  recorded.commands.clear();
  recorded.executed.length = 0;
  recorded.messages.length = 0;
  recorded.providers.length = 0;
  recorded.webviews.length = 0;
  recorded.statusItems.length = 0;
  recorded.outputs.length = 0;
  recorded.contexts.clear();
  recorded.quickPicks.length = 0;
  recorded.clipboard.length = 0;
  recorded.treeViews.length = 0;
  recorded.shown.length = 0;
  recorded.untitled.length = 0;
  recorded.edits.length = 0;
  recorded.testControllers.length = 0;
  recorded.debugStarts.length = 0;
  recorded.watchers.length = 0;
  settings.clear();
  documents.length = 0;
  activeEditor = undefined;
  answers.message = () => undefined;
  answers.quickPick = () => undefined;
  answers.openDialog = () => undefined;
}

// A namespace whose unknown members are no-op functions returning a
// disposable (events, register* calls); register* calls are recorded.
function namespace(name: string, known: Record<string, any>): any {
  return new Proxy(known, {
    get(t, p) {
      if (typeof p !== 'string') {
        return undefined;
      }
      if (p in t) {
        return t[p];
      }
      if (p === 'then') {
        return undefined;
      }
      const fn = (...args: any[]) => {
        if (p.startsWith('register')) {
          recorded.providers.push({ kind: `${name}.${p}`, selector: args[0], provider: args[1], args: args.slice(2) });
        }
        return new Disposable();
      };
      t[p] = fn;
      return fn;
    },
  });
}

function message(level: 'info' | 'warning' | 'error') {
  return (msg: string, ...rest: any[]): Promise<string | undefined> => {
    const items = rest.filter((x) => typeof x === 'string' || (x && typeof x.title === 'string')).map((x) => (typeof x === 'string' ? x : x.title));
    const m = { level, message: msg, items };
    recorded.messages.push(m);
    return Promise.resolve(answers.message(m));
  };
}

const commands = namespace('commands', {
  registerCommand(id: string, fn: (...a: any[]) => any) {
    if (recorded.commands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    recorded.commands.set(id, fn);
    return new Disposable(() => recorded.commands.delete(id));
  },
  executeCommand(id: string, ...args: any[]) {
    recorded.executed.push({ command: id, args });
    if (id === 'setContext') {
      recorded.contexts.set(args[0], args[1]);
      return Promise.resolve();
    }
    const fn = recorded.commands.get(id);
    return Promise.resolve(fn ? fn(...args) : undefined);
  },
  getCommands() {
    return Promise.resolve([...recorded.commands.keys()]);
  },
});

const window = namespace('window', {
  createTreeView(id: string, options: any) {
    recorded.treeViews.push({ id, options });
    return { dispose() {}, reveal: () => Promise.resolve(), visible: true, onDidChangeVisibility: new EventEmitter<any>().event };
  },
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  showErrorMessage: message('error'),
  get activeTextEditor() {
    return activeEditor;
  },
  get visibleTextEditors() {
    return activeEditor ? [activeEditor] : [];
  },
  onDidChangeActiveTextEditor: activeEditorEmitter.event,
  createOutputChannel(name: string) {
    const ch = {
      name,
      lines: [] as string[],
      append(s: string) {
        ch.lines.push(s);
      },
      appendLine(s: string) {
        ch.lines.push(s);
      },
      replace() {},
      clear() {
        ch.lines.length = 0;
      },
      show() {},
      hide() {},
      dispose() {},
      trace() {},
      debug() {},
      info(s: string) {
        ch.lines.push(s);
      },
      warn(s: string) {
        ch.lines.push(s);
      },
      error(s: string) {
        ch.lines.push(String(s));
      },
      logLevel: 2,
      onDidChangeLogLevel: new EventEmitter<any>().event,
    };
    recorded.outputs.push(ch);
    return ch;
  },
  createStatusBarItem(...args: any[]) {
    const item = { id: args[0], text: '', tooltip: undefined as any, command: undefined as any, name: '', visible: false, show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {} };
    recorded.statusItems.push(item);
    return item;
  },
  createWebviewPanel(viewType: string, title: string, showOptions: any, options: any) {
    const received = new EventEmitter<any>();
    const disposed = new EventEmitter<void>();
    const panel = {
      viewType,
      title,
      showOptions,
      options,
      webview: { html: '', cspSource: 'vscode-webview://mock', options, onDidReceiveMessage: received.event, postMessage: () => Promise.resolve(true), asWebviewUri: (u: Uri) => u },
      reveal() {},
      onDidDispose: disposed.event,
      dispose() {
        disposed.fire();
      },
      receive(m: any) {
        received.fire(m);
      },
    };
    recorded.webviews.push(panel);
    return panel;
  },
  showQuickPick(items: any, options: any) {
    return Promise.resolve(items).then((list: any[]) => {
      recorded.quickPicks.push({ items: list, options });
      return answers.quickPick(list, options);
    });
  },
  showOpenDialog(options: any) {
    return Promise.resolve(answers.openDialog(options));
  },
  withProgress(_options: any, task: (p: any, t: any) => any) {
    const cts = new CancellationTokenSource();
    return Promise.resolve(task({ report() {} }, cts.token));
  },
  showTextDocument(doc: any, options?: any) {
    recorded.shown.push({ uri: doc.uri.toString(), options });
    const editor = makeEditor(doc, options?.selection?.start);
    if (!options?.preserveFocus) {
      activeEditor = editor;
    }
    return Promise.resolve(editor);
  },
  tabGroups: { all: [], onDidChangeTabs: new EventEmitter<any>().event, onDidChangeTabGroups: new EventEmitter<any>().event },
});

const workspace = namespace('workspace', {
  getConfiguration: (section?: string) => configuration(section),
  onDidChangeConfiguration: configEmitter.event,
  onDidOpenTextDocument: openEmitter.event,
  get textDocuments() {
    return documents;
  },
  get workspaceFolders() {
    return workspaceFolders;
  },
  getWorkspaceFolder(uri: Uri) {
    return workspaceFolders?.find((f) => uri.path === f.uri.path || uri.path.startsWith(f.uri.path + '/'));
  },
  createFileSystemWatcher(glob: any) {
    const w = { glob, create: new EventEmitter<Uri>(), change: new EventEmitter<Uri>(), delete: new EventEmitter<Uri>() };
    recorded.watchers.push(w);
    return { onDidCreate: w.create.event, onDidChange: w.change.event, onDidDelete: w.delete.event, dispose() {}, ignoreCreateEvents: false, ignoreChangeEvents: false, ignoreDeleteEvents: false };
  },
  openTextDocument(uri: Uri | { content: string; language?: string }) {
    if (!(uri instanceof Uri)) {
      // An untitled document with this text, as VS Code makes one.
      const d = new TextDocument(Uri.parse(`untitled:Untitled-${++untitled}`), uri.language ?? 'plaintext', uri.content);
      recorded.untitled.push({ language: d.languageId, text: uri.content });
      return Promise.resolve(d);
    }
    const d = documents.find((x) => x.uri.toString() === uri.toString());
    return Promise.resolve(d ?? new TextDocument(uri, 'javascript', fs.readFileSync(uri.fsPath, 'utf8')));
  },
  fs: {
    readFile: (u: Uri) => Promise.resolve(new Uint8Array(fs.readFileSync(u.fsPath))),
  },
  notebookDocuments: [],
  isTrusted: true,
  asRelativePath(u: Uri | string) {
    const p = typeof u === 'string' ? u : u.fsPath;
    const f = workspaceFolders?.find((w) => p.startsWith(w.uri.fsPath + path.sep));
    return f ? path.relative(f.uri.fsPath, p) : p;
  },
  applyEdit(edit: WorkspaceEdit) {
    recorded.edits.push(edit);
    return Promise.resolve(true);
  },
  findFiles(include: string, exclude?: string) {
    // Enough for the extension's questions: is there a service
    // configuration file, which are the test files. exclude is a
    // "**/NAME/**" or "**/{NAME,...}/**" of directory names, ".*" any
    // hidden one.
    const names = /\{([^}]*)\}/.exec(include)?.[1].split(',') ?? [path.posix.basename(include)];
    const dirGlob = exclude ? /^\*\*\/(?:\{([^}]*)\}|([^/{}]+))\/\*\*$/.exec(exclude) : null;
    if (exclude && !dirGlob) {
      throw new Error(`the mock's findFiles cannot read the exclude glob ${exclude}`);
    }
    const skipped = dirGlob ? (dirGlob[1] ?? dirGlob[2]).split(',') : [];
    const skip = (name: string) => skipped.some((s) => s === name || (s === '.*' && name.startsWith('.')));
    const out: Uri[] = [];
    const walk = (dir: string, depth: number) => {
      if (depth > 4) {
        return;
      }
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory() && !skip(e.name)) {
          walk(path.join(dir, e.name), depth + 1);
        } else if (names.some((n) => n === e.name || (n.startsWith('*') && e.name.endsWith(n.slice(1))))) {
          out.push(Uri.file(path.join(dir, e.name)));
        }
      }
    };
    for (const f of workspaceFolders ?? []) {
      walk(f.uri.fsPath, 0);
    }
    return Promise.resolve(out);
  },
});

const languages = namespace('languages', {
  match: matchSelector,
  createDiagnosticCollection(name: string) {
    const map = new Map<string, any[]>();
    return {
      name,
      set(uri: any, diags?: any[]) {
        if (Array.isArray(uri)) {
          for (const [u, d] of uri) {
            map.set(u.toString(), d);
          }
        } else {
          map.set(uri.toString(), diags ?? []);
        }
      },
      get: (uri: any) => map.get(uri.toString()),
      delete: (uri: any) => map.delete(uri.toString()),
      clear: () => map.clear(),
      forEach: (cb: any) => map.forEach((v, k) => cb(Uri.parse(k), v)),
      has: (uri: any) => map.has(uri.toString()),
      dispose() {},
      [Symbol.iterator]: () => map.entries(),
    };
  },
});

// The Testing API, as much as the extension uses: a controller whose
// items, runs and results are recorded.
export class Location {
  constructor(
    public uri: Uri,
    public range: any,
  ) {}
}

export class TestMessage {
  expectedOutput?: string;
  actualOutput?: string;
  location?: Location;
  contextValue?: string;
  constructor(public message: string) {}
  static diff(message: string, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export class WorkspaceEdit {
  readonly replaced: { uri: Uri; range: Range; text: string }[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.replaced.push({ uri, range, text });
  }
}

class TestItemCollection {
  private readonly map = new Map<string, TestItem>();
  constructor(private readonly parent: TestItem | undefined) {}
  get size(): number {
    return this.map.size;
  }
  add(i: TestItem): void {
    i.parent = this.parent;
    this.map.set(i.id, i);
  }
  get(id: string): TestItem | undefined {
    return this.map.get(id);
  }
  delete(id: string): void {
    this.map.delete(id);
  }
  replace(items: TestItem[]): void {
    this.map.clear();
    items.forEach((i) => this.add(i));
  }
  forEach(cb: (i: TestItem) => void): void {
    [...this.map.values()].forEach(cb);
  }
}

export class TestItem {
  parent: TestItem | undefined;
  range: Range | undefined;
  error: string | undefined;
  canResolveChildren = false;
  readonly children: TestItemCollection = new TestItemCollection(this);
  constructor(
    public id: string,
    public label: string,
    public uri: Uri | undefined,
  ) {}
}

export interface TestResult {
  item: TestItem;
  state: 'started' | 'passed' | 'failed' | 'errored';
  messages: TestMessage[];
}

// The test coverage API: what a run added (TestRun.addCoverage).
export class TestCoverageCount {
  constructor(
    public covered: number,
    public total: number,
  ) {}
}
export class BranchCoverage {
  constructor(
    public executed: number | boolean,
    public location?: Position | Range,
    public label?: string,
  ) {}
}
export class StatementCoverage {
  constructor(
    public executed: number | boolean,
    public location: Position | Range,
    public branches: BranchCoverage[] = [],
  ) {}
}
export class FileCoverage {
  constructor(
    public uri: Uri,
    public statementCoverage: TestCoverageCount,
    public branchCoverage?: TestCoverageCount,
  ) {}
}

export class TestController {
  readonly items = new TestItemCollection(undefined);
  readonly runs: TestResult[][] = [];
  /** coverage is what each run added, by run. */
  readonly coverage: FileCoverage[][] = [];
  readonly profiles: { label: string; kind: number; run: (req: any, token: any) => Promise<void>; loadDetailedCoverage?: (run: any, file: FileCoverage, token?: any) => Promise<any[]> }[] = [];
  resolveHandler: ((item?: TestItem) => Promise<void>) | undefined;
  refreshHandler: (() => Promise<void>) | undefined;
  constructor(
    public id: string,
    public label: string,
  ) {}
  createTestItem(id: string, label: string, uri?: Uri): TestItem {
    return new TestItem(id, label, uri);
  }
  createRunProfile(label: string, kind: number, run: (req: any, token: any) => Promise<void>) {
    const p = { label, kind, run, dispose() {} };
    this.profiles.push(p);
    return p;
  }
  createTestRun(_req: any) {
    const results: TestResult[] = [];
    this.runs.push(results);
    const covered: FileCoverage[] = [];
    this.coverage.push(covered);
    const put = (state: TestResult['state']) => (item: TestItem, m?: TestMessage | TestMessage[]) =>
      results.push({ item, state, messages: m === undefined || typeof m === 'number' ? [] : Array.isArray(m) ? m : [m] });
    return { started: put('started'), passed: put('passed'), failed: put('failed'), errored: put('errored'), appendOutput() {}, end() {}, addCoverage: (f: FileCoverage) => covered.push(f) };
  }
  dispose(): void {}
}

export class ThemeColor {
  constructor(public id: string) {}
}

const known: Record<string, any> = {
  ThemeColor,
  Location,
  TestMessage,
  WorkspaceEdit,
  TestRunProfileKind: { Run: 1, Debug: 2, Coverage: 3 },
  TestCoverageCount,
  BranchCoverage,
  StatementCoverage,
  FileCoverage,
  tests: namespace('tests', {
    createTestController(id: string, label: string) {
      const c = new TestController(id, label);
      recorded.testControllers.push(c);
      return c;
    },
  }),
  version: '1.100.0',
  Disposable,
  EventEmitter,
  CancellationTokenSource,
  CancellationError: class CancellationError extends Error {},
  Position,
  Range,
  Selection,
  Uri,
  CompletionItem,
  CompletionList,
  MarkdownString,
  SnippetString,
  TextEdit,
  Diagnostic,
  Hover,
  CodeLens,
  commands,
  window,
  workspace,
  languages,
  DebugAdapterExecutable: class DebugAdapterExecutable {
    __args: any[];
    constructor(...args: any[]) {
      this.__args = args;
    }
  },
  debug: namespace('debug', {
    startDebugging(folder: any, config: any) {
      recorded.debugStarts.push({ folder, config });
      return Promise.resolve(true);
    },
  }),
  env: namespace('env', { appName: 'Visual Studio Code (mock)', language: 'en', machineId: 'mock', sessionId: 'mock', uriScheme: 'vscode', clipboard: { writeText: (t: string) => (recorded.clipboard.push(t), Promise.resolve()), readText: () => Promise.resolve(recorded.clipboard.at(-1) ?? '') }, openExternal: () => Promise.resolve(true) }),
  extensions: namespace('extensions', { all: [], getExtension: () => undefined, onDidChange: new EventEmitter<any>().event }),
  StatusBarAlignment: { Left: 1, Right: 2 },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  TreeItem: class TreeItem {
    [k: string]: any;
    constructor(
      public label: any,
      public collapsibleState?: number,
    ) {}
  },
  ThemeIcon: class ThemeIcon {
    constructor(public id: string) {}
  },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  CompletionItemKind: new Proxy({}, { get: (_t, p) => (typeof p === 'string' ? p.length : undefined) }),
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  EndOfLine: { LF: 1, CRLF: 2 },
  UIKind: { Desktop: 1, Web: 2 },
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
};

/** vscode is the mocked module. Unknown capitalised names are record classes (the language client extends several at load time); unknown enums resolve to names. */
export const vscode: any = new Proxy(known, {
  get(t, p) {
    if (typeof p !== 'string') {
      return undefined;
    }
    if (p in t) {
      return t[p];
    }
    if (p === 'then' || p === '__esModule' || p === 'default') {
      return p === 'default' ? vscode : undefined;
    }
    if (/^[A-Z]/.test(p)) {
      const C = record(p);
      t[p] = new Proxy(C, { get: (c, q) => (q in c ? (c as any)[q] : typeof q === 'string' ? `${p}.${q}` : undefined) });
      return t[p];
    }
    t[p] = namespace(p, {});
    return t[p];
  },
});

let installed = false;

/** install makes require('vscode') return the mock. */
export function install(): void {
  if (installed) {
    return;
  }
  installed = true;
  const M = Module as any;
  const load = M._load;
  M._load = function (request: string, ...rest: any[]) {
    if (request === 'vscode') {
      return vscode;
    }
    return load.call(this, request, ...rest);
  };
}

install();

/** fakeContext is an ExtensionContext for activate(). */
export function fakeContext(extensionPath: string): any {
  const state = new Map<string, any>();
  const memento = { get: (k: string, d?: any) => (state.has(k) ? state.get(k) : d), update: (k: string, v: any) => (state.set(k, v), Promise.resolve()), keys: () => [...state.keys()] };
  return {
    subscriptions: [] as any[],
    extensionPath,
    extensionUri: Uri.file(extensionPath),
    workspaceState: memento,
    globalState: { ...memento, setKeysForSync() {} },
    asAbsolutePath: (p: string) => path.join(extensionPath, p),
    logUri: Uri.file('/tmp'),
    storageUri: undefined,
    globalStorageUri: Uri.file('/tmp'),
    extensionMode: 3,
    environmentVariableCollection: {},
    secrets: { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve(), onDidChange: new EventEmitter<any>().event },
  };
}

/** waitFor polls a condition on the event loop (setImmediate, not timers as synchronisation): it resolves when cond() is truthy, or rejects after limitMs with what. */
export function waitFor<T>(cond: () => T | undefined | false, what: string, limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      let v: T | undefined | false;
      try {
        v = cond();
      } catch (e) {
        reject(e);
        return;
      }
      if (v) {
        resolve(v);
      } else if (Date.now() > deadline) {
        reject(new Error(`timed out after ${limitMs} ms waiting for ${what}`));
      } else {
        setTimeout(tick, 10);
      }
    };
    tick();
  });
}

/** waitForAsync is waitFor for an asynchronous condition (such as a request to the server). */
export async function waitForAsync<T>(cond: () => Promise<T | undefined | false>, what: string, limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await cond();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
