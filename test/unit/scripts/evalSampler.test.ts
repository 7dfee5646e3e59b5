// The per-loop, per-repository sampler of the held-out evaluation (docs/analyze.md, "Measured precision"): a code's
// sample draws loops, not statements, and no repository gives more than its share while others have loops left.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluate, parseArgs } from '../../../scripts/eval-diagnostics';
import { findingsOfText, outermostLoop, type Finding, type Manifest } from '../../../scripts/eval-diagnostics-findings';
import { clusterFindings, precisionReport } from '../../../scripts/eval-diagnostics-report';
import { drawPerRepository, loopUnits, samplingPriority, type Sampler, type SampleUnit } from '../../../scripts/eval-diagnostics-sample';
import { script } from '../tsql/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/eval/fixture');
const SEED = 20261127;

/** A made-up cluster: its key, repository and the loops its findings sit in. */
interface Item { key: string; repository: string; loops: string[] }
const item = (key: string, repository: string, ...loops: string[]): Item => ({ key, repository, loops });
const describeItem = (i: Item): Item => i;

/** `count` one-loop clusters of `repository`, each in its own loop. */
function loopsOf(repository: string, count: number): Item[] {
  return Array.from({ length: count }, (_, i) => item(`autocommit-dml-in-loop:${repository}-${i}`, repository, `${repository}|f.sql|${i + 1}:1`));
}

function perRepository(units: readonly SampleUnit<Item>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const u of units) out[u.repository] = (out[u.repository] ?? 0) + 1;
  return out;
}

