// The `durabilityLens.*` settings the language server reads per document: names, defaults, and the
// diagnostic code each boolean switches. package.json "contributes.configuration" mirrors this (a test checks it).

/** Same list as DiagnosticCode in src/tsql/types.ts (src/server checks the two agree at compile time). */
export const DIAGNOSTIC_CODES = [
  'autocommit-dml-in-loop',
  'commit-in-loop',
  'delayed-commit-needs-allowed',
  'forced-durability-data-loss',
  'unbalanced-transaction',
] as const;

export type SettingsDiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export interface DiagnosticCodeInfo {
  /** Key under `durabilityLens.diagnostics`. */
  setting: string;
  /** The page a diagnostic links to (codeDescription.href). */
  docUrl: string;
}

const DURABILITY_DOC = 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability';
const SET_OPTIONS_DOC = 'https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options';
const BEGIN_TRAN_DOC = 'https://learn.microsoft.com/sql/t-sql/language-elements/begin-transaction-transact-sql';

export const DIAGNOSTIC_INFO: Record<SettingsDiagnosticCode, DiagnosticCodeInfo> = {
  'autocommit-dml-in-loop': { setting: 'autocommitDmlInLoop', docUrl: DURABILITY_DOC },
  'commit-in-loop': { setting: 'commitInLoop', docUrl: DURABILITY_DOC },
  'delayed-commit-needs-allowed': { setting: 'delayedCommitNeedsAllowed', docUrl: SET_OPTIONS_DOC },
  'forced-durability-data-loss': { setting: 'forcedDurabilityDataLoss', docUrl: DURABILITY_DOC },
  'unbalanced-transaction': { setting: 'unbalancedTransaction', docUrl: BEGIN_TRAN_DOC },
};

/** Section the server asks for through workspace/configuration. */
export const SETTINGS_SECTION = 'durabilityLens';

export interface DurabilityLensSettings {
  /** Per diagnostic code: shown (true) or switched off (false). */
  diagnostics: Record<SettingsDiagnosticCode, boolean>;
  codeLens: { enabled: boolean };
}

export function defaultSettings(): DurabilityLensSettings {
  const diagnostics = {} as Record<SettingsDiagnosticCode, boolean>;
  for (const code of DIAGNOSTIC_CODES) diagnostics[code] = true;
  return { diagnostics, codeLens: { enabled: true } };
}

/**
 * Turns what workspace/configuration returned for the `durabilityLens` section (VS Code nests dotted keys:
 * `{ diagnostics: { commitInLoop: false }, codeLens: { enabled: true } }`) into complete settings.
 * Anything missing or of the wrong type keeps its default, so a half-written settings.json never breaks analysis.
 */
export function readSettings(raw: unknown): DurabilityLensSettings {
  const settings = defaultSettings();
  if (typeof raw !== 'object' || raw === null) return settings;
  const section = raw as { diagnostics?: unknown; codeLens?: unknown };
  if (typeof section.diagnostics === 'object' && section.diagnostics !== null) {
    const diagnostics = section.diagnostics as Record<string, unknown>;
    for (const code of DIAGNOSTIC_CODES) {
      const value = diagnostics[DIAGNOSTIC_INFO[code].setting];
      if (typeof value === 'boolean') settings.diagnostics[code] = value;
    }
  }
  if (typeof section.codeLens === 'object' && section.codeLens !== null) {
    const enabled = (section.codeLens as { enabled?: unknown }).enabled;
    if (typeof enabled === 'boolean') settings.codeLens.enabled = enabled;
  }
  return settings;
}

export function disabledCodes(settings: DurabilityLensSettings): Set<SettingsDiagnosticCode> {
  return new Set(DIAGNOSTIC_CODES.filter((code) => !settings.diagnostics[code]));
}
