// The concurrency sweep in the panel (issue 18): the verdict and the per-level table on the Metrics tab, one chart
// per metric on the Charts tab (x = sessions, one line per mode; main.ts draws them). Element trees only, like view.ts.
import type { ConcurrencyModel } from '../report/concurrency';
import { CONCURRENCY_METRICS, concurrencyCellText } from '../report/concurrencyFormat';
import type { VElement, VNode } from './vnode';
import { t } from './l10n';

function el(tag: string, attrs: Record<string, string>, ...children: (VNode | null)[]): VElement {
  return { tag, attrs, children: children.filter((c): c is VNode => c !== null) };
}

/** Chart ids main.ts knows: `concurrency-<metric id>`. */
export const concurrencyChartId = (metricId: string): string => `concurrency-${metricId}`;

export function concurrencySection(model: ConcurrencyModel | undefined): VElement | null {
  if (!model) return null;
  const headers = [t('Sessions'), t('Mode'), t('Runs'), ...CONCURRENCY_METRICS.map((m) => m.label), t('p95 commit latency')];
  const reasons = [...new Set(model.points.flatMap((p) => p.notMeasured.map((n) => n.reason)))];
  return el(
    'section',
    { class: 'dl-concurrency', 'aria-label': t('Concurrency sweep') },
    el('h2', {}, t('Concurrency')),
    model.verdict ? el('p', { class: 'dl-headline', 'data-fact': 'concurrency-verdict' }, model.verdict) : null,
    el(
      'div',
      { class: 'dl-table-wrap', role: 'region', 'aria-label': t('Concurrency sweep per session count and mode'), tabindex: '0' },
      el(
        'table',
        { class: 'dl-table', 'aria-label': t('Concurrency sweep per session count and mode') },
        el('thead', {}, el('tr', {}, ...headers.map((text, i) => el('th', { scope: 'col', class: i === 1 ? '' : 'dl-num' }, text)))),
        el(
          'tbody',
          {},
          ...model.points.map((p) =>
            el(
              'tr',
              {},
              el('th', { scope: 'row', class: 'dl-num' }, String(p.sessions)),
              el('td', {}, p.mode),
              el('td', { class: 'dl-num' }, String(p.runs)),
              ...CONCURRENCY_METRICS.map((m) => el('td', { class: 'dl-num' }, concurrencyCellText(p.spread[m.id], m.unit))),
              el('td', { class: 'dl-muted' }, t('not measured')),
            ),
          ),
        ),
      ),
    ),
    el('p', { class: 'dl-note' }, t('Cells: median (min – max) over the repetitions; commits per second over the wall time from the release of all sessions to the last one finishing.')),
    ...reasons.map((r) => el('p', { class: 'dl-note' }, t('Not measured: {0}', r))),
  );
}

/** One figure per metric; `chart` is view.ts's figure builder (caption + canvas). */
export function concurrencyCharts(model: ConcurrencyModel | undefined, chart: (id: string, title: string) => VElement): VElement[] {
  if (!model) return [];
  return CONCURRENCY_METRICS.map((m) => chart(concurrencyChartId(m.id), t('{0} by number of sessions (one line per mode)', m.label)));
}

/** The series main.ts plots: labels = session counts, one value list per mode (null where a point is missing). */
export function concurrencySeries(model: ConcurrencyModel, metricId: (typeof CONCURRENCY_METRICS)[number]['id']): { labels: string[]; series: Array<{ label: string; values: (number | null)[] }> } {
  return {
    labels: model.levels.map(String),
    series: model.modes.map((mode) => ({
      label: mode,
      values: model.levels.map((n) => model.points.find((p) => p.sessions === n && p.mode === mode)?.[metricId] ?? null),
    })),
  };
}
