// A profile never changes DELAYED_DURABILITY, but its script may: an ALTER DATABASE … SET DELAYED_DURABILITY in the
// workload or the setup leaves the database changed. The run must say so — RunResult.workloadDurabilityChange, the first
// note, the Markdown, the agent summary — with the statement that puts it back, instead of "not changed" (outside
// attack: the profile said "DELAYED_DURABILITY was not changed" and left the database FORCED).
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/profile';
import { summarizeResult } from '../../../src/agent/resultSummary';
import { profileConnectionSource, profileRun, readDurability, setDurability, type DurabilityMode } from '../../../src/profile';
import { buildComparisonModel, toMarkdown } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

describe('integration: a profile whose script changes DELAYED_DURABILITY', function () {
  this.timeout(60000);
  const server = useTestServer();

  async function setting(): Promise<DurabilityMode> {
    const s = await server.connect('monitor');
    try {
      return await readDurability(s, server.database);
    } finally {
      await s.close();
    }
  }

  async function setTo(mode: DurabilityMode): Promise<void> {
    const s = await server.connect('monitor');
    try {
      await setDurability(s, server.database, mode);
    } finally {
      await s.close();
    }
  }

  let original: DurabilityMode;
  before(async () => {
    original = await setting();
  });
  afterEach(async () => {
    // The product leaves the script's change in place (the user's own ALTER); the test puts the database back.
    await setTo(original);
  });

  const quoted = () => `[${server.database.replace(/]/g, ']]')}]`;
  const profile = (script: string) => profileRun({ connections: profileConnectionSource(server.profile, server.secret), batches: analyze(script).batches, xe: { enabled: false } });

  it('an ALTER … FORCED in the workload is reported everywhere with the statement that restores it, and left as the script set it', async () => {
    const other: DurabilityMode = original === 'FORCED' ? 'ALLOWED' : 'FORCED';
    const run = await profile(`SELECT 1;\nALTER DATABASE ${quoted()} SET DELAYED_DURABILITY = ${other} WITH NO_WAIT;\nSELECT 2;`);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    const change = run.workloadDurabilityChange;
    assert.ok(change, 'no workloadDurabilityChange');
    assert.equal(change.before, original);
    assert.equal(change.after, other);
    assert.equal(change.restoreStatement, `ALTER DATABASE ${quoted()} SET DELAYED_DURABILITY = ${original} WITH NO_WAIT;`);
    assert.match(change.message, new RegExp(`changed during this profile from ${original} to ${other}.*it is ${other} now`));
    assert.equal(run.notes[0], change.message);
    // Not put back by the profile: the user confirmed the script, not a second ALTER.
    assert.equal(await setting(), other);

    const model = buildComparisonModel([run]);
    assert.equal(model.notes[0], change.message);
    assert.ok(toMarkdown(model).includes(`changed during this profile from ${original} to ${other}`));
    const summary = summarizeResult({ kind: 'profile', title: 'Profile', createdAt: run.startedAt, workload: null, status: run.status, error: null, restore: null, model });
    assert.equal(summary.databaseState, change.message);
    assert.doesNotMatch(summary.databaseState, /was not changed/);
  });

  it('a change made by the setup part counts too (the setting is read before the setup)', async () => {
    const other: DurabilityMode = original === 'ALLOWED' ? 'FORCED' : 'ALLOWED';
    const script = `-- durability-lens: setup\nALTER DATABASE ${quoted()} SET DELAYED_DURABILITY = ${other} WITH NO_WAIT;\n-- durability-lens: measure\nSELECT 1;`;
    const run = await profile(script);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(run.setupBatchCount, 1);
    assert.equal(run.delayedDurability, other, 'the run itself ran under the setup\'s setting');
    assert.equal(run.workloadDurabilityChange?.before, original);
    assert.equal(run.workloadDurabilityChange?.after, other);
  });

  it('a script that leaves the setting alone carries no change, and the agent summary says it was not changed', async () => {
    const run = await profile('SELECT 1;');
    assert.equal(run.workloadDurabilityChange, undefined);
    const model = buildComparisonModel([run]);
    const summary = summarizeResult({ kind: 'profile', title: 'Profile', createdAt: run.startedAt, workload: null, status: run.status, error: null, restore: null, model });
    assert.match(summary.databaseState, /was not changed/);
  });

  it('the CLI warns on stderr with the restoring statement, and --json carries workloadDurabilityChange', async () => {
    const other: DurabilityMode = original === 'FORCED' ? 'ALLOWED' : 'FORCED';
    const dir = await mkdtemp(join(tmpdir(), 'lens-durability-change-'));
    try {
      const file = join(dir, 'sneaky.sql');
      await writeFile(file, `SELECT 1;\nALTER DATABASE ${quoted()} SET DELAYED_DURABILITY = ${other} WITH NO_WAIT;\n`);
      const out: string[] = [];
      const err: string[] = [];
      const io = { ...processIO(), env: server.cliEnv(), stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
      const code = await runCli(['profile', file, ...server.cliConnection(), '--journal', join(dir, 'journal.json'), '--json', '--no-xe', '--yes'], io);
      assert.equal(code, EXIT.ok, err.join(''));
      assert.match(err.join(''), new RegExp(`Warning: DELAYED_DURABILITY of .* changed during this profile from ${original} to ${other}[^\\n]*To put it back: ALTER DATABASE .* SET DELAYED_DURABILITY = ${original} WITH NO_WAIT;`));
      const json = JSON.parse(out.join(''));
      assert.equal(json.workloadDurabilityChange.after, other);
      assert.equal(json.delayedDurabilityAfter, other);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
