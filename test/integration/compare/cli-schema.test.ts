// Real CLI output against docs/run-result-schema.md: every documented key of the RunResult (profile --json) and
// of the comparison document (compare --json) is present; --connection by settings name or connection string;
// --fail-if-speedup-below exit codes; loadComparison reads the written file back. On the suite's server (useTestServer).
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { loadComparison } from '../../../src/report';
import { realServerConnectionString, TEST_PASSWORD_ENV, useTestServer } from '../support';
import { s1Script } from '../samples';

/** The keys listed in the doc's table between <!-- keys:NAME --> markers. */
function documentedKeys(name: string): string[] {
  const doc = readFileSync(join(__dirname, '../../../docs/run-result-schema.md'), 'utf8');
  const section = doc.split(`<!-- keys:${name} -->`)[1]!.split(`<!-- /keys:${name} -->`)[0]!;
  return [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]!);
}

describe('integration: CLI JSON against the documented schema', function () {
  this.timeout(120000);
  const h = useTestServer();
  let dir: string;
  let out: string[];
  let err: string[];
  let original: string;
  const io = () => ({ ...processIO(), cwd: dir, userSettings: join(dir, 'no-user-settings.json'), env: { DURABILITY_LENS_PASSWORD: h.secret, [TEST_PASSWORD_ENV]: h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) });
  const serverState = () => h.state();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-cli-schema-'));
    await writeFile(join(dir, 's1.sql'), s1Script(120, h.table('schema_s1')));
    const entry = JSON.stringify(h.settingsConnection('Standin')).slice(1, -1);
    await writeFile(join(dir, 'settings.json'), `{
  // JSON with comments, as VS Code writes it
  "durabilityLens.connections": [
    { ${entry}, },
  ],
}`);
    original = (await h.state()).setting;
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('profile --connection NAME --file F --json prints a RunResult with every documented key', async () => {
    const keys = documentedKeys('run');
    assert.ok(keys.length >= 12 && keys.includes('logCounters'), keys.join(','));
    const code = await runCli(['profile', '--connection', 'standin', '--settings', join(dir, 'settings.json'), '--file', join(dir, 's1.sql'), '--json', '--yes', '--journal', join(dir, 'j.json')], io());
    assert.equal(code, EXIT.ok, err.join(''));
    assert.match(err.join(''), /Using the connection "standin" from .*settings\.json/);
    const run = JSON.parse(out.join(''));
    for (const k of keys) assert.ok(k in run, `documented key ${k} missing from profile --json`);
    assert.equal(run.schemaVersion, 1);
    assert.equal(typeof run.server.version, 'string');
    assert.ok('hostPlatform' in run.server);
    assert.equal(run.database.name, h.database);
    const log = run.files.find((f: { type: string }) => f.type === 'LOG');
    assert.deepEqual(Object.keys(log).sort(), ['bytesRead', 'bytesWritten', 'fileId', 'ioStallReadMs', 'ioStallWriteMs', 'logicalName', 'reads', 'type', 'writes']);
    assert.ok(log.writes >= 120);
    assert.deepEqual(Object.keys(run.logCounters).sort(), ['logBytesFlushed', 'logFlushWaitTimeMs', 'logFlushes']);
    assert.ok(run.logCounters.logFlushes >= 120);
    assert.deepEqual(Object.keys(run.sessionWaits[0]).sort(), ['signalWaitTimeMs', 'waitTimeMs', 'waitType', 'waitingTasks']);
    for (const k of ['eventCount', 'flushes', 'bytes', 'lostEvents', 'latencyMs']) assert.ok(k in run.logFlushTrace, `logFlushTrace.${k}`);
    for (const k of ['p50', 'p95', 'max']) assert.equal(typeof run.logFlushTrace.latencyMs[k], 'number');
    assert.deepEqual(run.errors, []);
    assert.ok(Array.isArray(run.diagnosis));
  });

  it('profile --connection CONNECTION_STRING warns about a password in it; the ADO.NET form works', async () => {
    const cs = realServerConnectionString() ?? `Server=127.0.0.1,${h.profile.port};Database=lab;User Id=sa;Password=${h.secret};Encrypt=false`;
    const noPasswordEnv = { ...io(), env: {} };
    const code = await runCli(['profile', '--connection', cs, '--file', join(dir, 's1.sql'), '--markdown', '--yes', '--journal', join(dir, 'j.json')], noPasswordEnv);
    assert.equal(code, EXIT.ok, err.join(''));
    assert.match(err.join(''), /password, which other users of this machine may see in the process list/);
    assert.match(out.join(''), /\| Log writes \|/);
  });

  it('an unknown profile name is a usage error naming where it looked', async () => {
    const code = await runCli(['profile', '--connection', 'nope', '--file', join(dir, 's1.sql')], io());
    assert.equal(code, EXIT.usage);
    assert.match(err.join(''), /no connection named "nope": VS Code's user settings file \S+ does not exist; pass --settings PATH/);
  });

  it('compare --json has originalSetting, restoredSetting, modes with medians and ratios; loadComparison reads it back', async () => {
    const keys = documentedKeys('comparison');
    const file = join(dir, 'cmp.json');
    // "development": true in the settings: no --yes needed (CI pipelines).
    const code = await runCli(['compare', '--connection', 'standin', '--settings', join(dir, 'settings.json'), '--file', join(dir, 's1.sql'), '--modes', 'DISABLED,FORCED', '--repeat', '2', '--no-warmup', '--json', '--out', file, '--journal', join(dir, 'j.json')], io());
    assert.equal(code, EXIT.ok, err.join(''));
    assert.match(err.join(''), /Confirmed without --yes: the connection is marked as a development server/);
    const doc = JSON.parse(out.join(''));
    for (const k of keys) assert.ok(k in doc, `documented key ${k} missing from compare --json`);
    assert.equal(doc.originalSetting, original);
    assert.equal(doc.restoredSetting, original);
    assert.deepEqual(doc.modes.map((m: { mode: string }) => m.mode), ['DISABLED', 'FORCED']);
    for (const m of doc.modes) {
      assert.equal(m.runs.length, 2);
      assert.deepEqual(Object.keys(m.median).sort(), ['elapsedMs', 'logBytesWritten', 'logWrites', 'writelogWaitTimeMs']);
      for (const r of m.runs) for (const k of documentedKeys('run')) assert.ok(k in r, `run key ${k}`);
    }
    const disabled = doc.modes[0].median;
    const forced = doc.modes[1].median;
    assert.ok(disabled.logWrites >= 120, `DISABLED log writes ${disabled.logWrites}`);
    assert.ok(forced.logWrites < disabled.logWrites / 4, `FORCED log writes ${forced.logWrites}`);
    assert.ok(doc.ratios['log.writes'].FORCED.ratio < 0.25);
    assert.equal(doc.speedup.baseline, 'DISABLED');

    const loaded = loadComparison(await readFile(file, 'utf8'));
    assert.deepEqual(loaded.modes.map((m) => m.median), doc.modes.map((m: { median: unknown }) => m.median));
    assert.equal((await serverState()).setting, original);
  });

  it('--fail-if-speedup-below: exit 8 when FORCED is not fast enough, 0 when it is; the speed-up is printed', async () => {
    const common = ['compare', '--connection', 'standin', '--settings', join(dir, 'settings.json'), '--file', join(dir, 's1.sql'), '--repeat', '1', '--no-warmup', '--journal', join(dir, 'j.json')];
    assert.equal(await runCli([...common, '--fail-if-speedup-below', '1000000'], io()), EXIT.speedupBelowThreshold, err.join(''));
    assert.equal(EXIT.speedupBelowThreshold, 8);
    assert.match(err.join(''), /Speed-up FORCED vs DISABLED: ×[\d.,]+ .*is BELOW the threshold ×1,000,000/);
    err = [];
    assert.equal(await runCli([...common, '--fail-if-speedup-below', '0.000001'], io()), EXIT.ok, err.join(''));
    assert.match(err.join(''), /meets the threshold/);
    assert.equal(await runCli([...common, '--modes', 'FORCED', '--fail-if-speedup-below', '2'], io()), EXIT.usage);
    assert.equal((await serverState()).setting, original);
  });

  it('--help documents the exit codes, including 8', async () => {
    assert.equal(await runCli(['compare', '--help'], io()), EXIT.ok);
    assert.match(out.join(''), /8 --fail-if-speedup-below/);
    assert.match(out.join(''), /--connection NAME\|STRING/);
  });
});
