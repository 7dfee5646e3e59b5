// Inline hints at the end of a run's hot lines ("10,000 × · 42.00 s WRITELOG · 4.00 KiB log/flush (run avg)") and a
// hover with the full figures (issue 16). They belong to the document version that ran: any edit of that document
// clears them, since its lines no longer match the statements measured.
import * as vscode from 'vscode';
import type { RunResult } from '../../profile/types';
import { lineHints, type LineHint } from '../../report/statements';

/** What the profiling controller hands over after a run (kept narrow so tests can fake it). */
export interface StatementHintsSink {
  show(document: vscode.TextDocument, run: RunResult): void;
}

export class StatementHints implements StatementHintsSink, vscode.InlayHintsProvider, vscode.HoverProvider, vscode.Disposable {
  /** Per document URI: the hints by 0-based line. */
  private readonly byDocument = new Map<string, Map<number, LineHint>>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeInlayHints = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    const selector = { language: 'sql' };
    this.disposables.push(
      vscode.languages.registerInlayHintsProvider(selector, this),
      vscode.languages.registerHoverProvider(selector, this),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && this.byDocument.delete(e.document.uri.toString())) this.changed.fire();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (this.byDocument.delete(d.uri.toString())) this.changed.fire();
      }),
      this.changed,
    );
  }

  /** Replaces the document's hints with this run's hot lines (none when statements were not measured). */
  show(document: vscode.TextDocument, run: RunResult): void {
    const a = run.statementAttribution;
    const hints = a ? lineHints(run.statements ?? [], a, run.source === 'stand-in') : [];
    const lines = new Map<number, LineHint>();
    for (const h of hints) if (h.line >= 1 && h.line <= document.lineCount) lines.set(h.line - 1, h);
    if (lines.size > 0) this.byDocument.set(document.uri.toString(), lines);
    else this.byDocument.delete(document.uri.toString());
    this.changed.fire();
  }

  clear(): void {
    this.byDocument.clear();
    this.changed.fire();
  }

  /** The hints shown for a document (tests and the e2e suite read them). */
  hintsOf(uri: string): LineHint[] {
    return [...(this.byDocument.get(uri)?.values() ?? [])];
  }

  provideInlayHints(document: vscode.TextDocument, range: vscode.Range): vscode.InlayHint[] {
    const lines = this.byDocument.get(document.uri.toString());
    if (!lines) return [];
    const out: vscode.InlayHint[] = [];
    for (const [line, h] of lines) {
      if (line < range.start.line || line > range.end.line || line >= document.lineCount) continue;
      // Label text is shown as text (never markup); figures only, no server strings.
      const hint = new vscode.InlayHint(new vscode.Position(line, document.lineAt(line).range.end.character), h.hint);
      hint.paddingLeft = true;
      hint.tooltip = h.hover.join('\n');
      out.push(hint);
    }
    return out;
  }

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const h = this.byDocument.get(document.uri.toString())?.get(position.line);
    if (!h) return undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown('**Durability Lens — this line in the last run**\n\n');
    // appendText escapes: the figures and notes read as text, whatever they hold.
    for (const line of h.hover) {
      md.appendText(line);
      md.appendMarkdown('  \n');
    }
    return new vscode.Hover(md);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.byDocument.clear();
  }
}
