// Quick fixes for Durability Lens diagnostics (textDocument/codeAction): wrap a loop of autocommit DML in one
// transaction (plain, with XACT_ABORT + TRY/CATCH, or committing every N iterations as a snippet), make a COMMIT in a
// loop delayed durable (the title says what that risks), and suppress a code for a line or the file with a comment
// the analyzer honours. The edits themselves are planned in quickFixEdits.ts; docs/analyze.md lists every fix.
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Diagnostic,
  type SnippetTextEdit,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis, AnalysisDiagnostic, DatabaseDurabilityContext, TokenStream } from '../tsql/index';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import {
  DEFAULT_EVERY_N,
  EVERY_N,
  FixContext,
  delayedCommitEdits,
  fileSuppressionEdits,
  lineSuppressionEdits,
  loopTransactionEdits,
  wrappableLoop,
  type OffsetEdit,
} from './quickFixEdits';

/** What the client said it can apply (InitializeParams.capabilities.workspace.workspaceEdit). */
export interface EditSupport {
  /** Versioned TextDocumentEdits (`documentChanges`); else plain `changes`. */
  documentChanges: boolean;
  /** SnippetTextEdit (LSP 3.18): the "commit every N" fix then lets the user type N in place. */
  snippets: boolean;
}

export interface CodeActionInput {
  document: TextDocument;
  analysis: Analysis;
  tokens: TokenStream;
  params: CodeActionParams;
  database: DatabaseDurabilityContext | null;
  support: EditSupport;
}

/** Escapes snippet syntax (`$`, `}`, `\`) in literal text. */
function snippetText(text: string): string {
  return text.replace(/[\\$}]/g, (c) => `\\${c}`);
}

/** The finding of the current analysis a client diagnostic stands for (null when the client's list is stale). */
function findingOf(analysis: Analysis, d: Diagnostic): AnalysisDiagnostic | null {
  if (d.source !== DIAGNOSTIC_SOURCE || typeof d.code !== 'string') return null;
  return analysis.diagnostics.find((f) => f.code === d.code && f.range.start.line === d.range.start.line &&
    f.range.start.character === d.range.start.character && f.range.end.line === d.range.end.line &&
    f.range.end.character === d.range.end.character) ?? null;
}

export function buildCodeActions(input: CodeActionInput): CodeAction[] {
  const { document, analysis, params, support } = input;
  const only = params.context.only;
  if (only && !only.some((k) => k === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(`${k}.`) || k === CodeActionKind.Empty)) return [];
  // The editor asks on every cursor move: with none of our findings under the cursor, answer before reading the text.
  const targets = params.context.diagnostics.map((d) => ({ diagnostic: d, finding: findingOf(analysis, d) }));
  if (!targets.some((t) => t.finding !== null)) return [];
  const ctx = new FixContext(document.getText(), input.tokens, analysis);
  const actions: CodeAction[] = [];
  const seen = new Set<string>();

  const edit = (edits: readonly OffsetEdit[]): WorkspaceEdit => {
    const textEdits: TextEdit[] = edits.map((e) => ({ range: ctx.lines.rangeOf(e.start, e.end), newText: e.text.replaceAll(EVERY_N, String(DEFAULT_EVERY_N)) }));
    return support.documentChanges
      ? { documentChanges: [{ textDocument: { uri: document.uri, version: document.version }, edits: textEdits }] }
      : { changes: { [document.uri]: textEdits } };
  };
  /** One snippet edit over the span of all `edits`, the text between them kept as it is, N a placeholder. */
  const snippetEdit = (edits: readonly OffsetEdit[]): WorkspaceEdit => {
    const start = edits[0]!.start;
    const end = edits[edits.length - 1]!.end;
    let value = '';
    let at = start;
    for (const e of edits) {
      value += snippetText(ctx.text.slice(at, e.start)) + snippetText(e.text);
      at = e.end;
    }
    value += snippetText(ctx.text.slice(at, end));
    const snippet: SnippetTextEdit = { range: ctx.lines.rangeOf(start, end), snippet: { kind: 'snippet', value: value.replace(snippetText(EVERY_N), `\${1:${DEFAULT_EVERY_N}}`) } };
    return { documentChanges: [{ textDocument: { uri: document.uri, version: document.version }, edits: [snippet] }] };
  };
  const add = (title: string, diagnostic: Diagnostic, workspaceEdit: WorkspaceEdit, isPreferred = false): void => {
    // Two findings of one code under a selection would offer the same file-wide fix twice.
    const key = `${title}\u0000${JSON.stringify(workspaceEdit)}`;
    if (seen.has(key)) return;
    seen.add(key);
    const action: CodeAction = { title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], edit: workspaceEdit };
    if (isPreferred) action.isPreferred = true;
    actions.push(action);
  };

  for (const { diagnostic, finding } of targets) {
    if (!finding) continue;
    if (finding.code === 'autocommit-dml-in-loop') {
      const loop = wrappableLoop(ctx, finding);
      const plain = loop && loopTransactionEdits(ctx, loop, 'transaction');
      if (plain) add('Wrap the loop in one transaction (BEGIN TRANSACTION before, COMMIT after)', diagnostic, edit(plain), true);
      const safe = loop && loopTransactionEdits(ctx, loop, 'transaction-try-catch');
      if (safe) add('Wrap the loop in one transaction with SET XACT_ABORT ON and TRY…CATCH (an error rolls it all back)', diagnostic, edit(safe));
      const batched = loop && loopTransactionEdits(ctx, loop, 'commit-every-n');
      if (batched) {
        if (support.snippets && support.documentChanges) add('Commit every N iterations (batching; type N in place)', diagnostic, snippetEdit(batched));
        else add(`Commit every ${DEFAULT_EVERY_N} iterations (batching; change the number to taste)`, diagnostic, edit(batched));
      }
    }
    if (finding.code === 'commit-in-loop' && input.database?.delayedDurability !== 'DISABLED') {
      // Learn, "Control Transaction Durability": a delayed durable commit returns before its log is on disk, so a crash
      // can lose it (https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability).
      const delayed = delayedCommitEdits(ctx, finding);
      if (delayed) add('Make this COMMIT delayed durable: WITH (DELAYED_DURABILITY = ON) — risks losing committed data on a crash', diagnostic, edit(delayed));
    }
    const line = lineSuppressionEdits(ctx, finding);
    if (line) add(`Ignore ${finding.code} on this line (-- durability-lens: ignore)`, diagnostic, edit(line));
    add(`Ignore ${finding.code} in this file (-- durability-lens: ignore-file)`, diagnostic, edit(fileSuppressionEdits(ctx, finding)));
  }
  return actions;
}
