// `durability-lens profile` sends a script that changes data or schema only when the user confirmed it: --yes, a "y"
// at the terminal's question, or a named connection marked "development" — the extension's consent rule on the
// command line. Without any of them, and without a terminal, it names what changes, runs nothing and exits 5.
// A script that only reads runs without a question.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import type { ConnectedCliIO } from '../../../src/cli/commands/shared';
import { EXIT } from '../../../src/cli/commands/profile';
import { useTestServer } from '../support';

describe('integration: the CLI profile asks before it runs a script that changes data', function () {
  this.timeout(60000);
  const server = useTestServer();
  let dir = '';
  let table = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-profile-consent-'));
    table = server.table('consent');
    const s = await server.connect();
    try {
      await s.execute(`CREATE TABLE ${table} (id int NOT NULL);`);
    } finally {
      await s.close();
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function rows(): Promise<number> {
    const s = await server.connect();
    try {
      const [row] = await s.query(`SELECT COUNT(*) AS n FROM ${table};`);
      return Number(row?.n);
    } finally {
      await s.close();
    }
  }

  /** Runs profile on `sql` with the suite's connection (never marked development); what stderr said and what was asked. */
  async function profile(sql: string, extra: string[], answer: boolean | null, connection = server.cliConnection()): Promise<{ code: number; err: string; asked: string[] }> {
    const file = join(dir, 'work.sql');
    await writeFile(file, sql);
    const err: string[] = [];
    const asked: string[] = [];
    const ask = (q: string) => (asked.push(q), answer === null ? null : Promise.resolve(answer));
    const io = { ...processIO(), env: { ...server.cliEnv(), DURABILITY_LENS_PASSWORD: server.secret }, stdout: () => undefined, stderr: (t: string) => void err.push(t), ask } as ConnectedCliIO;
    const code = await runCli(['profile', file, ...connection, '--journal', join(dir, 'journal'), '--json', '--no-xe', ...extra], io);
    return { code, err: err.join(''), asked };
  }

  it('no terminal and no --yes: names each statement that changes, with its line, runs nothing and exits 5', async () => {
    const before = await rows();
    const { code, err } = await profile(`SELECT 1;\nINSERT INTO ${table} VALUES (1);\nGO\nUPDATE ${table} SET id = 2;\n`, [], null);
    assert.equal(code, EXIT.refused, err);
    assert.match(err, /\nChanges: {2}the workload changes data or schema, and runs once: INSERT \(line 2\), UPDATE \(line 4\)\.\n/);
    assert.match(err, /Not confirmed: nothing was run\. There is no terminal to ask on \(the question needs both stdin and stderr on a terminal\); re-run with --yes to run it/);
    assert.equal(await rows(), before);
  });

  it('asks "Run it?" on a terminal: a no runs nothing, a yes runs the script once', async () => {
    const before = await rows();
    const declined = await profile(`INSERT INTO ${table} VALUES (1);\n`, [], false);
    assert.equal(declined.code, EXIT.refused, declined.err);
    assert.deepEqual(declined.asked, ['Run it?']);
    assert.match(declined.err, /Not confirmed: nothing was run\.\n/);
    assert.equal(await rows(), before);
    const accepted = await profile(`INSERT INTO ${table} VALUES (1);\n`, [], true);
    assert.equal(accepted.code, EXIT.ok, accepted.err);
    assert.equal(await rows(), before + 1);
  });

  it('--yes runs it without asking and says so; a procedure call counts as a change', async () => {
    const before = await rows();
    const { code, err, asked } = await profile(`INSERT INTO ${table} VALUES (1);\n`, ['--yes'], false);
    assert.equal(code, EXIT.ok, err);
    assert.deepEqual(asked, []);
    assert.match(err, /Consent: {2}confirmed by --yes\./);
    assert.equal(await rows(), before + 1);
    const call = await profile('EXEC sp_who;\n', [], null);
    assert.equal(call.code, EXIT.refused, call.err);
    assert.match(call.err, /Changes: .*EXEC \(runs a procedure or dynamic SQL: may change data\) \(line 1\)/);
  });

  it('a named connection marked "development" runs it without --yes, and says why no question was asked', async () => {
    const settings = join(dir, 'settings.json');
    await writeFile(settings, JSON.stringify({ 'durabilityLens.connections': [server.settingsConnection('Dev', true), server.settingsConnection('Shared', false)] }));
    const before = await rows();
    const dev = await profile(`INSERT INTO ${table} VALUES (1);\n`, [], null, ['--connection', 'Dev', '--settings', settings]);
    assert.equal(dev.code, EXIT.ok, dev.err);
    assert.match(dev.err, /Consent: {2}confirmed without --yes: the connection is marked as a development server\./);
    assert.equal(await rows(), before + 1);
    const shared = await profile(`INSERT INTO ${table} VALUES (1);\n`, [], null, ['--connection', 'Shared', '--settings', settings]);
    assert.equal(shared.code, EXIT.refused, shared.err);
    assert.match(shared.err, /re-run with --yes to run it \(the connection "Shared" is not marked "development": true in the settings/);
    assert.equal(await rows(), before + 1);
  });

  it('a script that only reads runs without a question, and the line says why none was asked', async () => {
    const { code, err, asked } = await profile(`DECLARE @n int;\nSELECT @n = COUNT(*) FROM ${table};\nSET NOCOUNT ON;\n`, [], false);
    assert.equal(code, EXIT.ok, err);
    assert.deepEqual(asked, []);
    assert.match(err, /Consent: {2}not asked: no statement of the workload changes data or schema/);
  });
  it('a stop signal (SIGTERM, SIGHUP) while "Run it?" waits ends the question: nothing runs, the exit code says cancelled', async () => {
    const file = join(dir, 'stopped.sql');
    await writeFile(file, `INSERT INTO ${table} VALUES (1);\n`);
    const before = await rows();
    const stop = new AbortController();
    const err: string[] = [];
    const abortError = () => Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    // A terminal question, as terminalAsk: it ends only on an answer or on the signal it was given.
    const ask = (_q: string, signal?: AbortSignal) => {
      setImmediate(() => stop.abort()); // the signal arrives while the question waits
      return new Promise<boolean>((_resolve, reject) => signal?.addEventListener('abort', () => reject(abortError()), { once: true }));
    };
    const io = { ...processIO(), env: { ...server.cliEnv(), DURABILITY_LENS_PASSWORD: server.secret }, stdout: () => undefined, stderr: (t: string) => void err.push(t), ask, signal: stop.signal } as ConnectedCliIO;
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 5000)));
    const code = await Promise.race([runCli(['profile', file, ...server.cliConnection(), '--journal', join(dir, 'journal'), '--no-xe'], io), hung]).finally(() => clearTimeout(timer));
    assert.notEqual(code, 'hung', `the question kept waiting after the stop signal:\n${err.join('')}`);
    assert.equal(code, EXIT.cancelled, err.join(''));
    assert.match(err.join(''), /Stopped before the run started: nothing was run\.\n/);
    assert.doesNotMatch(err.join(''), /Interrupted at the question \(Ctrl\+C\)|Not confirmed/);
    assert.equal(await rows(), before);
  });
  it('a script its markers make unrunnable is refused as bad input (exit 2) before any question, and sends nothing', async () => {
    const before = await rows();
    // Unpaired markers, and a script whose every line is setup: --yes or a "y" could not make either run.
    for (const [sql, message] of [
      [`-- durability-lens: setup\nDELETE FROM ${table};\n`, /Line 1: '-- durability-lens: setup' has no '-- durability-lens: measure' after it/],
      [`-- durability-lens: setup\nDELETE FROM ${table};\n-- durability-lens: measure\n`, /Nothing to measure: every line is inside the setup section\./],
    ] as const) {
      const { code, err, asked } = await profile(sql, [], true);
      assert.equal(code, EXIT.usage, err);
      assert.deepEqual(asked, [], 'asked to confirm a script that cannot run');
      assert.match(err, message);
      // Said, as for a file of comments only: a newcomer cannot tell whether the setup ran before the refusal.
      assert.match(err, /\. Nothing was run\.\n/);
      assert.doesNotMatch(err, /Changes:|Consent:/);
    }
    assert.equal(await rows(), before);
  });
});
