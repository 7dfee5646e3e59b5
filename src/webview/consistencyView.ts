// The Consistency block of the panel (issue 33): independent sources of one figure reconciled on the user's server —
// passed, disagrees (by how much) or not possible (why) — under the verdict, open when a check disagrees; and the marker
// a disagreeing metric row carries beside its label. Element trees only, like view.ts; every detail stays a text node.
import { CONSISTENCY_STATUS_TEXT, type ConsistencySummary, type RowDisagreement } from '../report/consistency';
import type { VElement, VNode } from './vnode';
import { t } from './l10n';

function el(tag: string, attrs: Record<string, string>, ...children: (VNode | null)[]): VElement {
  return { tag, attrs, children: children.filter((c): c is VNode => c !== null) };
}

const TONE: Record<ConsistencySummary['status'], string> = { passed: 'dl-tone-good', disagrees: 'dl-tone-bad', 'not-possible': 'dl-muted' };

/** "6 passed, 1 disagrees, 1 not possible". */
export function consistencyTally(items: readonly ConsistencySummary[]): string {
  const count = (s: ConsistencySummary['status']) => items.filter((i) => i.status === s).length;
  const disagree = count('disagrees');
  const parts = [t('{0} passed', count('passed')), disagree > 0 ? (disagree === 1 ? t('1 disagrees') : t('{0} disagree', disagree)) : null, count('not-possible') > 0 ? t('{0} not possible', count('not-possible')) : null];
  return parts.filter((p) => p !== null).join(', ');
}

/** The block; null for data without checks (older results, an ad-hoc trace). */
export function consistencySection(items: readonly ConsistencySummary[] | undefined): VElement | null {
  if (!items || items.length === 0) return null;
  const disagrees = items.some((i) => i.status === 'disagrees');
  const order: ConsistencySummary['status'][] = ['disagrees', 'passed', 'not-possible'];
  const sorted = [...items].sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  // Open when a check disagrees: a disagreement is never folded away.
  const attrs: Record<string, string> = { class: 'dl-consistency', 'aria-label': t('Consistency') };
  if (disagrees) attrs.open = '';
  return el(
    'details',
    attrs,
    el('summary', {}, el('span', { class: 'dl-summary-label' }, t('Consistency')), el('span', { class: disagrees ? 'dl-tone-bad' : 'dl-muted' }, ` ${consistencyTally(items)}`)),
    el('p', { class: 'dl-muted' }, t('Independent sources of the same figure, reconciled on this server on every run.')),
    el(
      'ul',
      { class: 'dl-consistency-checks' },
      ...sorted.map((i) =>
        el(
          'li',
          { 'data-check': i.check, 'data-status': i.status },
          el('strong', { class: TONE[i.status] }, CONSISTENCY_STATUS_TEXT[i.status]),
          ` — ${i.label}: `,
          i.detail,
        ),
      ),
    ),
  );
}

/** Beside a metric row's label when a check about its figures disagrees (title: the checks' details). */
export function disagreementBadge(rows: readonly RowDisagreement[] | undefined): VElement | null {
  if (!rows || rows.length === 0) return null;
  return el('span', { class: 'dl-tone-bad dl-disagrees', title: rows.map((r) => r.detail).join('\n'), 'data-disagrees': rows.map((r) => r.check).join(' ') }, ` ⚠ ${t('sources disagree')}`);
}
