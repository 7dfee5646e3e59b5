// A procedure lens's path on the suite's server (useTestServer): deploy the editor's text (CREATE OR ALTER), read it
// back with OBJECT_DEFINITION and compare, then profile and compare the call made as an RPC with typed parameters.
// What arrived on the wire (the decoded RPC) is read from the in-process stand-in only; a given server is checked by
// the rows the call wrote.
import { strict as assert } from 'node:assert';
import { connect } from '../../../src/db/connect';
import { compareDefinitions, definitionStatusText, deployStatement, readDeployedDefinition } from '../../../src/profile/deployedDefinition';
import { procedureCallBatch, procedureCallName, readInput } from '../../../src/profile/procedureCall';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, profileRun, runComparison } from '../../../src/profile';
import type { ProcedureTarget } from '../../../src/shared/procedureTarget';
import { analyze } from '../../../src/tsql';
import type { ExecRequest } from '../../standin/engine';
import { useTestServer } from '../support';

/** The editor's text of the procedure under test, creating `name` and inserting into `table`. */
const editorText = (name: string, table: string) => [
  `CREATE PROCEDURE ${name}`,
  "  @rows int, @note nvarchar(20) = N'lens'",
  'AS',
  'BEGIN',
  '  SET NOCOUNT ON;',
  '  DECLARE @i int = 0;',
  '  WHILE @i < @rows',
  '  BEGIN',
  `    INSERT INTO ${table} (v, note) VALUES (@i, @note);`,
  '    SET @i += 1;',
  '  END;',
  'END',
].join('\r\n');

/** The lens argument the language server would send for EDITOR (built from the same analysis). */
function lensTarget(text: string): ProcedureTarget {
  const routine = analyze(text).routines![0]!;
  const sig = routine.signature!;
  return {
    uri: 'file:///w/proc.sql', version: 1, name: routine.name, nameParts: sig.nameParts, number: routine.number,
    parameters: sig.parameters.map((p) => ({ name: p.name, type: p.type, default: p.default, output: p.output, readonly: p.readonly, notPromptable: p.notPromptable })),
    notPromptable: sig.notPromptable, range: routine.range, batchIndex: routine.batchIndex,
  };
}

