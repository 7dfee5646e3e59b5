// Turns the analyzer's findings into LSP diagnostics: severity, source, code and a link to the doc page
// that explains the behaviour.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import { DIAGNOSTIC_INFO, type SettingsDiagnosticCode } from '../shared/settings';
import type { Analysis, AnalysisDiagnostic, DiagnosticCode } from '../tsql/types';
import { MAX_LENSES, lensCount } from './codeLenses';

/** Diagnostics per document; past it one summary diagnostic says how many (and how many lenses) were left out. */
export const MAX_DIAGNOSTICS = 500;

export const DIAGNOSTIC_SOURCE = 'Durability Lens';

// The settings list and the analyzer's code list must be the same set: a code added to one side
// without the other fails type-checking here instead of silently having no setting.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const codesAgree: Same<DiagnosticCode, SettingsDiagnosticCode> = true;
void codesAgree;

const SEVERITY: Record<AnalysisDiagnostic['severity'], DiagnosticSeverity> = {
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toLspDiagnostics(analysis: Analysis, disabled: ReadonlySet<DiagnosticCode>, lensesShown = true): Diagnostic[] {
  const result: Diagnostic[] = [];
  let omitted = 0;
  for (const finding of analysis.diagnostics) {
    // The analyzer is told which codes are off; filtering again keeps a switched-off code hidden
    // even if an analyzer version ignores the option.
    if (disabled.has(finding.code)) continue;
    if (result.length >= MAX_DIAGNOSTICS) { omitted++; continue; }
    result.push({
      range: finding.range,
      severity: SEVERITY[finding.severity],
      source: DIAGNOSTIC_SOURCE,
      code: finding.code,
      codeDescription: { href: DIAGNOSTIC_INFO[finding.code].docUrl },
      message: finding.message,
    });
  }
  const omittedLenses = lensesShown ? Math.max(0, lensCount(analysis) - MAX_LENSES) : 0;
  if (omitted > 0 || omittedLenses > 0) result.push(summary(omitted, omittedLenses));
  return result;
}

/** The one diagnostic that says what the caps left out, on the first line. */
function summary(omitted: number, omittedLenses: number): Diagnostic {
  const parts: string[] = [];
  if (omitted > 0) parts.push(`${omitted} more diagnostic${omitted === 1 ? '' : 's'} (only the first ${MAX_DIAGNOSTICS} are shown)`);
  if (omittedLenses > 0) parts.push(`${omittedLenses} code lens${omittedLenses === 1 ? '' : 'es'} (at most ${MAX_LENSES} are shown)`);
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Information,
    source: DIAGNOSTIC_SOURCE,
    message: `This document is large: Durability Lens left out ${parts.join(' and ')}. Run \`durability-lens analyze\` ` +
      'on the file for the full list.',
  };
}