describe('scripts/eval-diagnostics: the per-loop, per-repository sampler', () => {
  it('weighs the 24 single-row statements of one loop once, labelling the one of lowest priority', () => {
    const oneLoop = Array.from({ length: 24 }, (_, i) => item(`k-insert-${i}`, 'big/app', 'big/app|load.sql|3:1'));
    const others = [item('k-a', 'big/app', 'big/app|load.sql|40:1'), item('k-b', 'small/app'), item('k-c', 'small/app', 'small/app|x.sql|1:1')];
    const units = loopUnits([...oneLoop, ...others], describeItem, SEED);
    assert.equal(units.length, 4, 'one loop of 24 clusters, another loop, a lone statement, a third loop');
    const big = units.find((u) => u.items.length === 24)!;
    const lowest = oneLoop.map((i) => i.key).sort((a, b) => (samplingPriority(SEED, a) < samplingPriority(SEED, b) ? -1 : 1))[0];
    assert.equal(big.items[0]!.key, lowest);
    assert.equal(big.priority, samplingPriority(SEED, lowest!));
    // Units come in priority order, so drawing 40 takes all four, each once.
    assert.deepEqual(units.map((u) => u.priority), units.map((u) => u.priority).slice().sort());
    assert.equal(drawPerRepository(units, 40).length, 4);
  });

  it('joins the loops a cluster\'s copies sit in: the same loop in two schema versions is one loop', () => {
    const v1 = 'acme/db|schema/1.sql|4:1', v2 = 'acme/db|schema/2.sql|5:1';
    const units = loopUnits([item('k-item', 'acme/db', v1, v2), item('k-queue-v1', 'acme/db', v1), item('k-queue-v2', 'acme/db', v2)], describeItem, SEED);
    assert.equal(units.length, 1);
    assert.equal(units[0]!.items.length, 3);
  });

  it('caps any repository at ceil(n / repositories) until the others are exhausted, then fills in priority order', () => {
    const units = loopUnits([...loopsOf('a/huge', 50), ...loopsOf('b/mid', 5), ...loopsOf('c/small', 3)], describeItem, SEED);
    // n 20, 3 repositories: at most 7 each; b and c give all they have (8), a the 12 left.
    assert.deepEqual(perRepository(drawPerRepository(units, 20)), { 'a/huge': 12, 'b/mid': 5, 'c/small': 3 });
    // n 9: 3 each while all three have loops.
    assert.deepEqual(perRepository(drawPerRepository(units, 9)), { 'a/huge': 3, 'b/mid': 3, 'c/small': 3 });
    // Two large repositories share what a small one leaves: 3 + 11 + 11 of 25, nobody above the other's count + 1.
    const two = loopUnits([...loopsOf('a/huge', 50), ...loopsOf('d/large', 40), ...loopsOf('c/small', 3)], describeItem, SEED);
    const drawn = perRepository(drawPerRepository(two, 25));
    assert.equal(drawn['c/small'], 3);
    assert.equal(drawn['a/huge']! + drawn['d/large']!, 22);
    assert.ok(Math.abs(drawn['a/huge']! - drawn['d/large']!) <= 1, JSON.stringify(drawn));
    // Within a repository, the loops drawn are those of lowest priority.
    const aDrawn = drawPerRepository(units, 20).filter((u) => u.repository === 'a/huge').map((u) => u.priority);
    assert.deepEqual(aDrawn, units.filter((u) => u.repository === 'a/huge').slice(0, 12).map((u) => u.priority));
  });

  it('is seeded and stable: the same draw every run, another seed another draw, a loop never drawn changes nothing', () => {
    const items = [...loopsOf('a/huge', 30), ...loopsOf('b/mid', 12)];
    const keys = (units: readonly SampleUnit<Item>[]): string[] => units.map((u) => u.items[0]!.key);
    const first = keys(drawPerRepository(loopUnits(items, describeItem, SEED), 10));
    assert.deepEqual(keys(drawPerRepository(loopUnits(items.slice().reverse(), describeItem, SEED), 10)), first, 'input order does not matter');
    assert.notDeepEqual(keys(drawPerRepository(loopUnits(items, describeItem, 1), 10)), first);
    const undrawn = items.find((i) => !first.includes(i.key) && i.repository === 'a/huge')!;
    assert.deepEqual(keys(drawPerRepository(loopUnits(items.filter((i) => i !== undrawn), describeItem, SEED), 10)), first);
  });

  it('names each finding\'s outermost loop, and null outside loops', () => {
    assert.equal(outermostLoop([{ start: 10, end: 100, at: '2:1' }, { start: 20, end: 50, at: '3:3' }], 30), '2:1');
    assert.equal(outermostLoop([{ start: 10, end: 100, at: '2:1' }], 100), null);
    const text = script(
      'WHILE @i < 50000', 'BEGIN', '  INSERT dbo.A (v) VALUES (@i);',
      '  WHILE @j < 50000 BEGIN INSERT dbo.B (v) VALUES (@j); SET @j += 1; END', '  SET @i += 1;', 'END',
      'GO', 'INSERT dbo.C (v) VALUES (1);', 'GO 1000');
    const found = findingsOfText(text, 'x/y', 'a.sql').filter((f) => f.code === 'autocommit-dml-in-loop');
    assert.deepEqual(found.map((f) => [f.line, f.loop]), [[3, '1:1'], [4, '1:1'], [8, null]]);
  });

  it('reports n as loops with --sampler loops, and keeps the cluster sampler of rounds 1-4 by default', () => {
    const args = (...more: string[]): string[] =>
      [path.join(FIXTURE, 'root'), '--manifest', path.join(FIXTURE, 'manifest.json'), '--labels', path.join(FIXTURE, 'labels.json'), ...more];
    const byLoop = evaluate(parseArgs(args('--sampler', 'loops'))).reports.find((r) => r.code === 'autocommit-dml-in-loop')!;
    // The two DELETEs of the purge loop (in both schema versions) are one loop; the load and its copy another.
    assert.deepEqual([byLoop.sampler, byLoop.findings, byLoop.clusters, byLoop.units, byLoop.sample.length], ['loops', 6, 3, 2, 2]);
    assert.deepEqual(byLoop.sample.map((s) => s.unitClusters).sort(), [1, 2]);
    const byCluster = evaluate(parseArgs(args())).reports.find((r) => r.code === 'autocommit-dml-in-loop')!;
    assert.deepEqual([byCluster.sampler, byCluster.units, byCluster.sample.length, byCluster.tp, byCluster.fp], ['clusters', 3, 3, 1, 1]);
  });

  it('draws by the sampler the round was measured with, from the manifest, unless --sampler says otherwise', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'manifest.json'), 'utf8')) as Manifest;
    manifest.rounds = [{ round: 1 }, { round: 2, sampler: 'loops' }];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-eval-sampler-'));
    try {
      const file = path.join(dir, 'manifest.json');
      fs.writeFileSync(file, JSON.stringify(manifest));
      const samplerOf = (...more: string[]): string =>
        evaluate(parseArgs([path.join(FIXTURE, 'root'), '--manifest', file, '--labels', path.join(FIXTURE, 'labels.json'), ...more])).sampler;
      assert.deepEqual(
        [samplerOf('--split', 'heldout'), samplerOf('--split', 'heldout2'), samplerOf('--split', 'heldout1'), samplerOf('--split', 'tuning'),
          samplerOf('--split', 'delayed'), samplerOf('--split', 'heldout', '--sampler', 'clusters'), samplerOf('--split', 'tuning', '--sampler', 'loops')],
        ['loops', 'loops', 'clusters', 'clusters', 'clusters', 'clusters', 'loops']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => parseArgs(['root', '--sampler', 'statements']), /--sampler must be clusters or loops/);
  });

  it('counts a loop of three findings once in n with the loop sampler, three times with the cluster sampler', () => {
    const findings: Finding[] = ['a', 'b', 'c'].map((s, i) => ({
      repository: 'r/one', path: 'p.sql', line: i + 3, column: 1, code: 'autocommit-dml-in-loop', severity: 'information',
      message: 'm', key: `autocommit-dml-in-loop:${s.repeat(12)}`, family: s, loop: '1:1',
    }));
    const report = (sampler: Sampler) => precisionReport(findings, { labels: {} }, { seed: SEED, sampleSize: 40, includeHints: false, sampler })[0]!;
    assert.deepEqual([report('clusters').sample.length, report('loops').sample.length, report('loops').sample[0]!.unitClusters], [3, 1, 3]);
    assert.equal(clusterFindings(findings).length, 3);
  });
});
