// The panel in a pseudo-locale (every message of the bundle wrapped in [brackets], test/support/pseudoLocale.ts),
// passed the way the host passes it (webviewTranslations of the active bundle): headings, tab titles, buttons, table
// headers, fact labels, chart captions, aria-labels and "not measured" show no unbracketed English; what the data
// carries (figures, server names, the report's prose) is left as it is. A hostile translation stays text, and the page
// carries the translations escaped in #root's data-l10n.
import * as assert from 'node:assert/strict';
import { panelDataFromRun, panelDataFromTrace } from '../../../src/extension/panel/panelData';
import { buildCsp, makeNonce, panelHtml } from '../../../src/extension/panel/csp';
import { pageLanguage, webviewTranslations } from '../../../src/extension/panel/webviewText';
import { messagesFrom, t, useMessages } from '../../../src/webview/l10n';
import { headingOf, renderPanel, renderRunning, TAB_TITLES, tabTitles, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { makeRun } from '../report/runFixture';
import { ok } from '../../../src/probes/measurement';
import { isPseudo, pseudoBundle, translatorFor } from '../../support/pseudoLocale';
import { comparisonFixture, profileFixture } from './fixtureModel';

const WEBVIEW_MESSAGES = require('../../../l10n/webview-messages.json') as string[];

function elements(node: VNode, out: VElement[] = []): VElement[] {
  if (typeof node === 'string') return out;
  out.push(node);
  for (const c of node.children) elements(c, out);
  return out;
}
const textOf = (node: VNode): string => (typeof node === 'string' ? node : node.children.map(textOf).join(''));
const firstText = (e: VElement): string => (typeof e.children[0] === 'string' ? e.children[0] : e.children[0] ? textOf(e.children[0]) : '');

/** "where: text" of every piece of the panel's own UI text that is not pseudo-translated. */
function unlocalised(tree: VElement): string[] {
  const found: string[] = [];
  const check = (where: string, text: string) => {
    if (text.trim() !== '' && !isPseudo(text)) found.push(`${where}: ${text.slice(0, 70)}`);
  };
  const all = elements(tree);
  const inside = (cls: string) => all.filter((e) => (e.attrs.class ?? '').split(' ').includes(cls)).flatMap((e) => elements(e));
  for (const e of all) {
    if (e.tag === 'h1' || e.tag === 'h2' || e.tag === 'figcaption' || e.tag === 'vscode-button') check(e.tag, textOf(e));
    if (e.attrs.role === 'tab') check('tab', firstText(e));
    if (e.attrs['aria-label'] !== undefined) check(`${e.tag}[aria-label]`, e.attrs['aria-label']);
    if (e.attrs.class === 'dl-summary-label') check('summary', textOf(e));
  }
  for (const thead of all.filter((e) => e.tag === 'thead')) for (const th of elements(thead).filter((e) => e.tag === 'th')) check('th', textOf(th));
  // The server facts and the environment (their labels are the panel's; the verdict's facts are the report's).
  // DELAYED_DURABILITY is the database option's T-SQL name: the same in every language.
  for (const dt of [...inside('dl-facts')].filter((e) => e.tag === 'dt')) if (textOf(dt) !== 'DELAYED_DURABILITY') check('dt', textOf(dt));
  for (const dt of inside('dl-verdict-facts').filter((e) => e.tag === 'dt')) if (all.some((x) => x.attrs.class === 'dl-panel dl-running')) check('dt (running)', textOf(dt));
  return found;
}

function tracePanel(): PanelData {
  const trace = {
    sessionName: 'durability_lens_1', target: 'ring_buffer', eventCount: 4, eventsByName: {}, flushEvent: 'log_flush_complete', flushes: 4, bytes: 2048, sizeEvent: 'log_flush_complete',
    lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, latencyMs: null, durationUnit: null,
    sizeHistogram: { edgesBytes: [512], labels: ['≤512 B', '>512 B'], counts: [4, 0] }, flushesPerCommit: null, commitCount: null,
    timeline: { bucketMs: 100, startUtc: null, counts: [1, 3] }, missingEvents: [], missingFields: [], counterCrossCheck: null, notes: [],
  } as unknown as LogFlushTrace;
  return panelDataFromTrace(trace, { server: 's', database: 'lab', standIn: true, startedAt: new Date(0) }, new Date(1500));
}

describe('webview in a pseudo-locale: the panel\'s own text comes from the bundle', () => {
  const pseudo = pseudoBundle();
  before(() => useMessages(webviewTranslations(pseudo)));
  after(() => useMessages({}));

  it('the host passes exactly the webview\'s messages of the active bundle, and nothing without one', () => {
    const passed = webviewTranslations(pseudo);
    assert.deepEqual(Object.keys(passed).sort(), [...WEBVIEW_MESSAGES].sort());
    assert.ok(WEBVIEW_MESSAGES.length > 100, `${WEBVIEW_MESSAGES.length} webview messages`);
    assert.equal(passed['Copy as Markdown'], '[Copy as Markdown]');
    assert.equal(passed['Switch and Compare'], undefined, 'an extension-only message is not sent to the page');
    assert.deepEqual(webviewTranslations(undefined), {}, 'English: no bundle, nothing passed');
    assert.deepEqual(webviewTranslations({ Metrics: 42 as unknown as string, Charts: 'Graphiques' }), { Charts: 'Graphiques' }, 'only string translations');
    assert.equal(pageLanguage('de'), 'de');
    assert.equal(pageLanguage('zh-cn'), 'zh-cn');
    assert.equal(pageLanguage('"><script>'), 'en');
    assert.equal(pageLanguage(undefined), 'en');
  });

  it('a comparison shows no unbracketed heading, tab, button, table header, label or caption on any tab', () => {
    const data = comparisonFixture();
    for (let tab = 0; tab < TAB_TITLES.length; tab++) assert.deepEqual(unlocalised(renderPanel(data, tab)), [], `tab ${TAB_TITLES[tab]}`);
    const tree = renderPanel(data);
    assert.deepEqual(elements(tree).filter((e) => e.attrs.role === 'tab').map(firstText), TAB_TITLES.map((x) => `[${x}]`));
    assert.deepEqual(elements(tree).filter((e) => e.tag === 'vscode-button').map(textOf), ['[Copy as Markdown]', '[Export Markdown…]', '[Export CSV…]', '[Export JSON…]']);
    // The heading names the database (the data's, hostile here) inside the translated form.
    assert.equal(textOf(elements(tree).find((e) => e.tag === 'h1')!), `[Durability comparison: ${data.header.database}]`);
    // The unwrapped check finds what is left in English: it is not vacuous.
    useMessages({});
    try {
      assert.ok(unlocalised(renderPanel(data)).length > 20);
    } finally {
      useMessages(webviewTranslations(pseudo));
    }
  });

  it('a profile, an ad-hoc trace and the running view are localised too', () => {
    for (const data of [profileFixture(), tracePanel()]) {
      for (let tab = 0; tab < TAB_TITLES.length; tab++) assert.deepEqual(unlocalised(renderPanel(data, tab)), [], `${data.kind} tab ${TAB_TITLES[tab]}`);
    }
    // The running view's title comes from the host, through its l10n.t (profilingController.ts).
    const running = renderRunning({ title: translatorFor(pseudo)('Running: {0}', 'Profile the selection'), step: 'batch 1 of 2', elapsedMs: 1200, logFlushes: null, logBytes: 2048 } as never);
    assert.deepEqual(unlocalised(running), []);
    assert.match(toHtml(running), /\[waiting for the first sample\]/);
    assert.match(toHtml(running), /\[Running…\] batch 1 of 2/);
  });

  it('"not measured" is translated, still never a zero', () => {
    // The run of notMeasured.test.ts: per-file IO and session waits not measured.
    const run = makeRun({ mode: null, log: { writes: 0, bytes: 0, stallMs: 0 }, sessionWaitsReadable: false });
    const grant = 'USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];';
    run.diff.files = { status: 'unavailable', measurement: 'fileStats', cause: 'empty', reason: 'Not measured: per-file IO: sys.master_files shows this login no files.', grant, errorNumber: null };
    run.files = [];
    run.database = { databaseId: 5, name: 'lab', state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: 'DISABLED', cdcEnabled: false, published: false, logReuseWait: null, inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: ok([]) };
    run.missing = [{ measurement: 'fileStats', reason: run.diff.files.reason, grant, required: { permission: 'VIEW ANY DEFINITION', scope: 'server' } }];
    const html = toHtml(renderPanel(panelDataFromRun(run, 'sql1')));
    const row = html.slice(html.indexOf('>Log writes<'), html.indexOf('</tr>', html.indexOf('>Log writes<')));
    assert.match(row, />\[not measured\]</);
    assert.doesNotMatch(row, />0</);
    assert.doesNotMatch(html, />not measured</);
  });

  it('a hostile translation stays text: escaped in the HTML, never an element or attribute of its own', () => {
    useMessages({ Metrics: '<img src=x onerror=alert(1)>', 'Copy as Markdown': '"><script>alert(1)</script>', 'Go to line {0}': '" onclick="x {0}', 'Trace flag {0}': '{1}{0}{7}' });
    try {
      const tree = renderPanel(comparisonFixture());
      const html = toHtml(tree);
      assert.doesNotMatch(html, /<img|<script|onclick=/);
      assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
      assert.match(html, />"&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;</);
      assert.ok(elements(tree).every((e) => !/^on/.test(Object.keys(e.attrs).join(' '))));
      // A placeholder the translation invents stays literal; the value fills only the one it has.
      assert.equal(t('Trace flag {0}', 3979), '{1}3979{7}');
    } finally {
      useMessages(webviewTranslations(pseudo));
    }
    assert.equal(headingOf('Something else: x'), 'Something else: x', 'an unknown title is shown as it is');
    assert.deepEqual(tabTitles(), TAB_TITLES.map((x) => `[${x}]`));
  });

  it('the page carries the translations escaped in data-l10n, and the webview reads back exactly them', () => {
    const translations = { ...webviewTranslations(pseudo), Metrics: '</main><script>alert("x")</script> & \'q\'' };
    const nonce = makeNonce();
    const source = 'https://abc.vscode-cdn.net';
    const html = panelHtml({ csp: buildCsp(source, nonce), nonce, styleUri: `${source}/s.css`, scriptUri: `${source}/w.js`, title: 'T', lang: 'de', loading: '[Loading…]', translations });
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'only the nonce script');
    assert.match(html, /<html lang="de">/);
    assert.match(html, /<p class="dl-muted">\[Loading…\]<\/p>/);
    const attr = /<main id="root" aria-live="polite" data-l10n="([^"]*)">/.exec(html)?.[1];
    assert.ok(attr, 'data-l10n on #root');
    const decoded = attr!.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    assert.deepEqual({ ...messagesFrom(decoded) }, translations);
    // Whatever else the attribute holds is English, never an error.
    assert.deepEqual(messagesFrom('not json'), {});
    assert.deepEqual(messagesFrom('["Metrics"]'), {});
    assert.deepEqual(messagesFrom(undefined), {});
    const odd = messagesFrom('{"Metrics":"M","n":1,"__proto__":{"polluted":"yes"}}');
    assert.equal(odd.Metrics, 'M');
    assert.equal(odd.n, undefined, 'a number is no translation');
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype reached');
  });
});
