// The Services view in the Explorer: restls.serviceTree's data as a tree
// (servicesTree.ts builds the nodes). A click on a service or a problem
// reveals it in its configuration file.

import * as vscode from 'vscode';
import { Location, Node, treeNodes } from './servicesTree';

/** VIEW_ID is the Services view's id in package.json. */
export const VIEW_ID = 'restls.services';

/** REVEAL is the command a row runs to show its definition. */
export const REVEAL = 'restls.revealInConfiguration';

export class ServicesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Node[] = [];
  /** answer is the last restls.serviceTree answer (tests read it). */
  answer: unknown;

  /** fetch asks the server for the tree; undefined when the server is not running. */
  constructor(private readonly fetch: () => Promise<unknown>) {}

  /** refresh asks the server again and redraws the view; it never throws. */
  async refresh(): Promise<Node[]> {
    let answer: unknown;
    try {
      answer = await this.fetch();
    } catch {
      answer = undefined;
    }
    this.answer = answer;
    this.roots = answer === undefined ? [] : treeNodes(answer);
    this.changed.fire(undefined);
    return this.roots;
  }

  getChildren(node?: Node): Node[] {
    return node ? (node.children ?? []) : this.roots;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const collapsible =
      node.children && node.children.length > 0
        ? node.kind === 'kind' || node.kind === 'files'
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, collapsible);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.kind;
    if (node.resourceUri) {
      item.resourceUri = vscode.Uri.parse(node.resourceUri);
    } else if (node.icon) {
      item.iconPath = new vscode.ThemeIcon(node.icon);
    }
    if (node.location) {
      item.command = { command: REVEAL, title: 'Reveal in Configuration', arguments: [node.location] };
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** reveal opens a location's file with its range selected. */
export async function reveal(loc: Location): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(loc.uri));
  const r = loc.range;
  const selection = r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : undefined;
  await vscode.window.showTextDocument(doc, { selection, preview: true });
}
