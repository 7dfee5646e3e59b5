// Turns the analyzer's findings into LSP diagnostics: severity, source, code and a link to the doc page
// that explains the behaviour.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import { DIAGNOSTIC_INFO, type SettingsDiagnosticCode } from '../shared/settings';
import type { Analysis, AnalysisDiagnostic, DiagnosticCode } from '../tsql/types';

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

export function toLspDiagnostics(analysis: Analysis, disabled: ReadonlySet<DiagnosticCode>): Diagnostic[] {
  const result: Diagnostic[] = [];
  for (const finding of analysis.diagnostics) {
    // The analyzer is told which codes are off; filtering again keeps a switched-off code hidden
    // even if an analyzer version ignores the option.
    if (disabled.has(finding.code)) continue;
    result.push({
      range: finding.range,
      severity: SEVERITY[finding.severity],
      source: DIAGNOSTIC_SOURCE,
      code: finding.code,
      codeDescription: { href: DIAGNOSTIC_INFO[finding.code].docUrl },
      message: finding.message,
    });
  }
  return result;
}
