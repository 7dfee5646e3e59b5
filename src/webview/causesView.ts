// The Causes part of the Diagnosis tab (issue 29): every cause of commit time with its share, its evidence, whether
// delayed durability helps and the fix — the baseline mode in full, the other modes' leading causes after it — and
// "not measured" with why and the GRANT where a source was missing. Element trees only, like view.ts; every server
// string stays a text node.
import type { CauseAssessment } from '../report/causes/types';
import { helpsText, notMeasuredGroups } from '../report/causes/text';
import { formatDuration, formatShare } from '../report/units';
import type { VElement, VNode } from './vnode';
import { t } from './l10n';

function el(tag: string, attrs: Record<string, string>, ...children: (VNode | null)[]): VElement {
  return { tag, attrs, children: children.filter((c): c is VNode => c !== null) };
}

const HELPS_TONE: Record<string, string> = { true: 'dl-tone-good', partly: 'dl-muted', false: 'dl-tone-bad' };

/** The section; null for data without causes (results from before issue 29, an ad-hoc trace). */
export function causesSection(causes: Record<string, CauseAssessment> | undefined, baseline: string): VElement | null {
  const a = causes?.[baseline];
  if (!a) return null;
  const others = Object.entries(causes ?? {}).filter(([c]) => c !== baseline);
  return el(
    'section',
    { class: 'dl-causes', 'aria-label': t('Causes of commit time') },
    el('h2', {}, baseline === 'RUN' ? t('Causes of commit time') : t('Causes of commit time ({0})', baseline)),
    ...a.notes.map((n) => el('p', { class: 'dl-muted' }, n)),
    el(
      'ul',
      { class: 'dl-cause-list' },
      ...a.causes.filter((c) => !c.notMeasured).map((c) =>
        el(
          'li',
          { class: `dl-cause${c.cause === a.dominant ? ' dl-cause-dominant' : ''}`, 'data-cause': c.cause, 'data-share': String(Math.round((c.share ?? 0) * 1000) / 1000) },
          el('strong', {}, c.label),
          ' — ',
          el('span', {}, `${formatShare(c.share ?? 0)}${c.ms !== null && c.ms > 0 ? ` (${formatDuration(c.ms)})` : ''}`),
          el('span', { class: HELPS_TONE[String(c.helpsDelayedDurability)] ?? '' }, ` · ${t('delayed durability helps: {0}', helpsText(c.helpsDelayedDurability))}`),
          c.share !== null && c.share > 0 ? el('p', {}, c.summary) : null,
          c.evidence.length > 0 ? el('ul', { class: 'dl-evidence' }, ...c.evidence.map((e) => el('li', {}, e))) : null,
          c.share !== null && c.share > 0 ? el('p', { class: 'dl-muted' }, c.helpsWhy) : null,
          c.share !== null && c.share > 0 ? el('p', { class: 'dl-suggestion' }, t('Fix: {0}', c.fix)) : null,
        ),
      ),
    ),
    // Causes not measured for one reason share one entry: the reason, and the GRANT as its own copyable block.
    ...notMeasuredGroups(a).map((g) =>
      el(
        'div',
        { class: 'dl-cause dl-not-measured', 'data-cause': g.causes.map((c) => c.cause).join(' '), 'data-share': 'not-measured' },
        el('strong', {}, g.causes.map((c) => c.label).join(', ')),
        ` — ${t('not measured:')} `,
        g.reason,
        g.grant ? el('code', { class: 'dl-block' }, g.grant) : null,
      ),
    ),
    ...others.map(([col, o]) => {
      const top = o.causes.filter((c) => c.share !== null && c.share > 0).slice(0, 3);
      return el('p', { class: 'dl-cause-mode', 'data-mode': col }, t('In {0}:', col), ' ', top.length > 0 ? top.map((c) => `${c.label} ${formatShare(c.share!)}`).join(', ') : t('no waits or CPU recorded on the server — nothing to attribute'));
    }),
  );
}