describe('integration: procedure lens path', function () {
  this.timeout(60000);
  const t = useTestServer({ logins: [
    { name: 'lens_dev', password: 'Dev-pass-1', databases: ['lab'], databasePermissions: { lab: ['CONNECT', 'VIEW DATABASE STATE'] } },
    { name: 'lens_reader', password: 'Dev-pass-1', databases: ['lab'], databasePermissions: { lab: ['CONNECT', 'VIEW DATABASE STATE', 'VIEW DEFINITION'] } },
  ] });
  const table = t.table('proc_rows');
  const procedure = t.procedure('load_rows');
  const EDITOR = editorText(procedure, table);
  const target = lensTarget(EDITOR);
  const name = procedureCallName(target);
  const source = () => profileConnectionSource(t.profile, t.secret);
  before(async () => {
    const s = await t.connect();
    await s.execute(`CREATE TABLE ${table} (v int, note nvarchar(20));`);
    await s.close();
  });

  /** Runs `batch` as a profile; on the in-process stand-in also returns the requests that reached the server. */
  async function profileSeen(batch: Parameters<typeof profileRun>[0]['batches'][number]): Promise<{ run: Awaited<ReturnType<typeof profileRun>>; seen: ExecRequest[] | null }> {
    const engine = t.standin;
    if (!engine) return { run: await profileRun({ connections: source(), batches: [batch], xe: { enabled: false } }), seen: null };
    const seen: ExecRequest[] = [];
    const execute = engine.execute.bind(engine);
    engine.execute = (session, request, context) => { seen.push(request); return execute(session, request, context); };
    try {
      return { run: await profileRun({ connections: source(), batches: [batch], xe: { enabled: false } }), seen };
    } finally {
      engine.execute = execute;
    }
  }

  it('says missing before the deploy, deploys CREATE OR ALTER from the editor, then reads back the same definition', async () => {
    const s = await t.connect();
    try {
      assert.deepEqual(await readDeployedDefinition(s, name), { status: 'missing' });
      await s.execute(deployStatement(EDITOR));
      const deployed = await readDeployedDefinition(s, name);
      assert.equal(deployed.status, 'found');
      if (deployed.status !== 'found') return;
      assert.ok(deployed.definition.startsWith(`CREATE OR ALTER PROCEDURE ${procedure}\r\n`), deployed.definition.slice(0, 80));
      assert.deepEqual(compareDefinitions(deployed.definition, EDITOR), { same: true, firstDifferentLine: null });
      const edited = EDITOR.replace('SET @i += 1;', 'SET @i += 2;');
      assert.deepEqual(compareDefinitions(deployed.definition, edited), { same: false, firstDifferentLine: 10 });
    } finally {
      await s.close();
    }
  });

  it('profiles the parameterised call as an RPC: the rows the parameters asked for, one log flush per autocommit INSERT', async () => {
    const batch = procedureCallBatch(target, new Map([['@rows', readInput('25')], ['@note', readInput("it's;DROP TABLE x")]]));
    assert.equal(batch.text, `EXEC ${name} @rows = 25, @note = N'it''s;DROP TABLE x'`);
    const { run, seen } = await profileSeen(batch);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.deepEqual(run.errors, []);
    if (seen) {
      // What reached the server: an RPC request naming the procedure, the values as typed parameters.
      const calls = seen.filter((r) => r.kind === 'rpc' && r.procedure === name);
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0]!.kind === 'rpc' && calls[0]!.parameters.map((p) => [p.name, p.value, p.typeName]), [['@rows', 25, 'int'], ['@note', "it's;DROP TABLE x", 'nvarchar(20)']]);
      assert.ok(!seen.some((r) => r.kind === 'batch' && r.sql.includes('DROP TABLE')), 'the value never travels as SQL text');
    }
    const s = await t.connect();
    const [row] = await s.query(`SELECT COUNT(*) AS n FROM ${table} WHERE note = @note`, [{ name: 'note', type: 'nvarchar', value: "it's;DROP TABLE x" }]);
    await s.close();
    assert.equal(row!.n, 25);
    // One session, DISABLED: every autocommit INSERT inside the procedure waits for its own log flush.
    assert.ok((run.logCounters.logFlushes ?? 0) >= 25, JSON.stringify(run.logCounters));
  });

  it("runs the procedure's own default for a parameter answered DEFAULT (left out of the RPC)", async () => {
    const withDefault = procedureCallBatch(target, new Map([['@rows', readInput('3')], ['@note', readInput('DEFAULT')]]));
    assert.deepEqual(withDefault.call!.parameters.map((p) => p.name), ['rows']);
    const run = await profileRun({ connections: source(), batches: [withDefault], xe: { enabled: false } });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    const s = await t.connect();
    const [row] = await s.query(`SELECT COUNT(*) AS n FROM ${table} WHERE note = N'lens'`);
    await s.close();
    assert.equal(row!.n, 3);
  });

  it('says why a deployed definition is hidden from a login without VIEW DEFINITION, and reads it once granted', async function () {
    t.standinOnly(this, 'needs two more logins (created through the stand-in control API)');
    const s = await t.connect();
    await s.execute(deployStatement(EDITOR));
    await s.close();
    const as = async (login: string) => {
      const session = await connect({ ...t.profile, authentication: { type: 'sql', user: login } }, 'Dev-pass-1', { role: 'monitor' });
      try {
        return await readDeployedDefinition(session, name);
      } finally {
        await session.close();
      }
    };
    const hidden = await as('lens_dev');
    assert.equal(hidden.status, 'hidden');
    assert.ok(definitionStatusText(target.name, name, hidden, null)!.includes(`needs VIEW DEFINITION on it (GRANT VIEW DEFINITION ON OBJECT::${name} TO <user>)`), definitionStatusText(target.name, name, hidden, null)!);
    const granted = await as('lens_reader');
    assert.equal(granted.status, 'found');
  });

  it('sends an OUTPUT parameter by reference and a decimal with its declared precision and scale', async () => {
    const text = `CREATE OR ALTER PROCEDURE ${t.procedure('sum_rows')} @factor decimal(9, 2), @total decimal(18, 2) OUTPUT AS SELECT @total = SUM(v) * @factor FROM ${table};`;
    const s = await t.connect();
    await s.execute(deployStatement(text));
    await s.close();
    const sumTarget = lensTarget(text);
    const batch = procedureCallBatch(sumTarget, new Map([['@factor', readInput('-1.25')], ['@total', readInput('NULL')]]));
    assert.deepEqual(batch.call!.parameters, [
      { name: 'factor', type: 'decimal', value: '-1.25', output: false, precision: 9, scale: 2 },
      { name: 'total', type: 'decimal', value: null, output: true, precision: 18, scale: 2 },
    ]);
    const { run, seen } = await profileSeen(batch);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.deepEqual(run.errors, [], 'the server accepted the typed parameters');
    if (!seen) return;
    const call = seen.find((r) => r.kind === 'rpc' && r.procedure === procedureCallName(sumTarget));
    assert.ok(call && call.kind === 'rpc');
    assert.deepEqual(call.parameters.map((p) => [p.name, p.typeName, p.output]), [['@factor', 'decimal(9,2)', false], ['@total', 'decimal(18,2)', true]]);
    assert.equal(call.parameters[0]!.value, '-1.25');
  });

  it('compares durability modes for the call, restoring the database setting', async () => {
    const batch = procedureCallBatch(target, new Map([['@rows', readInput('10')]]));
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    const result = await runComparison({ connections: source(), batches: [batch], journal, confirm: () => true, xe: { enabled: false }, repetitions: 1, warmup: false });
    assert.equal(result.status, 'completed', result.error?.message);
    const measured = result.runs.filter((r) => !r.warmup);
    assert.ok(measured.length >= 2, `runs: ${measured.length}`);
    assert.ok(measured.every((r) => r.errors.length === 0), JSON.stringify(measured.map((r) => r.errors)));
    assert.equal(result.restore?.status === 'failed', false);
    assert.deepEqual(await journal.list(), []);
  });
});
