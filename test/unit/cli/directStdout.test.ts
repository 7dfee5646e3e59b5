// The CLI's stdout writer (src/cli/io.ts directStdout): straight to the file descriptor while that works, the stream
// from the first write that does not, so nothing is lost or reordered and the stream's EPIPE handling still applies.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { directStdout } from '../../../src/cli/io';

function recorder() {
  const chunks: string[] = [];
  return { chunks, stream: () => ({ write: (chunk: string | Uint8Array) => (chunks.push(Buffer.from(chunk).toString('utf8')), true) }) as unknown as NodeJS.WritableStream };
}

describe('CLI stdout writer', () => {
  it('writes every text to the descriptor, in order and whole (multi-byte text included), without the stream', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-stdout-'));
    const file = path.join(dir, 'out.txt');
    const fd = fs.openSync(file, 'w');
    const { chunks, stream } = recorder();
    try {
      const write = directStdout(fd, stream, 'linux');
      write('first line\n');
      write('ünïcødé — 日本語 \u{1F600}\n');
      write('x'.repeat(200_000));
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(fs.readFileSync(file, 'utf8'), `first line\nünïcødé — 日本語 \u{1F600}\n${'x'.repeat(200_000)}`);
    assert.deepEqual(chunks, []);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('hands the text to the stream when the descriptor fails, and keeps to the stream afterwards', () => {
    const { chunks, stream } = recorder();
    const write = directStdout(-1, stream, 'linux');
    write('a\n');
    write('b\n');
    assert.deepEqual(chunks, ['a\n', 'b\n']);
  });

  it('uses the stream on Windows', () => {
    const { chunks, stream } = recorder();
    directStdout(1, stream, 'win32')('c\n');
    assert.deepEqual(chunks, ['c\n']);
  });
});
