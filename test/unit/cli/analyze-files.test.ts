// `analyze` on real files: encodings give the same analysis as UTF-8, binary files are refused, many files per run,
// and the driver is never loaded for it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { readTextFile, type CliIO } from '../../../src/cli/io';

const SCRIPT = [
  '-- Nächtlicher Import: café, naïve, €',
  'CREATE PROCEDURE dbo.import_rows AS',
  'BEGIN',
  '  DECLARE @i int = 0;',
  '  WHILE @i < 1000',
  '  BEGIN',
  "    INSERT dbo.t (a, note) VALUES (@i, N'é');",
  '    SET @i += 1;',
  '  END',
  'END',
  'GO',
  '',
].join('\r\n');

function diskIO(): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout(text: string) { io.out += text; },
    stderr(text: string) { io.err += text; },
    readFile: (file: string, options?: { encoding?: string | null }) => readTextFile(file, options, (t) => { io.err += t; }),
  };
  return io;
}

function encoded(text: string, encoding: 'utf-16le-bom' | 'utf-16be-bom' | 'utf-16le' | 'utf-8-bom' | 'windows-1252'): Buffer {
  switch (encoding) {
    case 'utf-16le': return Buffer.from(text, 'utf16le');
    case 'utf-16le-bom': return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf-16be-bom': return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    case 'utf-8-bom': return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'windows-1252': {
      // Every character of SCRIPT is in windows-1252; € is 0x80 there.
      return Buffer.from(Array.from(text, (c) => (c === '€' ? 0x80 : c.charCodeAt(0))));
    }
  }
}

describe('cli analyze on files', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-analyze-'));
    fs.writeFileSync(path.join(dir, 'utf8.sql'), SCRIPT);
    for (const e of ['utf-16le-bom', 'utf-16be-bom', 'utf-16le', 'utf-8-bom', 'windows-1252'] as const) {
      fs.writeFileSync(path.join(dir, `${e}.sql`), encoded(SCRIPT, e));
    }
    fs.mkdirSync(path.join(dir, 'nested'));
    fs.writeFileSync(path.join(dir, 'nested', 'more.sql'), 'WHILE 1 = 1 UPDATE dbo.t SET a = 1\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a script');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function json(args: string[]): Promise<{ code: number; out: Record<string, unknown>; err: string }> {
    const io = diskIO();
    const code = await runCli(['analyze', ...args, '--json'], io);
    return { code, out: JSON.parse(io.out || 'null') as Record<string, unknown>, err: io.err };
  }

  it('gives a UTF-16/UTF-8 BOM/windows-1252 file the same analysis, same lines and columns, as its UTF-8 copy', async () => {
    const reference = await json([path.join(dir, 'utf8.sql')]);
    assert.equal(reference.code, 0);
    const { file: _file, ...expected } = reference.out;
    assert.deepEqual((expected.diagnostics as { line: number }[]).map((d) => d.line), [7]);
    assert.deepEqual(expected.routines, [{ kind: 'PROCEDURE', name: 'dbo.import_rows', line: 2, endLine: 10, body: { line: 3, column: 1, endLine: 10, endColumn: 4 } }]);
    for (const e of ['utf-16le-bom', 'utf-16be-bom', 'utf-16le', 'utf-8-bom', 'windows-1252']) {
      const got = await json([path.join(dir, `${e}.sql`)]);
      assert.equal(got.code, 0, e);
      const { file: _f, ...rest } = got.out;
      assert.deepEqual(rest, expected, e);
      assert.equal(got.err.includes('is not valid UTF-8'), e === 'windows-1252', e);
    }
  });

  it('takes the legacy code page from --encoding, without the warning', async () => {
    const io = diskIO();
    assert.equal(await runCli(['analyze', path.join(dir, 'windows-1252.sql'), '--encoding', 'windows-1252'], io), 0);
    assert.equal(io.err, '');
    assert.match(io.out, /PROCEDURE dbo\.import_rows/);
    const bad = diskIO();
    assert.equal(await runCli(['analyze', path.join(dir, 'utf8.sql'), '--encoding', 'klingon'], bad), 2);
    assert.match(bad.err, /unknown code page 'klingon'/);
  });

  it('refuses a binary file with a clear message and exit 2, and still analyses the other files', async () => {
    const binary = path.join(dir, 'image.sql');
    fs.writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48]));
    try {
      const io = diskIO();
      assert.equal(await runCli(['analyze', binary], io), 2);
      assert.match(io.err, /cannot read .*image\.sql: it holds NUL bytes .* binary file/);
      assert.equal(io.out, '');
      const both = await json([binary, path.join(dir, 'utf8.sql')]);
      assert.equal(both.code, 2);
      assert.deepEqual((both.out.files as { file: string }[]).map((f) => path.basename(f.file)), ['utf8.sql']);
      assert.deepEqual((both.out.unreadable as { file: string }[]).map((f) => path.basename(f.file)), ['image.sql']);
    } finally {
      fs.rmSync(binary);
    }
  });

  it('analyses a folder and a glob in one run, into one JSON document with a result per file', async () => {
    const all = await json([dir]);
    assert.equal(all.code, 0);
    const names = (all.out.files as { file: string }[]).map((f) => path.relative(dir, f.file));
    assert.deepEqual(names, ['nested/more.sql', 'utf-16be-bom.sql', 'utf-16le-bom.sql', 'utf-16le.sql', 'utf-8-bom.sql', 'utf8.sql', 'windows-1252.sql']);
    assert.deepEqual(all.out.unreadable, []);
    const globbed = await json([`${dir}/**/more*.sql`, `${dir}/utf-16*.sql`]);
    assert.deepEqual((globbed.out.files as { file: string }[]).map((f) => path.relative(dir, f.file)),
      ['nested/more.sql', 'utf-16be-bom.sql', 'utf-16le-bom.sql', 'utf-16le.sql']);
    const none = await json([`${dir}/*.nothing`]);
    assert.equal(none.code, 2);
    assert.deepEqual(none.out.unreadable, [{ file: `${dir}/*.nothing`, reason: 'no .sql file matched' }]);
  });

  it('never loads the database driver for analyze (only commands that connect do)', function () {
    this.timeout(60000);
    const check = path.join(dir, 'check.mts');
    fs.writeFileSync(check, [
      "import { createRequire } from 'node:module';",
      'const { runCli } = await import(process.argv[2]);',
      "const io = { stdout() {}, stderr() {}, readFile: () => 'SELECT 1' };",
      "await runCli(process.argv[3] === 'analyze' ? ['analyze', 'a.sql'] : [process.argv[3], '--help'], io);",
      'const cache = createRequire(import.meta.url).cache;',
      "console.log(Object.keys(cache).some((k) => /[\\\\/]node_modules[\\\\/]tedious[\\\\/]/.test(k)) ? 'tedious loaded' : 'no tedious');",
    ].join('\n'));
    const dispatch = path.resolve(__dirname, '../../../src/cli/dispatch.ts');
    const run = (command: string) => spawnSync(process.execPath, ['--import', 'tsx', check, dispatch, command], { encoding: 'utf8' });
    const analyzed = run('analyze');
    assert.equal(analyzed.stdout.trim(), 'no tedious', analyzed.stderr);
    // The check can see tedious: profile loads it.
    assert.equal(run('profile').stdout.trim(), 'tedious loaded');
  });
});
