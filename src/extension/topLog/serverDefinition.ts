// "Open definition from server" (issue 30, item 2): a routine no workspace file defines, or an ad hoc statement, opened in
// a read-only editor — a virtual document whose text was read once (OBJECT_DEFINITION, or Query Store's statement text)
// and is served from memory. Editing it changes nothing anywhere; the header comment says where it came from.
import * as vscode from 'vscode';
import { inComment } from '../../probes/permissions';
import type { TopLogRow } from '../../report/topLog';
import { SERVER_DEFINITION_SCHEME } from './ids';

/** Texts held per URI while their documents may be open (bounded: the oldest go first). */
const MAX_KEPT = 50;

export class ServerDefinitions implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private counter = 0;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '-- Durability Lens: this definition is no longer held in memory. Open it again from Heaviest Log Writers.\n';
  }

  /** Keeps `text` under a new URI named after the object (the path is a label; nothing is read from it). */
  hold(database: string, label: string, text: string): vscode.Uri {
    const safe = (s: string) => s.replace(/[^\p{L}\p{N}_.-]+/gu, '_').slice(0, 100) || '_';
    const uri = vscode.Uri.from({ scheme: SERVER_DEFINITION_SCHEME, path: `/${safe(database)}/${safe(label)}.sql`, query: `v=${++this.counter}` });
    this.texts.set(uri.toString(), text);
    while (this.texts.size > MAX_KEPT) this.texts.delete(this.texts.keys().next().value!);
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

/** The header a server-held text starts with: where it came from, that it is read-only. */
export function serverTextHeader(what: string, serverLabel: string, database: string, source: string): string {
  return [
    `-- ${inComment(what)}: ${source}, read from ${inComment(serverLabel)}, database ${inComment(database)}, ${new Date().toISOString()}.`,
    '-- Read-only: no workspace file defines it. Editing this text changes nothing on the server or on disk.',
    '',
  ].join('\n');
}

/** An ad hoc statement's text with its figures: there is no definition, only the statement Query Store kept. */
export function adHocText(row: TopLogRow, serverLabel: string, database: string): string {
  const cut = row.fullTextLength !== null ? `\n-- (Query Store's text, cut at ${row.text.length} of ${row.fullTextLength} characters)` : '';
  return `${serverTextHeader(`Ad hoc query ${row.queryId}`, serverLabel, database, "the statement as Query Store keeps it (sys.query_store_query_text)")}${row.text}${cut}\n`;
}
