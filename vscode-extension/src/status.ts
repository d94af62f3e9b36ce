// The status bar item: how many services the active script's kind has, or
// why it has no serviceId hints, from the server's restls/status
// notification.

import { KindSummary, parseStatus } from './protocol';

/** ItemLike is the part of vscode.StatusBarItem used here. */
export interface ItemLike {
  text: string;
  tooltip: string | unknown;
  command: string | unknown;
  show(): void;
  hide(): void;
}

/** View is what the status bar shows. */
export interface View {
  text: string;
  tooltip: string;
  command: string;
}

const KIND_LABEL: Record<string, string> = {
  scriptService: 'scripts',
  scriptTask: 'script handlers',
  validationScript: 'script validators',
};

/**
 * statusView decides the text for a kind. problem is set when the server is
 * not running (missing binary and the like); it wins over any stale status.
 */
export function statusView(kind: string, status: KindSummary | undefined, problem: string | undefined, environment?: string): View {
  const v = statusViewOf(kind, status, problem);
  if (environment === undefined || problem) {
    return v;
  }
  // With environments (the server's list) the item names the one in
  // force, as the server says, and a click chooses another.
  return {
    text: v.text.replace(/^(\$\([^)]+\) restls)(: )?/, (_, head: string, colon: string | undefined) => `${head}: ${environment}${colon ? ' · ' : ''}`),
    tooltip: `Environment ${environment}. ${v.tooltip} Click to choose another environment.`,
    command: 'restls.selectEnvironment',
  };
}

function statusViewOf(kind: string, status: KindSummary | undefined, problem: string | undefined): View {
  if (problem) {
    return { text: '$(error) restls', tooltip: problem, command: 'restls.showLog' };
  }
  if (!status) {
    return { text: '$(sync~spin) restls', tooltip: `restls: loading the service configuration for ${kind}`, command: 'restls.showLog' };
  }
  if (status.count === undefined || status.count === 0) {
    const reason = status.reason ?? (status.count === 0 ? `no services are configured for ${KIND_LABEL[kind] ?? kind}` : 'the service configuration was not loaded');
    return {
      text: '$(warning) restls: no serviceId hints',
      tooltip: `No serviceId hints for ${kind}: ${reason}. Every other hint still works. Fix the configuration, then run "restls: Reload Configuration".`,
      command: 'restls.showLog',
    };
  }
  const n = status.count;
  return {
    text: `$(check) restls: ${n} service${n === 1 ? '' : 's'}`,
    tooltip: `${n} serviceId${n === 1 ? '' : 's'} configured for ${kind} (${KIND_LABEL[kind] ?? kind})${status.message && status.message !== `${n} services` ? ': ' + status.message : ''}. Click to list them.`,
    command: 'restls.showServices',
  };
}

/** StatusBar keeps the last restls/status and renders it for the active script. */
export class StatusBar {
  private kinds = new Map<string, KindSummary>();
  private problem: string | undefined;
  private kind: string | undefined;
  private environment: string | undefined;

  constructor(private readonly item: ItemLike) {}

  /** update takes a restls/status notification's params. */
  update(params: unknown): void {
    const parsed = parseStatus(params);
    for (const [k, v] of parsed) {
      this.kinds.set(k, v);
    }
    this.render();
  }

  /** setProblem shows (or, with undefined, clears) a server problem. */
  setProblem(problem: string | undefined): void {
    this.problem = problem;
    this.render();
  }

  /** reset forgets statuses from a server that stopped. */
  reset(): void {
    this.kinds.clear();
    this.render();
  }

  /** setActive shows the item for a script of this kind, or hides it (undefined: not a restls script). */
  setActive(kind: string | undefined): void {
    this.kind = kind;
    this.render();
  }

  /** setEnvironment names the environment in force in the item (undefined: the server offers none). */
  setEnvironment(name: string | undefined): void {
    this.environment = name;
    this.render();
  }

  /** statusOf returns the last status for a kind. */
  statusOf(kind: string): KindSummary | undefined {
    return this.kinds.get(kind);
  }

  private render(): void {
    if (!this.kind) {
      this.item.hide();
      return;
    }
    const v = statusView(this.kind, this.kinds.get(this.kind), this.problem, this.environment);
    this.item.text = v.text;
    this.item.tooltip = v.tooltip;
    this.item.command = v.command;
    this.item.show();
  }
}
