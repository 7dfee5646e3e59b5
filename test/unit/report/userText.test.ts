// Every figure reads right (issue 28): reports rendered over a set of fixtures — the panel's text (every tab), the
// Markdown export and the CLI's text (the same Markdown) — carry a unit on every number of their evidence lines
// (verdict, diagnosis, causes), and no internal identifier or JavaScript leftover anywhere.
import { strict as assert } from 'node:assert';
import { panelDataFromComparison, panelDataFromRun } from '../../../src/extension/panel/panelData';
import { ok } from '../../../src/probes/measurement';
import type { ComparisonResult } from '../../../src/profile/compare';
import { CONSISTENCY_CHECK_IDS } from '../../../src/profile/consistency';
import { runOrder } from '../../../src/profile/plan';
import type { DurabilityMode, RunResult } from '../../../src/profile/types';
import { CAUSE_IDS } from '../../../src/report/causes';
import { buildComparisonModel, type ComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { METRICS } from '../../../src/report/metrics';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { renderPanel, TAB_TITLES, type VNode } from '../../../src/webview/view';
import { comparisonFixture, HOSTILE_DATABASE, profileFixture } from '../webview/fixtureModel';
import { makeRun, type RunFigures } from './runFixture';
import { bareNumbers, internalIdentifiers } from './userTextCheck';

/** Ids that are ours: metric ids with a dot or a capital (elapsed/commits are plain words), cause and check ids, finding ids. */
const FINDING_IDS = ['workload-failed', 'top-wait', 'restart-invalid', 'writelog-internal-contention', 'too-many-log-flushes', 'commit-per-row', 'no-gain-set-based', 'logbuffer-high', 'delayed-durability-gain', 'delayed-durability-inconclusive', 'delayed-durability-indicative', 'writelog-share', 'flushes-per-commit'];
const KNOWN_IDS = [...METRICS.map((m) => m.id).filter((id) => /[.A-Z]/.test(id)), ...CAUSE_IDS.filter((id) => id.includes('-')), ...CONSISTENCY_CHECK_IDS, ...FINDING_IDS];

function runs(figures: Array<RunFigures & { cpuMs?: number; readStallMs?: number }>): RunResult[] {
  return figures.map((f, i) => {
    const r = makeRun(f);
    r.repetition = Math.floor(i / 2);
    if (f.cpuMs !== undefined) r.diff.sessionCpu = ok({ cpuMs: f.cpuMs });
    if (f.readStallMs !== undefined && r.diff.files.status === 'ok') Object.assign(r.diff.files.value.totals.find((t) => t.kind === 'data')!, { reads: 400, bytesRead: 400 * 524_288, readStallMs: f.readStallMs });
    return r;
  });
}

function sweepRun(mode: DurabilityMode, sessions: number, commits: number, wallMs: number, rep: number): RunResult {
  const run = makeRun({ mode, commits, flushesCounter: mode === 'DISABLED' ? commits / sessions : 10, elapsedMs: wallMs, waits: mode === 'DISABLED' ? { WRITELOG: { count: commits, ms: wallMs * 0.8 } } : {} });
  run.repetition = rep;
  return { ...run, concurrency: { sessions, wallMs, parameter: null, perSession: [], writelog: { waits: commits, waitTimeMs: mode === 'DISABLED' ? wallMs * 0.8 * sessions : 0 } } };
}

function comparisonPanel(model: ComparisonModel, runsIn: RunResult[]): PanelData {
  const modes = model.columns as DurabilityMode[];
  const result = {
    schemaVersion: 1,
    status: 'completed',
    plan: { server: 'sql1', serverVersion: 'SQL Server 2022', source: 'sql-server', database: 'lab', databaseId: 7, currentSetting: 'DISABLED', modes, repetitions: 1, warmup: false, order: runOrder(modes, 1, false), statements: [], restoreStatement: '', dataLossCaveat: '', refusals: [], warnings: [], canProceed: true, grant: null },
    runs: runsIn,
    setupBatchCount: 0,
    restore: { status: 'restored', server: 'sql1', database: 'lab', originalSetting: 'DISABLED', verifiedSetting: 'DISABLED', journalCleared: true, restoreStatement: '', message: 'ok' },
    error: null,
  } as unknown as ComparisonResult;
  return panelDataFromComparison(result, new Date('2026-01-01T10:00:00Z'));
}

/** The fixtures: the panel's screenshot fixtures, one run per mode, three runs, overlap, reads- and CPU-led profiles, unreadable waits, a sweep, a failure. */
function fixtures(): Array<{ name: string; panel: PanelData }> {
  const out: Array<{ name: string; panel: PanelData }> = [{ name: 'panel comparison fixture', panel: comparisonFixture() }, { name: 'panel profile fixture', panel: profileFixture() }];
  const cmp = (name: string, rs: RunResult[]) => out.push({ name, panel: comparisonPanel(buildComparisonModel(rs), rs) });
  const s1 = { commits: 1000, flushesCounter: 1000, waits: { WRITELOG: { count: 1000, ms: 1700 }, SOS_SCHEDULER_YIELD: { count: 20, ms: 4 } }, log: { writes: 1000, bytes: 4_096_000, stallMs: 1500 } };
  const forced = { commits: 1000, flushesCounter: 12, waits: { LOGBUFFER: { count: 2, ms: 1 } }, log: { writes: 12, bytes: 700_000, stallMs: 9 } };
  cmp('one run per mode', runs([{ mode: 'DISABLED', elapsedMs: 2000, ...s1 }, { mode: 'FORCED', elapsedMs: 130, ...forced }]));
  cmp('three runs each', runs([
    { mode: 'DISABLED', elapsedMs: 2000, ...s1 }, { mode: 'FORCED', elapsedMs: 130, ...forced }, { mode: 'FORCED', elapsedMs: 120, ...forced },
    { mode: 'DISABLED', elapsedMs: 2100, ...s1 }, { mode: 'DISABLED', elapsedMs: 1900, ...s1 }, { mode: 'FORCED', elapsedMs: 125, ...forced },
  ]));
  cmp('overlapping ranges', runs([
    { mode: 'DISABLED', elapsedMs: 100, commits: 2 }, { mode: 'FORCED', elapsedMs: 95, commits: 2 }, { mode: 'FORCED', elapsedMs: 120, commits: 2 }, { mode: 'DISABLED', elapsedMs: 130, commits: 2 },
  ]));
  const sweep = [1, 8].flatMap((n) => [0, 1].flatMap((rep) => [sweepRun('DISABLED', n, 1000 * n, n === 1 ? 2000 + rep * 100 : 4000 + rep * 100, rep), sweepRun('FORCED', n, 1000 * n, n === 1 ? 200 + rep * 10 : 2000 + rep * 50, rep)]));
  cmp('concurrency sweep', sweep);
  const profile = (name: string, f: RunFigures & { cpuMs?: number; readStallMs?: number }, tweak: (r: RunResult) => void = () => {}) => {
    const [r] = runs([{ mode: null, ...f }]);
    tweak(r!);
    out.push({ name, panel: panelDataFromRun(r!, 'sql1', new Date('2026-01-01T10:00:00Z')) });
  };
  profile('reads dominate (S5)', { elapsedMs: 4000, commits: 2, flushesCounter: 2, cpuMs: 120, readStallMs: 2100, waits: { WRITELOG: { count: 1, ms: 0.4 } } });
  profile('CPU dominates', { elapsedMs: 1000, commits: 0, cpuMs: 800, waits: { SOS_SCHEDULER_YIELD: { count: 200, ms: 100 } } });
  profile('nothing recorded', { elapsedMs: 900, commits: 500, flushesCounter: 500, cpuMs: 0 });
  profile('waits not readable', { elapsedMs: 900, commits: 500, flushesCounter: 500, sessionWaitsReadable: false });
  profile('IO_COMPLETION leads (S4)', { elapsedMs: 10_000, commits: 2510, flushesCounter: 2600, waits: { IO_COMPLETION: { count: 4000, ms: 8500 }, WRITELOG: { count: 300, ms: 200 }, PAGEIOLATCH_EX: { count: 50, ms: 1300 } } });
  profile('workload failed', { elapsedMs: 20, commits: 0 }, (r) => {
    r.status = 'workload-error';
    r.errors = [{ number: 208, message: "Invalid object name 'dbo.SingleRowInsert'.", documentLine: 18, batchIndex: 2 }];
  });
  return out;
}

/** The fixtures' hostile database name is the server's text, not ours: it is checked for escaping elsewhere. */
const ours = (line: string) => line.split(HOSTILE_DATABASE).join('lab');

/** Text nodes and the user-visible attributes (tooltips, labels) of an element tree. */
function texts(node: VNode, into: string[] = []): string[] {
  if (typeof node === 'string') {
    into.push(node);
    return into;
  }
  for (const a of ['title', 'aria-label', 'placeholder']) if (node.attrs[a]) into.push(node.attrs[a]!);
  for (const c of node.children) texts(c, into);
  return into;
}

/** The evidence parts of the panel: the verdict block, the findings, the causes and the concurrency verdict, as lines. */
function evidenceLines(node: VNode, into: string[] = [], inside = false): string[] {
  if (typeof node === 'string') return into;
  const cls = node.attrs.class ?? '';
  const here = inside || /\bdl-(verdict|findings|causes|headline)\b/.test(cls);
  if (here && ['p', 'li', 'dd', 'strong', 'span'].includes(node.tag)) {
    const own = node.children.map((c) => (typeof c === 'string' ? c : '')).join('');
    if (own.trim()) into.push(own);
  }
  for (const c of node.children) evidenceLines(c, into, here);
  return into;
}

/** The Markdown's evidence lines: under ## Verdict up to the table, and ## Diagnosis (findings and causes). */
function markdownEvidence(md: string): string[] {
  const sections = md.split(/\n(?=## )/).filter((s) => /^## (Verdict|Diagnosis|Concurrency)/.test(s));
  // Emphasis markers around words are Markdown, not text ("_Evidence: … 5 waits_").
  return sections.flatMap((s) => s.split('\n')).filter((l) => l.trim() && !l.startsWith('|') && !l.startsWith('#')).map((l) => l.replace(/(^|\s)_|_(\s|$)/g, '$1$2'));
}

describe('report text reads right over the fixtures (issue 28)', () => {
  const all = fixtures();

  it('renders at least ten fixtures, each with a verdict and evidence', () => {
    assert.ok(all.length >= 10, `${all.length} fixtures`);
    for (const f of all) assert.ok(evidenceLines(renderPanel(f.panel)).length >= 3, f.name);
  });

  it('every number in an evidence line has its unit: panel (verdict, findings, causes) and Markdown/CLI text', () => {
    const problems: string[] = [];
    for (const f of all) {
      for (const line of evidenceLines(renderPanel(f.panel, TAB_TITLES.indexOf('Diagnosis')))) for (const b of bareNumbers(ours(line))) problems.push(`${f.name} (panel): ${b}`);
      for (const line of markdownEvidence(toMarkdown(f.panel.model, f.panel.title))) for (const b of bareNumbers(ours(line.replace(/\\/g, '')))) problems.push(`${f.name} (Markdown): ${b}`);
    }
    assert.deepEqual(problems, []);
  });

  it('no internal identifier, enum key or JavaScript leftover in the panel (every tab) or the Markdown/CLI text', () => {
    const problems: string[] = [];
    for (const f of all) {
      for (let tab = 0; tab < TAB_TITLES.length; tab++) for (const p of internalIdentifiers(texts(renderPanel(f.panel, tab)).join('\n'), KNOWN_IDS)) problems.push(`${f.name} (panel tab ${TAB_TITLES[tab]}): ${p}`);
      for (const p of internalIdentifiers(toMarkdown(f.panel.model, f.panel.title), KNOWN_IDS)) problems.push(`${f.name} (Markdown): ${p}`);
    }
    assert.deepEqual([...new Set(problems)], []);
  });

  it('the checks catch what they are for: a bare count, a metric id, a camelCase field, undefined', () => {
    assert.equal(bareNumbers('DISABLED 1,000 for 1,000').length, 2);
    assert.deepEqual(bareNumbers('WRITELOG, 1.20 s — 60 % of the elapsed time; 13.7–23.6×, 3 runs each; SQL error 208 at line 19; trace flag 3979'), []);
    assert.deepEqual(bareNumbers("the script's measured batch 2 (lines 22–31), after setup batch 1 (lines 1–20)"), []);
    // A list's last figure carries the unit (the sweep headline, CI 2026-11-28); a list without one is still bare.
    assert.deepEqual(bareNumbers("1.1–4.5×, 2 runs each; not conclusive at 1, 4 sessions: the runs' ranges overlap"), []);
    assert.deepEqual(bareNumbers('at 1, 2, 4 sessions'), []);
    assert.equal(bareNumbers('levels 1, 4 and more').length, 2);
    assert.equal(internalIdentifiers('Evidence: writelog.avgMs DISABLED', KNOWN_IDS).length, 1);
    assert.equal(internalIdentifiers('logFlushes were undefined', []).length, 2);
    assert.deepEqual(internalIdentifiers('the durabilityLens.compare.repetitions setting', []), []);
  });
});
