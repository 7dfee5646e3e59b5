// Runs the T-SQL analysis once per document version and analysis options, so diagnostics, code lenses
// and hovers asked for the same version share one analyze() call.
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { analyze, lex, type TokenStream } from '../tsql/index';
import type { Analysis, AnalysisOptions, DatabaseDurabilityContext, DiagnosticCode } from '../tsql/types';

interface CacheEntry {
  version: number;
  optionsKey: string;
  analysis: Analysis;
}

export class AnalysisCache {
  private readonly entries = new Map<string, CacheEntry>();
  // Hovers need tokens (to stay quiet in comments and strings); moving the mouse asks many times per version.
  private readonly tokenEntries = new Map<string, { version: number; tokens: TokenStream }>();

  tokens(document: TextDocument): TokenStream {
    const cached = this.tokenEntries.get(document.uri);
    if (cached && cached.version === document.version) return cached.tokens;
    const tokens = lex(document.getText());
    this.tokenEntries.set(document.uri, { version: document.version, tokens });
    return tokens;
  }

  get(document: TextDocument, database: DatabaseDurabilityContext | null, disabled: ReadonlySet<DiagnosticCode>): Analysis {
    const optionsKey = keyOf(database, disabled);
    const cached = this.entries.get(document.uri);
    if (cached && cached.version === document.version && cached.optionsKey === optionsKey) return cached.analysis;
    const options: AnalysisOptions = { database, disabledCodes: disabled };
    const analysis = analyze(document.getText(), options);
    this.entries.set(document.uri, { version: document.version, optionsKey, analysis });
    return analysis;
  }

  forget(uri: string): void {
    this.entries.delete(uri);
    this.tokenEntries.delete(uri);
  }
}

function keyOf(database: DatabaseDurabilityContext | null, disabled: ReadonlySet<DiagnosticCode>): string {
  const db = database ? `${database.database}\u0000${database.delayedDurability}` : '';
  return `${db}|${[...disabled].sort().join(',')}`;
}
