// `durability-lens profile` creates Extended Events sessions on the server besides running the user's script. The
// user must be told before the first statement is sent, on stderr, and the --help text must not say that nothing but
// the script changes the server (outside attack unseen42: the help said so while each run created sessions ON SERVER
// and said nothing about them).
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/profile';
import { useTestServer } from '../support';

describe('integration: the CLI profile says what it changes besides the script before it runs', function () {
  this.timeout(60000);
  const server = useTestServer();

  async function profileStderr(extra: string[]): Promise<{ code: number; plan: string; chunks: string[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'lens-profile-plan-'));
    try {
      const file = join(dir, 'work.sql');
      await writeFile(file, 'SELECT 1;\n');
      const chunks: string[] = [];
      const io = { ...processIO(), env: server.cliEnv(), stdout: () => undefined, stderr: (t: string) => void chunks.push(t) };
      const code = await runCli(['profile', file, ...server.cliConnection(), '--journal', join(dir, 'journal'), '--json', ...extra], io);
      // Only the connection's own warning (encryption off, said when the connection is resolved) may come first.
      const at = chunks.findIndex((c) => c.startsWith('Plan:'));
      assert.ok(at >= 0, `no plan on stderr: ${chunks.join('')}`);
      for (const c of chunks.slice(0, at)) assert.match(c, /^Warning: encryption is off/);
      return { code, plan: chunks[at]!, chunks };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('with the trace on, before anything else of the run, stderr names the event sessions it creates and drops', async () => {
    const { code, plan: first, chunks } = await profileStderr([]);
    assert.equal(code, EXIT.ok, chunks.join(''));
    assert.match(first, /^Plan: {5}runs .*work\.sql as written, on database /);
    assert.match(first, /\nTrace: {4}creates Extended Events sessions ON SERVER \(ON DATABASE on Azure SQL Database\) named durability_lens_… \(log flushes, and the statements of the workload sessions\)/);
    assert.match(first, /drops them after the run; --no-xe leaves them out\./);
  });

  it('with --no-xe it says no event session is created', async () => {
    const { code, plan, chunks } = await profileStderr(['--no-xe']);
    assert.equal(code, EXIT.ok, chunks.join(''));
    assert.match(plan, /\nTrace: {4}none — --no-xe: no Extended Events session is created\./);
  });

  it('--help no longer says nothing but the script changes the server', async () => {
    const out: string[] = [];
    const io = { ...processIO(), stdout: (t: string) => void out.push(t), stderr: () => undefined };
    await runCli(['profile', '--help'], io);
    const help = out.join('');
    assert.doesNotMatch(help, /Nothing is changed on the server except what the script itself does/);
    assert.match(help, /Extended Events sessions it creates for the run and drops after it/);
  });

  it('record says the same before the program starts, and its --help no longer says nothing of ours changes the server', async () => {
    const chunks: string[] = [];
    const io = { ...processIO(), env: server.cliEnv(), stdout: () => undefined, stderr: (t: string) => void chunks.push(t) };
    const code = await runCli(['record', ...server.cliConnection(), '--json', '--', process.execPath, '-e', ''], io);
    assert.equal(code, 0, chunks.join(''));
    const at = chunks.findIndex((c) => c.startsWith('Plan:'));
    assert.ok(at >= 0, `no plan on stderr: ${chunks.join('')}`);
    for (const c of chunks.slice(0, at)) assert.match(c, /^Warning: encryption is off/);
    assert.match(chunks[at]!, /^Plan: {5}records database .* on .*, while .* runs \(its changes are its own\)\.\nTrace: {4}creates Extended Events sessions ON SERVER .*\(log flushes of the whole database\)/);
    const help: string[] = [];
    await runCli(['record', '--help'], { ...processIO(), stdout: (t: string) => void help.push(t), stderr: () => undefined });
    assert.doesNotMatch(help.join(''), /Nothing on the server is changed except by the program itself/);
  });
});
