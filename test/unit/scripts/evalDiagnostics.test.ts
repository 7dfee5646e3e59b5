// `npm run eval:diagnostics`: the held-out evaluation of the analyzer's diagnostics, run on a tiny tree of our own
// scripts (test/eval/fixture/). The real manifest's split must be the one its seed draws.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluate, parseArgs } from '../../../scripts/eval-diagnostics';
import { findingsOfText, globToRegExp, type Manifest } from '../../../scripts/eval-diagnostics-findings';
import { clusterFindings } from '../../../scripts/eval-diagnostics-report';
import { sampleByPriority, seededShuffle, splitRepositories } from '../../../scripts/eval-diagnostics-sample';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/eval/fixture');
const args = (split: string, ...more: string[]): string[] =>
  [path.join(FIXTURE, 'root'), '--manifest', path.join(FIXTURE, 'manifest.json'), '--labels', path.join(FIXTURE, 'labels.json'), '--split', split, ...more];

describe('scripts/eval-diagnostics: precision on local checkouts', () => {
  it('reports the tuning half: copies merged into one cluster, debatable labels apart from TP and FP', () => {
    const result = evaluate(parseArgs(args('tuning')));
    assert.deepEqual(result.repositories, ['acme/loader']);
    assert.equal(result.files, 4, 'load.sql, copy.sql and two schema versions; README.txt is not a .sql file');
    const byCode = Object.fromEntries(result.reports.map((r) => [r.code, r]));
    const dml = byCode['autocommit-dml-in-loop']!;
    assert.deepEqual([dml.findings, dml.clusters, dml.sample.length, dml.tp, dml.fp, dml.unlabelled, dml.precision], [6, 3, 3, 1, 1, 1, 0.5]);
    const copies = dml.sample.find((s) => s.cluster.findings.some((f) => f.path === 'copy.sql'))!;
    assert.deepEqual(copies.cluster.findings.map((f) => `${f.path}:${f.line}`), ['copy.sql:6', 'load.sql:6']);
    const commit = byCode['commit-in-loop']!;
    assert.deepEqual([commit.tp, commit.fp, commit.debatable, commit.precision], [0, 0, 1, null]);
    // The key-range DELETE is batching: nothing else is found.
    assert.deepEqual(Object.keys(byCode).sort(), ['autocommit-dml-in-loop', 'commit-in-loop']);
  });

  it('counts the same statement in two schema versions of a routine once, labelled through either copy', () => {
    const dml = evaluate(parseArgs(args('tuning'))).reports.find((r) => r.code === 'autocommit-dml-in-loop')!;
    const versions = dml.sample.filter((s) => s.cluster.findings.some((f) => f.path.startsWith('schema/')));
    // Two statements (the item and the queue DELETE), each found in both versions: two clusters of two, not four.
    assert.deepEqual(versions.map((s) => s.cluster.findings.map((f) => `${f.path}:${f.line}`)).sort(),
      [['schema/1.sql:7', 'schema/2.sql:8'], ['schema/1.sql:8', 'schema/2.sql:10']]);
    // Only the version-2 copy of the item DELETE carries a label; its cluster (represented by version 1) takes it.
    const item = versions.find((s) => s.cluster.representative.line === 7)!;
    assert.notEqual(item.cluster.key, 'autocommit-dml-in-loop:aedb523a8559');
    assert.equal(item.label?.verdict, 'fp');
  });

  it('reproduces a spent held-out set (--split heldout1) and leaves out what a repository excludes', () => {
    assert.deepEqual(evaluate(parseArgs(args('heldout1'))).repositories, ['acme/loader']);
    for (const spent of ['heldout2', 'heldout3', 'heldout4', 'heldout12']) assert.equal(parseArgs(args(spent)).split, spent, `--split ${spent} reproduces that round`);
    assert.throws(() => parseArgs(args('heldout0')), /--split must be/);
    const withHints = evaluate(parseArgs(args('heldout', '--hints', '--show', 'all')));
    assert.ok(withHints.reports.every((r) => r.sample.every((s) => !s.cluster.findings.some((f) => f.path.startsWith('old/')))));
  });

  it('reports the held-out half, names a missing checkout, leaves other-dialect folders out and hints out unless asked', () => {
    const result = evaluate(parseArgs(args('heldout')));
    assert.deepEqual(result.missing, ['missing/repo']);
    assert.equal(result.files, 1, 'postgres/upgrade.sql is excluded by the manifest');
    const byCode = Object.fromEntries(result.reports.map((r) => [r.code, r]));
    assert.deepEqual([byCode['unbalanced-transaction']!.fp, byCode['unbalanced-transaction']!.precision], [1, 0]);
    const dml = byCode['autocommit-dml-in-loop']!;
    assert.deepEqual([dml.findings, dml.hintFindings, dml.sample.length], [0, 1, 0]);
    const withHints = evaluate(parseArgs(args('heldout', '--hints'))).reports.find((r) => r.code === 'autocommit-dml-in-loop')!;
    assert.deepEqual([withHints.findings, withHints.sample.length, withHints.fp], [1, 1, 1]);
  });

  it('evaluates the delayed-durability scripts on every finding of their two codes', () => {
    const result = evaluate(parseArgs(args('delayed')));
    assert.deepEqual(result.reports.map((r) => [r.code, r.sample.length, r.tp, r.precision]),
      [['delayed-commit-needs-allowed', 1, 1, 1], ['forced-durability-data-loss', 1, 1, 1]]);
  });

  it('prints the table and one precision line per code from the command line (npm run eval:diagnostics)', function () {
    this.timeout(60_000);
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/eval-diagnostics.ts'), ...args('tuning')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^split tuning: 1 repositories, 4 files, sampler clusters$/m);
    assert.match(run.stdout, /^\| autocommit-dml-in-loop \| 6 \| 0 \| 3 \| 3 \| 1 \| 1 \| 0 \| 1 \| 50 % \|$/m);
    assert.match(run.stdout, /^precision commit-in-loop n\/a \(TP 0, FP 0, n 1\)$/m);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/eval-diagnostics.ts'), '--split', 'everything'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--split must be tuning, heldout, heldoutN \(a spent round: heldout1, heldout2\.\.\.\) or delayed/);
  });

  it('keys a finding by the text around it: the same label survives added lines, comments and spacing', () => {
    const text = fs.readFileSync(path.join(FIXTURE, 'root/acme+loader/load.sql'), 'utf8');
    const before = findingsOfText(text, 'acme/loader', 'load.sql');
    const shifted = findingsOfText(`-- a new header line\n\n\n${text.replace(/BEGIN TRAN;/, 'BEGIN   TRAN ;  -- moved')}`, 'acme/loader', 'load.sql');
    assert.deepEqual(shifted.map((f) => f.key), before.map((f) => f.key));
    assert.deepEqual(shifted.map((f) => f.line), before.map((f) => f.line + 3));
    // A different statement gives a different key.
    const other = findingsOfText(text.replace('dbo.OrderLine', 'dbo.Invoice'), 'acme/loader', 'load.sql');
    assert.notEqual(other.find((f) => f.code === 'commit-in-loop')!.key, before.find((f) => f.code === 'commit-in-loop')!.key);
    assert.equal(clusterFindings([...before, ...shifted]).length, before.length);
  });

  it('samples by a per-cluster priority: removing one cluster leaves the others in the sample', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `commit-in-loop:${i.toString(16).padStart(12, '0')}`);
    const sample = sampleByPriority(keys, (k) => k, 20261127, 10);
    assert.equal(new Set(sample).size, 10);
    const without = sampleByPriority(keys.filter((k) => k !== sample[0]), (k) => k, 20261127, 10);
    assert.deepEqual(without.slice(0, 9), sample.slice(1));
    assert.notDeepEqual(sampleByPriority(keys, (k) => k, 1, 10), sample, 'another seed draws another sample');
  });

  it('matches paths with ** / * / ? globs, case-insensitively', () => {
    assert.ok(globToRegExp('**/*.sql').test('a/b/C.SQL'));
    assert.ok(globToRegExp('**/*.sql').test('top.sql'));
    assert.ok(!globToRegExp('**/*.sql').test('a/b.sqlx'));
    assert.ok(globToRegExp('**/*pgsql*/**').test('Data.pgsql/legacy/x.sql'));
    assert.ok(!globToRegExp('**/*pgsql*/**').test('pgsql.sql'));
    assert.ok(globToRegExp('sql/d?.sql').test('sql/dd.sql'));
  });

  it("draws round 1's split from its seed; rounds 2 to 5 hold fresh repositories out, each spent after its run", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/eval/manifest.json'), 'utf8')) as Manifest;
    const round1 = manifest.repositories.filter((r) => r.round === 1);
    const drawn = splitRepositories(round1.map((r) => r.repository), manifest.seed);
    for (const r of round1) {
      assert.equal(r.heldOutIn === 1 ? 'heldout' : 'tuning', drawn[r.repository], r.repository);
      assert.equal(r.split, 'tuning', `${r.repository}: round 1's held-out half is spent, tuning data now`);
    }
    assert.ok(round1.length >= 12);
    for (const [round, atLeast] of [[2, 8], [3, 5], [4, 8]] as const) {
      const set = manifest.repositories.filter((r) => r.round === round);
      assert.ok(set.length >= atLeast, `round ${round}`);
      for (const r of set) assert.deepEqual([r.split, r.heldOutIn], ['tuning', round], `${r.repository}: round ${round}'s held-out set is spent, tuning data now`);
    }
    const round5 = manifest.repositories.filter((r) => r.round === 5);
    assert.ok(round5.length >= 6 && round5.length <= 10);
    for (const r of round5) {
      assert.deepEqual([r.split, r.heldOutIn], ['heldout', 5], r.repository);
      assert.match(r.commit, /^[0-9a-f]{40}$/, `${r.repository}: evaluated at a recorded commit`);
      assert.match((r as { commitDate?: string }).commitDate ?? '', /^\d{4}-\d{2}-\d{2}$/, `${r.repository}: commit date recorded`);
      assert.ok((r.kind ?? '').length > 0, `${r.repository}: kind recorded`);
    }
    assert.deepEqual(manifest.repositories.filter((r) => r.split === 'heldout').map((r) => r.round), round5.map(() => 5), 'only round 5 is held out now');
    // Rounds 1-4 were measured by clusters and reproduce so; round 5 on draws loops.
    assert.deepEqual((manifest.rounds ?? []).map((r) => [r.round, r.sampler]), [[1, 'clusters'], [2, 'clusters'], [3, 'clusters'], [4, 'clusters'], [5, 'loops']]);
    const names = manifest.repositories.map((r) => r.repository.toLowerCase());
    assert.equal(new Set(names).size, names.length, 'no repository in both rounds');
    assert.ok((manifest.delayedDurability ?? []).reduce((n, e) => n + e.paths.length, 0) >= 10);
    // The shuffle is a permutation and depends on the seed.
    const sorted = round1.map((r) => r.repository).sort();
    assert.deepEqual([...seededShuffle(sorted, 1)].sort(), sorted);
    assert.notDeepEqual(seededShuffle(sorted, 1), seededShuffle(sorted, 2));
  });

  it('keeps no third-party file in the tree: the manifest and labels only (and labels are our own words)', () => {
    const files = fs.readdirSync(path.join(ROOT, 'test/eval')).filter((f) => f !== 'fixture').sort();
    assert.deepEqual(files, ['labels.json', 'manifest.json']);
    const labels = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/eval/labels.json'), 'utf8')) as { labels: Record<string, { verdict: string; why: string }> };
    for (const [key, label] of Object.entries(labels.labels)) {
      assert.match(key, /^[a-z-]+:[0-9a-f]{12}$/);
      assert.ok(['tp', 'fp', 'debatable'].includes(label.verdict), key);
      assert.ok(label.why.length > 10 && label.why.length < 200, key);
    }
  });
});
