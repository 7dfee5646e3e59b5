// `durability-lens top-log` options (issue 30): bad values are usage errors (exit 2) that say what is wrong, before any
// connection is attempted; --help prints the usage with the exit codes.
import { strict as assert } from 'node:assert';
import { runCli } from '../../../src/cli/dispatch';

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['top-log', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readFile: () => { throw new Error('no files'); } });
  return { code, out, err };
}

describe('cli: top-log options', () => {
  it('prints its usage with the rankings and exit codes', async () => {
    const r = await run('--help');
    assert.equal(r.code, 0);
    assert.match(r.out, /^Usage: durability-lens top-log --connection NAME\|CONNECTION_STRING \[--hours N\] \[--by log\|wait\|alone\]/);
    assert.match(r.out, /5 Query Store cannot be read here \(off, in error, or the login lacks\nVIEW DATABASE STATE \/ VIEW DATABASE PERFORMANCE STATE\)/);
  });

  for (const [args, message] of [
    [['--hours', '0'], /--hours must be a number of hours above 0 and at most 2160, not '0'/],
    [['--hours', 'day'], /--hours must be a number of hours above 0/],
    [['--by', 'bytes'], /--by must be log, wait or alone, not 'bytes'/],
    [['--top', '500'], /--top must be a whole number from 1 to 200, not '500'/],
    [['--top'], /--top needs a value/],
    [['--password', 'x'], /passwords are not accepted on the command line/],
    [['--frobnicate'], /unknown option '--frobnicate'/],
    [['--hours', '1'], /--connection \(or --server\) is required/],
  ] as const) {
    it(`refuses ${args.join(' ')} with a usage error`, async () => {
      const r = await run(...args);
      assert.equal(r.code, 2);
      assert.match(r.err, message);
      assert.equal(r.out, '');
    });
  }

  it('is listed in the overall help', async () => {
    let out = '';
    await runCli(['--help'], { stdout: (t) => void (out += t), stderr: () => undefined, readFile: () => '' });
    assert.match(out, /top-log\s+rank the database's procedures and statements by the log they wrote, from Query Store \(read-only\)/);
  });
});
