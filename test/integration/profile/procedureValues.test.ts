// Procedure parameter values on the suite's server (useTestServer), as they arrive: a decimal(38,0) beyond a double's
// digits, a datetime2(7) with 100 ns digits, and a numbered procedure whose definition can't be compared (review
// D4–D6). What arrives on the wire is read from the in-process stand-in's decoded RPC request; a given server is
// checked by what it stored.
import { strict as assert } from 'node:assert';
import { definitionStatusText, readDeployedDefinition } from '../../../src/profile/deployedDefinition';
import { procedureCallBatch, procedureCallName, readInput } from '../../../src/profile/procedureCall';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import type { ProcedureTarget } from '../../../src/shared/procedureTarget';
import { analyze } from '../../../src/tsql';
import type { ExecRequest, RpcParameter } from '../../standin/engine';
import { useTestServer } from '../support';

function lensTarget(text: string): ProcedureTarget {
  const routine = analyze(text).routines![0]!;
  const sig = routine.signature!;
  return {
    uri: 'file:///w/values.sql', version: 1, name: routine.name, nameParts: sig.nameParts, number: routine.number,
    parameters: sig.parameters.map((p) => ({ name: p.name, type: p.type, default: p.default, output: p.output, readonly: p.readonly, notPromptable: p.notPromptable })),
    notPromptable: sig.notPromptable, range: routine.range, batchIndex: routine.batchIndex,
  };
}

describe('integration: procedure parameter values as they arrive', function () {
  this.timeout(60000);
  const t = useTestServer();

  /** Deploys `text`, runs the call with `answers` as an RPC and returns the parameters the stand-in decoded (null on a given server). */
  async function callAndSee(text: string, answers: Record<string, string>): Promise<RpcParameter[] | null> {
    const s = await t.connect();
    try {
      await s.execute(text);
    } finally {
      await s.close();
    }
    const target = lensTarget(text);
    const batch = procedureCallBatch(target, new Map(Object.entries(answers).map(([k, v]) => [k, readInput(v)])));
    const engine = t.standin;
    const seen: ExecRequest[] = [];
    const execute = engine?.execute.bind(engine);
    if (engine) engine.execute = (session, request, context) => { seen.push(request); return execute!(session, request, context); };
    try {
      const run = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: [batch], xe: { enabled: false } });
      assert.equal(run.status, 'completed', JSON.stringify(run.errors));
      assert.deepEqual(run.errors, []);
    } finally {
      if (engine) engine.execute = execute!;
    }
    if (!engine) return null;
    const call = seen.find((r) => r.kind === 'rpc' && r.procedure === procedureCallName(target));
    assert.ok(call && call.kind === 'rpc', 'the call arrived as an RPC');
    return call.parameters;
  }

  it('D5: decimal(38,0) 12345678901234567890123 arrives exactly (as nvarchar, converted by the server) and is stored exactly', async () => {
    const table = t.table('big_vals');
    const s = await t.connect();
    await s.execute(`CREATE TABLE ${table} (d decimal(38, 0) NULL, f numeric(30, 10) NULL);`);
    await s.close();
    const params = await callAndSee(`CREATE PROCEDURE ${t.procedure('put_big')} @d decimal(38, 0), @f numeric(30, 10) AS INSERT INTO ${table} (d, f) VALUES (@d, @f);`,
      { '@d': '12345678901234567890123', '@f': '-1.25' });
    if (params) {
      assert.deepEqual(params.map((p) => [p.name, p.typeName, p.value]), [
        ['@d', 'nvarchar(41)', '12345678901234567890123'], // beyond a double: text, a parameter still
        ['@f', 'numeric(30,10)', '-1.2500000000'], // a double holds it exactly: the declared type
      ]);
    }
    const r = await t.connect();
    try {
      const rows = await r.query(`SELECT CAST(d AS nvarchar(50)) AS d, CAST(f AS nvarchar(50)) AS f FROM ${table};`);
      assert.deepEqual(rows, [{ d: '12345678901234567890123', f: '-1.2500000000' }]);
    } finally {
      await r.close();
    }
  });

  it('D6: datetime2(7) 10:30:05.1234567 arrives with its 100 ns digits', async function () {
    t.standinOnly(this, 'reads the decoded RPC parameter inside the stand-in (the stand-in itself stores datetime2 to the millisecond)');
    const table = t.table('at_vals');
    const s = await t.connect();
    await s.execute(`CREATE TABLE ${table} (at datetime2(7) NULL);`);
    await s.close();
    const params = (await callAndSee(`CREATE PROCEDURE ${t.procedure('put_at')} @at datetime2(7) AS INSERT INTO ${table} (at) VALUES (@at);`, { '@at': '2026-11-25 10:30:05.1234567' }))!;
    const at = params[0]!.value as Date & { hundredNanoseconds?: number };
    assert.equal(params[0]!.typeName, 'datetime2(7)');
    assert.equal(at.getTime(), Date.UTC(2026, 10, 25, 10, 30, 5, 123));
    assert.equal(at.hundredNanoseconds, 4567);
  });

  it('D4: a numbered procedure (;2) is never "not deployed": its definition is said to be not comparable', async () => {
    const s = await t.connect();
    try {
      const procedure = t.procedure('rv_np');
      await s.execute(`CREATE PROCEDURE ${procedure};2 AS SELECT 1;`);
      const quoted = procedureCallName({ nameParts: procedure.split('.'), number: 2 });
      const deployed = await readDeployedDefinition(s, quoted);
      assert.deepEqual(deployed, { status: 'not-comparable', reason: 'numbered' });
      const text = definitionStatusText(`${procedure};2`, quoted, deployed, null)!;
      assert.match(text, /can't be compared/);
      assert.doesNotMatch(text, /not deployed/);
    } finally {
      await s.close();
    }
  });
});
