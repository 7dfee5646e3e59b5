// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) of the T-SQL analyzer's diagnostics, so code
// scanning shows `commit-in-loop` and the others on a pull request. Section numbers below are the OASIS standard's
// (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).
import type { AnalysisDiagnostic, DiagnosticCode, DiagnosticSeverity } from '../tsql/types';

export const SARIF_VERSION = '2.1.0';
export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** One reportingDescriptor (§3.49) per diagnostic code; the texts match docs/settings-and-commands.md "Diagnostics". */
export const SARIF_RULES: Readonly<Record<DiagnosticCode, { name: string; text: string; helpUri: string }>> = {
  'autocommit-dml-in-loop': {
    name: 'AutocommitDmlInLoop',
    text: 'Each execution commits on its own; a fully durable commit returns only after its log records are on disk, so the loop waits for one log flush per row.',
    helpUri: 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
  },
  'commit-in-loop': {
    name: 'CommitInLoop',
    text: 'One commit, so one log flush wait under full durability, per iteration.',
    helpUri: 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
  },
  'delayed-commit-needs-allowed': {
    name: 'DelayedCommitNeedsAllowed',
    text: 'COMMIT … WITH (DELAYED_DURABILITY = ON) takes effect only when the database is ALLOWED.',
    helpUri: 'https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options',
  },
  'forced-durability-data-loss': {
    name: 'ForcedDurabilityDataLoss',
    text: 'Under FORCED every commit is delayed durable: committed transactions whose log was not yet flushed can be lost on a crash.',
    helpUri: 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
  },
  'unbalanced-transaction': {
    name: 'UnbalancedTransaction',
    text: 'A transaction opened and not closed in the same batch (or closed without being opened).',
    helpUri: 'https://learn.microsoft.com/sql/t-sql/language-elements/begin-transaction-transact-sql',
  },
};

const CODES = Object.keys(SARIF_RULES) as DiagnosticCode[];

/** §3.27.10 level: "none" | "note" | "warning" | "error". */
export function sarifLevel(severity: DiagnosticSeverity): 'note' | 'warning' {
  return severity === 'warning' ? 'warning' : 'note';
}

export interface SarifFileInput {
  /** A relative path (forward slashes; resolved against %SRCROOT%) or an absolute file: URI. */
  uri: string;
  diagnostics: readonly AnalysisDiagnostic[];
}

/**
 * A relative path as a URI reference (§3.4.3: RFC 3986): '/' separators, each segment percent-encoded. Separators are
 * the path's own platform's: on Windows '\' and '/' both separate; on POSIX '\' is a character of the name (a Linux
 * file may be called `a\b.sql`) and is encoded as %5C.
 */
export function pathToSarifUri(path: string, style: 'win32' | 'posix' = process.platform === 'win32' ? 'win32' : 'posix'): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(path)) return path;
  return path.split(style === 'win32' ? /[\\/]/ : '/').map((s) => encodeURIComponent(s)).join('/');
}

/**
 * A plain-text message (§3.11.3) as SARIF readers must not misread it: "[text](target)" is an embedded link there
 * (§3.11.6), so a file's identifier such as `[t](https://x)` would become a link in a code-scanning alert. "[", "]"
 * and "\\" are escaped with a backslash (GitHub's SARIF reader unescapes exactly these), and controls become spaces.
 */
export function sarifMessageText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ' ');
}

/** The SARIF log (§3.13) of one analyzer run over `files`; lines/columns 1-based, columns in UTF-16 code units (§3.14.17). */
export function analysisToSarif(files: readonly SarifFileInput[], tool: { version?: string } = {}): Record<string, unknown> {
  const results = files.flatMap((f) =>
    f.diagnostics.map((d) => ({
      ruleId: d.code, // §3.27.5
      ruleIndex: CODES.indexOf(d.code), // §3.27.6
      level: sarifLevel(d.severity),
      message: { text: sarifMessageText(d.message) }, // §3.27.11 (required), §3.11.8; no embedded links (§3.11.6)
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: f.uri, uriBaseId: /^[a-z]+:/i.test(f.uri) ? undefined : '%SRCROOT%' }, // §3.4 (JSON omits an undefined base)
            region: {
              // §3.30.5–3.30.8: 1-based; the analyzer's ranges are 0-based like LSP.
              startLine: d.range.start.line + 1,
              startColumn: d.range.start.character + 1,
              endLine: d.range.end.line + 1,
              endColumn: d.range.end.character + 1,
            },
          },
        },
      ],
    })),
  );
  return {
    $schema: SARIF_SCHEMA, // §3.13.3
    version: SARIF_VERSION, // §3.13.2 (required)
    runs: [
      // §3.13.4 (required)
      {
        tool: {
          // §3.14.6 (required), §3.18.2 driver (required)
          driver: {
            name: 'Durability Lens', // §3.19.8 (required)
            semanticVersion: tool.version || undefined, // §3.19.12
            informationUri: 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
            rules: CODES.map((code) => ({
              id: code, // §3.49.3 (required)
              name: SARIF_RULES[code].name,
              shortDescription: { text: SARIF_RULES[code].text },
              helpUri: SARIF_RULES[code].helpUri,
              defaultConfiguration: { level: code === 'forced-durability-data-loss' ? 'warning' : 'note' },
            })),
          },
        },
        columnKind: 'utf16CodeUnits', // §3.14.17
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The folder durability-lens analyze ran in.' } } }, // §3.14.14
        results, // §3.14.23
      },
    ],
  };
}
