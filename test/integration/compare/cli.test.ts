// The profile and compare CLI commands end to end on the suite's server (useTestServer): confirmation, exit codes,
// report files, passwords only from the environment; journal recovery at start on the in-process stand-in (it sets
// the database FORCED behind the product's back, as a killed comparison would).
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT, type ConnectedCliIO } from '../../../src/cli/commands/profile';
import { alterDurabilitySql, FileRestoreJournal, newRestoreEntry } from '../../../src/profile';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

describe('integration: profile/compare CLI', function () {
  this.timeout(120000);
  const t = useTestServer();
  let dir: string;
  let out: string[];
  let err: string[];
  let original: string;
  const io = () => ({ ...processIO(), env: t.cliEnv(), stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) });
  const args = (...extra: string[]) => [join(dir, 's1.sql'), ...t.cliConnection(), '--journal', join(dir, 'journal.json'), ...extra];
  const serverState = () => t.state();
  const h = { get engine() { return t.standin!; }, get server() { return t.standinServer!; } };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-cli-'));
    await writeFile(join(dir, 's1.sql'), s1Script(200, t.table('cli_s1')));
    original = (await t.state()).setting;
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('compare without --yes prints the plan, refuses (exit 5) and changes nothing', async () => {
    const code = await runCli(['compare', ...args('--setup-batches', '2')], io());
    assert.equal(code, EXIT.refused);
    const text = err.join('');
    assert.ok(text.includes(`ALTER DATABASE [${t.database.replace(/]/g, ']]')}] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;`), text);
    assert.match(text, /Re-run with --yes/);
    // The workload's own changes are named as profile names them, with how often the plan runs them (its Order line).
    const order = /\nOrder: +(.*)\n/.exec(text)![1]!;
    const runs = order.split(' ').filter((w) => /^[A-Z]+$/.test(w)).length + (/\(\w+ warm-up\)/.test(order) ? 1 : 0);
    assert.match(text, new RegExp(`\\nChanges: {2}the workload changes data or schema, and runs ${runs} times \\(every run of the order above\\): [^\\n]*INSERT \\(line \\d+\\)[^\\n]*\\.\\n`));
    assert.equal((await serverState()).setting, original);
    assert.equal(out.join(''), '');
  });

  it('compare --yes prints the labelled table, writes the CSV and leaves the database DISABLED', async () => {
    const csv = join(dir, 'report.csv');
    const code = await runCli(['compare', ...args('--setup-batches', '2', '--repeat', '1', '--no-warmup', '--modes', 'FORCED,DISABLED', '--yes', '--out', csv)], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const md = out.join('');
    const lines = (await readFile(csv, 'utf8')).split('\r\n');
    if (t.standin) {
      assert.match(md, /Stand-in figures/);
      assert.match(md, /\| Log writes \| 200 \| /);
      assert.ok(lines.some((l) => l.startsWith('stand-in (simulated),log.writes,Log writes,count,DISABLED,1,200,')), lines.slice(0, 3).join('\n'));
    } else {
      // 200 durable single-row commits on one session: at least 200 log writes, in the table and in the CSV.
      const writes = /\| Log writes \| ([\d,]+) \| /.exec(md);
      assert.ok(writes && Number(writes[1]!.replace(/,/g, '')) >= 200, md.slice(0, 2000));
      assert.ok(lines.some((l) => /,log\.writes,Log writes,count,DISABLED,1,\d+,/.test(l)), lines.slice(0, 3).join('\n'));
    }
    assert.equal((await serverState()).setting, original);
    assert.deepEqual(await new FileRestoreJournal(join(dir, 'journal.json')).list(), []);
  });

  it('refuses a password on the command line and a missing password variable (exit 2)', async () => {
    assert.equal(await runCli(['profile', ...args('--password', 'x')], io()), EXIT.usage);
    assert.match(err.join(''), /not accepted on the command line/);
    assert.equal(await runCli(['profile', ...args('--password-env', 'NOPE')], io()), EXIT.usage);
    assert.match(err.join(''), /set the environment variable NOPE/);
  });

  it('never restores a crashed run\'s journal entry silently: listed without --yes, restored with it', async function () {
    t.standinOnly(this, 'sets the database FORCED inside the stand-in, as a killed comparison would');
    const journal = new FileRestoreJournal(join(dir, 'journal.json'));
    h.engine.state.dbByName('lab')!.delayedDurability = 2; // FORCED, as a killed comparison would leave it
    await journal.put(newRestoreEntry({ server: `127.0.0.1,${h.server.port}`, database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    // No terminal and no --yes: listed with its owner and statement, nothing changed; and the workload (INSERTs) is not
    // run either: there is no one to confirm it.
    assert.equal(await runCli(['profile', ...args('--json')], { ...io(), ask: () => null } as ConnectedCliIO), EXIT.refused, err.join(''));
    assert.match(err.join(''), /Not confirmed: nothing was run\. There is no terminal to ask on \(the question needs both stdin and stderr on a terminal\); re-run with --yes/);
    assert.match(err.join(''), /1 unfinished restore.*\n.*\[lab\] .*back to DISABLED \(the run last set FORCED\), left by process \d+ on .* \(CLI\)[^]*Not restored: re-run with --yes[^]*ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/);
    assert.equal((await journal.list()).length, 1);
    assert.equal((await serverState()).setting, 'FORCED');
    err.length = 0;
    out.length = 0;
    const code = await runCli(['profile', ...args('--json', '--yes')], io());
    assert.equal(code, EXIT.ok, err.join(''));
    assert.match(err.join(''), /1 unfinished restore.*\n[^]*back to DISABLED \(verified\)/);
    assert.deepEqual(await journal.list(), []);
    const json = JSON.parse(out.join(''));
    assert.equal(json.delayedDurability, 'DISABLED');
    assert.equal(json.source, 'stand-in');
  });

  it('compare refuses a database whose leftover journal entry was not confirmed (no --yes answer)', async function () {
    t.standinOnly(this, 'sets the database FORCED inside the stand-in, as a killed comparison would');
    const journal = new FileRestoreJournal(join(dir, 'journal.json'));
    h.engine.state.dbByName('lab')!.delayedDurability = 2;
    await journal.put(newRestoreEntry({ server: `127.0.0.1,${h.server.port}`, database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    const asked: string[] = [];
    // Without --yes the recovery is asked (declined here), and the comparison would take FORCED for the original.
    const code = await runCli(['compare', ...args('--repeat', '1')], { ...io(), ask: (q: string) => (asked.push(q), Promise.resolve(false)) } as ConnectedCliIO);
    assert.equal(code, EXIT.refused, err.join(''));
    assert.equal(asked.length, 1);
    assert.match(err.join(''), /Refused: lab still has an unfinished restore in the journal/);
    assert.equal((await serverState()).setting, 'FORCED');
    h.engine.state.dbByName('lab')!.delayedDurability = 0;
    await journal.remove((await journal.list())[0]!.id);
  });

  it('a journal entry file that cannot be read (truncated) is reported at start and left untouched, not skipped in silence', async () => {
    const folder = join(dir, 'journal.json');
    await new FileRestoreJournal(folder).list(); // the folder exists
    const truncated = join(folder, '22222222-2222-4333-8444-555555555555.json');
    await writeFile(truncated, '{\n  "schemaVersion": 2,\n  "id": "22222222-2222-4333-8444-555555555555",\n  "database": "lab",\n  "originalSett');
    try {
      const code = await runCli(['profile', ...args('--yes')], io());
      assert.equal(code, EXIT.ok, err.join(''));
      const text = err.join('');
      assert.ok(text.includes(`The restore journal holds a file that is not a readable entry (left untouched): ${truncated}`), text);
      assert.match(text, /If it was a comparison's, its database may still be changed: check delayed_durability_desc in sys\.databases/);
      assert.equal(await readFile(truncated, 'utf8').then((t) => t.endsWith('"originalSett')), true, 'left as it was');
    } finally {
      await rm(truncated, { force: true });
    }
  });

  it('Ctrl+C at the journal-recovery question exits 130 saying nothing was restored or changed, and keeps the entry', async function () {
    t.standinOnly(this, 'sets the database FORCED inside the stand-in, as a killed comparison would');
    const journal = new FileRestoreJournal(join(dir, 'journal.json'));
    h.engine.state.dbByName('lab')!.delayedDurability = 2;
    await journal.put(newRestoreEntry({ server: `127.0.0.1,${h.server.port}`, database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    // What node:readline/promises rejects a pending question with when the user types Ctrl+C (the terminal is raw).
    const ctrlC = () => Promise.reject(Object.assign(new Error('Aborted with Ctrl+C'), { name: 'AbortError', code: 'ABORT_ERR' }));
    for (const command of ['compare', 'profile']) {
      err = [];
      const code = await runCli([command, ...args('--repeat', '1')].filter((a, i, all) => command === 'compare' || (a !== '--repeat' && all[i - 1] !== '--repeat')), { ...io(), ask: ctrlC } as ConnectedCliIO);
      assert.equal(code, 130, `${command}: ${err.join('')}`);
      assert.match(err.join(''), /Interrupted at the question \(Ctrl\+C\): nothing was restored and nothing was changed\. DELAYED_DURABILITY of \[lab\] may still be FORCED \(it was DISABLED\); the restore journal keeps the entry: re-run with --yes, or run: ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/, command);
      assert.doesNotMatch(err.join(''), /Aborted with Ctrl\+C|event session was dropped/, command);
      assert.equal((await serverState()).setting, 'FORCED');
      assert.equal((await journal.list()).length, 1);
    }
    h.engine.state.dbByName('lab')!.delayedDurability = 0;
    await journal.remove((await journal.list())[0]!.id);
  });

});
