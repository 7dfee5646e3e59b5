// The environment's trace-flag line: flags that could not be read say "not measured" with why (and the GRANT when one
// fixes it), not a bare "unknown (not readable)".
import { strict as assert } from 'node:assert';
import { notApplicable, type Measurement } from '../../../src/probes/measurement';
import { environmentLines, environmentOf } from '../../../src/report/environment';
import { makeRun } from './runFixture';

describe('report environment: trace flags not measured', () => {
  it('names why DBCC TRACESTATUS was not read (Azure SQL Database: not attempted)', () => {
    const run = makeRun({ mode: null });
    const traceFlags: Measurement<never[]> = notApplicable('traceFlags', 'DBCC TRACESTATUS is not confirmed on Azure SQL Database; not attempted.');
    const env = environmentOf([{ ...run, server: { ...run.server, traceFlags } }])!;
    const line = environmentLines(env).find((l) => l.startsWith('Trace flags'));
    assert.equal(line, 'Trace flags: 3979, 3982 not measured — DBCC TRACESTATUS is not confirmed on Azure SQL Database; not attempted.');
    assert.deepEqual(env.traceFlags.map((t) => t.enabled), [null, null]);
  });

  it('carries the GRANT when a permission was refused', () => {
    const run = makeRun({ mode: null });
    const traceFlags: Measurement<never[]> = { status: 'unavailable', measurement: 'traceFlags', cause: 'permission', reason: 'Not measured: trace flags: denied.', grant: 'USE [master];\nGRANT X TO [low];', errorNumber: 2571 };
    const env = environmentOf([{ ...run, server: { ...run.server, traceFlags } }])!;
    assert.ok(environmentLines(env).includes('Trace flags: 3979, 3982 not measured — trace flags: denied. To enable: USE [master]; GRANT X TO [low];'), environmentLines(env).join('\n'));
  });
});
