// Panel text that is not data: the tab strip's titles, the heading of a result and a finding's severity, in the
// display language (l10n.ts). The English forms stay the ids main.ts and the tests address tabs by.
import { t } from './l10n';

/** The tabs by their English titles: ids for main.ts and the tests (tabTitles() is what the strip shows). */
export const TAB_TITLES = ['Metrics', 'Charts', 'Diagnosis', 'File IO', 'Waits', 'Statements', 'Log & trace', 'Missing measurements'] as const;

/** TAB_TITLES in the display language, in the same order. */
export function tabTitles(): string[] {
  return [t('Metrics'), t('Charts'), t('Diagnosis'), t('File IO'), t('Waits'), t('Statements'), t('Log & trace'), t('Missing measurements')];
}

/**
 * The panel's heading in the display language. PanelData's title is English (the Markdown export's heading too): its
 * known forms are shown through t() with the database name as the value; any other title is shown as it is.
 */
export function headingOf(title: string): string {
  const m = /^(Durability comparison|Durability profile|Log-flush trace): ([\s\S]*)$/.exec(title);
  if (!m) return title;
  return m[1] === 'Durability comparison' ? t('Durability comparison: {0}', m[2]!) : m[1] === 'Durability profile' ? t('Durability profile: {0}', m[2]!) : t('Log-flush trace: {0}', m[2]!);
}

/** A finding's severity (an id in the data) as the badge shows it. */
export function severityText(severity: string): string {
  return severity === 'error' ? t('error') : severity === 'warning' ? t('warning') : severity === 'info' ? t('info') : severity;
}
