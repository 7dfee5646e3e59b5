// `record --json`'s `causes` and `causesBasis` (docs/run-result-schema.md, "Causes") for a real separate program
// (python-tds, support/insert_rows.py): every cause once, with the documented keys, ranked as documented, shares that
// are parts of `causesBasis.sessionTimeMs`; and, as a login without VIEW SERVER PERFORMANCE STATE, the wait-based causes
// not measured — share and ms null, never 0 — with the reason and the GRANT that fixes it.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/commands/shared';
import { processIO } from '../../../src/cli/io';
import { CAUSE_IDS } from '../../../src/report/causes';
import { useTestServer } from '../support';
import { INSERT_ROWS, prepareProgram, pytdsAvailable } from './support/program';

interface CauseJson {
  cause: string;
  share: number | null;
  ms: number | null;
  helpsDelayedDurability: boolean | 'partly';
  notMeasured: { reason: string; grant: string | null } | null;
  [key: string]: unknown;
}

/** The keys the "Causes" table of docs/run-result-schema.md lists (`label`, `summary` share a row). */
function documentedCauseKeys(): string[] {
  const doc = readFileSync(join(__dirname, '../../../docs/run-result-schema.md'), 'utf8');
  const table = doc.split('## Causes')[1]!.split('`causesBasis` (and')[0]!;
  return table.split('\n').filter((l) => /^\| `/.test(l)).flatMap((l) => [...l.split(' | ')[0]!.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!));
}

/** What the table says of `helpsDelayedDurability` per cause (the log-rate governor: false unless the fee is large). */
const HELPS: Record<string, boolean | 'partly'> = {
  'log-disk': true, 'tiny-flushes': true, 'group-commit': 'partly', 'log-writer-limit': 'partly', 'ag-sync-commit': 'partly',
  'log-rate-governor': false, 'hyperscale-log-service': false, tempdb: false, 'not-log': false,
};

/** The documented ranking: measured shares largest first, then not measured, then measured zeros; ties in CAUSE_IDS order. */
function assertRanked(causes: CauseJson[]): void {
  const tier = (c: CauseJson) => (c.share === null ? 1 : c.share > 0 ? 0 : 2);
  const order = (c: CauseJson) => CAUSE_IDS.indexOf(c.cause as (typeof CAUSE_IDS)[number]);
  const expected = [...causes].sort((a, b) => tier(a) - tier(b) || (b.share ?? 0) - (a.share ?? 0) || order(a) - order(b));
  assert.deepEqual(causes.map((c) => c.cause), expected.map((c) => c.cause));
}

const LOW = { name: 'lens_rec_low', password: 'Rec-low-1', databases: ['lab'], serverPermissions: ['ALTER ANY EVENT SESSION'], databasePermissions: { lab: ['VIEW DATABASE PERFORMANCE STATE'] } };

describe('integration: record --json carries the causes as docs/run-result-schema.md documents them', function () {
  this.timeout(120000);
  const t = useTestServer({ logins: [LOW] });
  let port: number;
  before(async () => {
    ({ port } = await prepareProgram(t));
  });

  async function record(login: { user: string; password: string } | null): Promise<{ causes: CauseJson[]; causesBasis: Record<string, unknown> }> {
    const out: string[] = [];
    const err: string[] = [];
    let args = t.cliConnection();
    const env = { ...t.cliEnv() };
    if (login) {
      const user = args.indexOf('--user');
      args = args.map((a, i) => (i === user + 1 ? login.user : a));
      for (const k of Object.keys(env)) if (env[k] === t.secret) env[k] = login.password;
    }
    const io = { ...processIO(), env, stdout: (x: string) => void out.push(x), stderr: (x: string) => void err.push(x) };
    const code = await runCli(['record', ...args, '--json', '--', 'python3', INSERT_ROWS, String(port), '100'], io);
    assert.equal(code, EXIT.ok, err.join(''));
    return JSON.parse(out.join(''));
  }

  it('every cause once, with exactly the documented keys, ranked, its share its part of causesBasis.sessionTimeMs', async function () {
    if (!pytdsAvailable) this.skip();
    const run = await record(null);
    const keys = documentedCauseKeys();
    assert.deepEqual([...keys].sort(), ['cause', 'evidence', 'fix', 'helpsDelayedDurability', 'helpsWhy', 'label', 'learn', 'ms', 'notMeasured', 'share', 'summary'], 'the table lists what the schema promises');
    assert.deepEqual(run.causes.map((c) => c.cause).sort(), [...CAUSE_IDS].sort(), 'every cause, once');
    for (const c of run.causes) {
      assert.deepEqual(Object.keys(c).sort(), [...keys].sort(), c.cause);
      assert.equal(c.helpsDelayedDurability, HELPS[c.cause], c.cause);
      for (const k of ['label', 'summary', 'helpsWhy', 'fix']) assert.ok(typeof c[k] === 'string' && (c[k] as string).length > 0, `${c.cause}.${k}`);
      assert.ok(Array.isArray(c.evidence) && Array.isArray(c.learn) && (c.learn as string[]).every((u) => u.startsWith('https://')), c.cause);
    }
    assertRanked(run.causes);
    // The admin reads the server's waits: every cause is measured; a recording's waits are the server's.
    assert.ok(run.causes.every((c) => c.notMeasured === null && c.share !== null && c.ms !== null), JSON.stringify(run.causes.map((c) => [c.cause, c.share])));
    const basis = run.causesBasis as { scope: string; sessionTimeMs: number; commitWaitMs: number; dominant: string };
    assert.equal(basis.scope, 'server-wide');
    assert.equal(basis.dominant, run.causes[0]!.cause);
    for (const c of run.causes) assert.ok(Math.abs(c.share! - c.ms! / basis.sessionTimeMs) < 1e-9, `${c.cause}: share ${c.share} is ${c.ms} ms of ${basis.sessionTimeMs} ms`);
    const total = run.causes.reduce((s, c) => s + c.share!, 0);
    assert.ok(Math.abs(total - 1) < 1e-9, `the shares add up to the session's time: ${total}`);
    // 100 autocommit inserts: their WRITELOG waits are commit time, counted under the flush causes.
    assert.ok(basis.commitWaitMs > 0, `commit waits ${basis.commitWaitMs}`);
    const flush = run.causes.filter((c) => ['log-disk', 'tiny-flushes', 'group-commit', 'log-writer-limit'].includes(c.cause)).reduce((s, c) => s + c.ms!, 0);
    assert.ok(Math.abs(flush - basis.commitWaitMs) < 1e-6, `flush causes ${flush} ms = commit waits ${basis.commitWaitMs} ms`);
  });

  it('without VIEW SERVER PERFORMANCE STATE: the wait-based causes are not measured (null, never 0) with the reason and the GRANT', async function () {
    if (!pytdsAvailable) this.skip();
    t.standinOnly(this, 'the login is created on the stand-in');
    const run = await record({ user: LOW.name, password: LOW.password });
    assertRanked(run.causes);
    const notMeasured = run.causes.filter((c) => c.notMeasured !== null);
    assert.deepEqual(notMeasured.map((c) => c.cause).sort(), CAUSE_IDS.filter((id) => id !== 'tempdb').sort());
    for (const c of notMeasured) {
      assert.equal(c.share, null, c.cause);
      assert.equal(c.ms, null, c.cause);
      assert.match(c.notMeasured!.reason, /sys\.dm_os_wait_stats.*VIEW SERVER PERFORMANCE STATE permission was denied/, c.cause);
      assert.equal(c.notMeasured!.grant, 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens_rec_low];', c.cause);
    }
    // tempdb needs no wait: the database is not tempdb and no SCHEMA_ONLY table, a measured 0, ranked after the not measured.
    const tempdb = run.causes.at(-1)!;
    assert.deepEqual([tempdb.cause, tempdb.share, tempdb.ms, tempdb.notMeasured], ['tempdb', 0, 0, null]);
    assert.equal((run.causesBasis as { dominant: unknown; scope: unknown }).dominant, null);
    assert.equal((run.causesBasis as { scope: unknown }).scope, null, 'no waits read: no scope');
  });
});
