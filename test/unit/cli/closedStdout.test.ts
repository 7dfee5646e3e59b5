// `durability-lens analyze … | head -1`: the reader closes the pipe after the first line. A closed stdout is exit code
// 141, as docs/cli.md's table says (the connected commands' lifecycle already answers it so, commands/lifecycle.ts) —
// not an uncaught 'error' event with a Node stack trace and exit 1, "unexpected failure".
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

describe('CLI: analyze into a pipe its reader closed', function () {
  this.timeout(60_000);

  it('exits 141 without a stack trace when the reader goes away after the first line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-closed-stdout-'));
    try {
      // Far more findings than a pipe holds (64 KiB on Linux), so writes go on after the reader has gone.
      const batch = (i: number) => `DECLARE @i${i} int = 0;\nWHILE @i${i} < 10\nBEGIN\n  BEGIN TRAN;\n  INSERT INTO dbo.t${i} (a) VALUES (@i${i});\n  COMMIT;\n  SET @i${i} += 1;\nEND\nGO`;
      const script = path.join(dir, 'many.sql');
      fs.writeFileSync(script, Array.from({ length: 600 }, (_, i) => batch(i)).join('\n'));
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'analyze', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      // `head -1`: read up to the first newline, then close the read end.
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      assert.doesNotMatch(stderr, /Unhandled 'error' event|at .*\(node:/, stderr);
      assert.equal(code, 141, stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
