// The CLI as a real child process against hostile surroundings: a cloned repository's .vscode/settings.json that
// defines a profile named like the user's (another host, encrypt:false, development:true), and a server whose
// database name carries terminal escape sequences (ESC [ 2J clears the screen, OSC 52 sets the clipboard).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WORKLOAD } from './comparison';
import { startReliabilityStandin, type ReliabilityStandin } from './harness';

const root = resolve(__dirname, '..', '..');
const mainTs = join(root, 'src', 'cli', 'main.ts');
// The child runs in a temp folder, so tsx is named by its resolved loader (a bare 'tsx' resolves from the cwd).
const tsxLoader = pathToFileURL(require.resolve('tsx')).href;

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** Runs `node --import tsx src/cli/main.ts …args` in `cwd` with exactly `env` (no inherited HOME or settings). */
function runCliProcess(args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, mainTs, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'), ...env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

/** A temp HOME whose VS Code user settings hold `userConnections`, and a workspace folder with its own settings. */
function tempHomeAndWorkspace(userConnections: unknown[], workspaceConnections: unknown[]): { home: string; workspace: string; journal: string } {
  const base = fs.mkdtempSync(join(tmpdir(), 'dl-cli-trust-'));
  const home = join(base, 'home');
  const workspace = join(base, 'repo');
  fs.mkdirSync(join(home, '.config', 'Code', 'User'), { recursive: true });
  fs.mkdirSync(join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(join(home, '.config', 'Code', 'User', 'settings.json'), JSON.stringify({ 'durabilityLens.connections': userConnections }));
  fs.writeFileSync(join(workspace, '.vscode', 'settings.json'), `// a cloned repository\n${JSON.stringify({ 'durabilityLens.connections': workspaceConnections })}`);
  fs.writeFileSync(join(workspace, 'workload.sql'), WORKLOAD);
  return { home, workspace, journal: join(base, 'journal.json') };
}

describe('reliability: the CLI in a hostile repository and against a hostile server', function () {
  this.timeout(180000);
  let h: ReliabilityStandin;
  let rogue: net.Server;
  let rogueConnections = 0;
  let roguePort = 0;
  before(async () => {
    h = await startReliabilityStandin();
    rogue = net.createServer((socket) => {
      rogueConnections++;
      socket.destroy();
    });
    await new Promise<void>((r) => rogue.listen(0, '127.0.0.1', r));
    roguePort = (rogue.address() as net.AddressInfo).port;
  });
  after(async () => {
    await h?.close();
    await new Promise<void>((r) => (rogue ? rogue.close(() => r()) : r()));
  });

  it('connects to the user\'s "prod", not the workspace\'s same-named one, and a workspace development:true does not skip confirmation', async () => {
    const { home, workspace, journal } = tempHomeAndWorkspace(
      [{ name: 'prod', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false }],
      [{ name: 'prod', server: '127.0.0.1', port: roguePort, database: 'lab', user: 'sa', encrypt: false, development: true }],
    );
    h.clearLog();
    const ran = await runCliProcess(['compare', '--connection', 'prod', '--file', 'workload.sql', '--journal', journal, '--no-warmup', '--repeat', '1'], workspace, {
      HOME: home,
      DURABILITY_LENS_PASSWORD: h.secret,
    });
    const stderr = ran.stderr.toString('utf8');
    assert.equal(ran.code, 5, stderr); // refused: the plan was printed, not confirmed
    assert.equal(rogueConnections, 0, 'the workspace profile\'s server received a connection');
    assert.ok(h.log.length > 0, 'the user profile\'s server was reached');
    assert.match(stderr, /Using the connection "prod" from .*home\/\.config\/Code\/User\/settings\.json \(the user settings of VS Code\)\./);
    assert.match(stderr, /repo\/\.vscode\/settings\.json is not read for connections/);
    assert.match(stderr, /Not confirmed: nothing was changed/);
    assert.doesNotMatch(stderr, /marked as a development server/);
    assert.ok(!h.log.some((r) => /ALTER DATABASE/i.test(r.text)), 'an ALTER ran without --yes');
    assert.equal(h.setting('lab'), 'DISABLED');
  });

  it('a database name with ESC/CSI/OSC/C1/bidi sequences is escaped in every CLI output format (no raw 0x1b byte)', async () => {
    const hostile = 'lab\x1b[2J\x1b[HALL GOOD\r\x1b]52;c;ZXZpbA==\x07\x9b31m\u202eevil';
    h.engine.addDatabase({ name: hostile });
    const { home, workspace, journal } = tempHomeAndWorkspace([{ name: 'prod', server: '127.0.0.1', port: h.server.port, database: hostile, user: 'sa', encrypt: false }], []);
    const formats: string[][] = [['--markdown'], ['--json']];
    for (const format of formats) {
      const ran = await runCliProcess(
        ['compare', '--connection', 'prod', '--file', 'workload.sql', '--journal', journal, '--no-warmup', '--repeat', '1', '--setup-batches', '1', '--yes', '--no-sampling', ...format],
        workspace,
        { HOME: home, DURABILITY_LENS_PASSWORD: h.secret },
      );
      assert.equal(ran.code, 0, ran.stderr.toString('utf8'));
      for (const [name, bytes] of [['stdout', ran.stdout], ['stderr', ran.stderr]] as const) {
        assert.equal(bytes.includes(0x1b), false, `${format[0]} ${name} holds a raw ESC`);
        const text = bytes.toString('utf8');
        assert.doesNotMatch(text, /[\u0007\u0080-\u009f\u202a-\u202e\r]/, `${format[0]} ${name} holds a raw control/bidi character`);
      }
      const stdout = ran.stdout.toString('utf8');
      if (format[0] === '--json') {
        // Still valid JSON, and it decodes to the exact name.
        assert.equal(JSON.parse(stdout).database, hostile);
      } else {
        assert.ok(stdout.includes('\\x1b[2J'), 'the ESC is shown as visible text');
        assert.ok(stdout.includes('\\u202e'), 'the bidi override is shown as visible text');
      }
      // The plan on stderr names the database, escaped too.
      assert.ok(ran.stderr.toString('utf8').includes('lab\\x1b[2J'), 'stderr names the database visibly');
    }
    assert.equal(h.setting(hostile), 'DISABLED');
    // profile prints the run result: the same neutralisation.
    for (const format of [[], ['--json']]) {
      const ran = await runCliProcess(['profile', '--connection', 'prod', '--file', 'workload.sql', '--journal', journal, '--no-sampling', '--yes', ...format], workspace, {
        HOME: home,
        DURABILITY_LENS_PASSWORD: h.secret,
      });
      assert.equal(ran.code, 0, ran.stderr.toString('utf8'));
      assert.equal(ran.stdout.includes(0x1b) || ran.stderr.includes(0x1b), false, `profile ${format[0] ?? 'text'} holds a raw ESC`);
      assert.doesNotMatch(ran.stdout.toString('utf8') + ran.stderr.toString('utf8'), /[\u0007\u0080-\u009f\u202a-\u202e]/);
    }
  });
});
