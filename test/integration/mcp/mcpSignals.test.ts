// `durability-lens mcp --allow-run` stopped the way MCP clients stop a server — SIGTERM — while a comparison holds the
// database at FORCED: the run is cancelled, DELAYED_DURABILITY restored and verified, the event sessions and the
// ownership marker dropped, and the process exits 143 (outside attack: it died at once and left the database FORCED).
// The client here speaks JSON-RPC over the child's stdio itself, to own the process and read its exit code.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentTools } from '../../../src/agent/toolDefinitions';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

const REPO = resolve(__dirname, '../../..');

async function until<T>(what: string, probe: () => Promise<T | null>, deadlineMs: number): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('integration: durability-lens mcp stopped by a signal during a comparison', function () {
  this.timeout(180_000);
  const t = useTestServer();
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-mcp-sig-'));
    await writeFile(join(dir, 'slow.sql'), s1Script(3000, t.table('mcp_sig')));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM while FORCED: restores the setting, drops the event sessions, exits 143 and says so', async () => {
    const original = (await t.state()).setting;
    assert.notEqual(original, 'FORCED');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--root', dir, '--allow-run', '--no-confirm', ...t.cliConnection(), '--journal', join(dir, 'journal'), '--repeat', '3'], {
      cwd: REPO, env: { PATH: process.env.PATH ?? '', ...t.cliEnv() }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    child.stdout.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    const send = (o: unknown) => child.stdin.write(`${JSON.stringify(o)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: AgentTools.compareDurability, arguments: { path: 'slow.sql' } } });
    try {
      await until('the database at FORCED', async () => ((await t.state()).setting === 'FORCED' ? true : null), 120_000);
      child.kill('SIGTERM');
      const how = await Promise.race([exited, until('the server to exit', async () => null, 90_000)]);
      assert.deepEqual(how, { code: 143, signal: null }, stderr);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    assert.match(stderr, /Received SIGTERM: stopping the workload, restoring DELAYED_DURABILITY/);
    const state = await t.state();
    assert.equal(state.setting, original, stderr);
    assert.deepEqual(state.eventSessions, [], stderr);
  });
});
