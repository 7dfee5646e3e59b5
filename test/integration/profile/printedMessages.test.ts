// A workload's PRINT text reaches the CLI's stderr as written by the server, so a message with line breaks could print
// a line that reads like one of ours ("DELAYED_DURABILITY of [lab] is back to DISABLED (verified).") after a
// comparison that did not restore anything. Every line after a message's first is indented (shared/visibleText.ts
// logEntryText, as in the extension's Output channel), and a lone CR cannot rewrite the line.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/profile';
import { useTestServer } from '../support';

const FAKE = 'DELAYED_DURABILITY of [lab] is back to DISABLED (verified).';

describe('integration: the CLI echoes a workload\'s multi-line PRINT text without faking lines of its own', function () {
  this.timeout(60000);
  const server = useTestServer();

  it('indents every line after a message\'s first, for LF, CRLF and a lone CR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-print-'));
    try {
      const file = join(dir, 'w.sql');
      await writeFile(file, `PRINT 'first\n${FAKE}';\nPRINT 'second\r\n${FAKE}';\nPRINT 'third\r${FAKE}';\n`);
      const err: string[] = [];
      const io = { ...processIO(), env: server.cliEnv(), stdout: () => undefined, stderr: (t: string) => void err.push(t) };
      const code = await runCli(['profile', file, ...server.cliConnection(), '--journal', join(dir, 'journal.json'), '--json', '--no-xe', '--yes'], io);
      const text = err.join('');
      assert.equal(code, EXIT.ok, text);
      const lines = text.split('\n');
      assert.deepEqual(lines.filter((l) => l.startsWith('Info')), ['Info (line 1): first', 'Info (line 3): second', `Info (line 5): third\\x0d${FAKE}`]);
      assert.equal(lines.filter((l) => l === `    ${FAKE}`).length, 2, text);
      assert.ok(!lines.some((l) => l.startsWith(FAKE)), text);
      assert.ok(!text.includes('\r'), 'no raw CR reaches the terminal');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a comparison\'s multi-line server error keeps that error\'s lines under its first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-print-'));
    try {
      const file = join(dir, 'w.sql');
      await writeFile(file, `RAISERROR('boom\n${FAKE}', 16, 1);\n`);
      const err: string[] = [];
      const io = { ...processIO(), env: server.cliEnv(), stdout: () => undefined, stderr: (t: string) => void err.push(t) };
      const code = await runCli(['compare', file, ...server.cliConnection(), '--journal', join(dir, 'journal'), '--repeat', '1', '--json', '--no-xe', '--yes'], io);
      const text = err.join('');
      // The server carries on past a severity-16 error, and so does the comparison; the error is reported with exit 4.
      assert.equal(code, EXIT.workloadError, text);
      const lines = text.split('\n');
      assert.ok(lines.some((l) => l.startsWith(`    ${FAKE} — the server carried on past it`)), text);
      // The one line that says so is the comparison's own restore line (the fake one is indented under the error).
      assert.equal(lines.filter((l) => l.startsWith('DELAYED_DURABILITY of ')).length, 1, text);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
