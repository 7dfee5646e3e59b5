// test/support/reporter.js: CI shows only the tail of a long log, so the closing lines must name every failed test
// (title and the error's first line) just before the "N passed, N failed, N skipped" line that scripts/test-all.js reads.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const mochaBin = path.join(path.dirname(require.resolve('mocha/package.json', { paths: [root] })), 'bin', 'mocha.js');

function runFixture(source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-reporter-'));
  try {
    fs.writeFileSync(path.join(dir, 'fixture.test.js'), source);
    const r = spawnSync(process.execPath, [mochaBin, '--no-config', '--reporter', path.join(root, 'test/support/reporter.js'), path.join(dir, 'fixture.test.js')], { encoding: 'utf8', cwd: dir });
    return r.stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('test/support/reporter.js: the closing lines name the failed tests', () => {
  it('lists each failure with its first message line, control characters removed, right before the counts', () => {
    const out = runFixture(`
      describe('outer', () => {
        it('passes', () => {});
        it('breaks', () => { throw new Error('expected 3\\u001b[31m to be 4\\nsecond line'); });
        it.skip('waits', () => {});
        it('breaks too', () => { throw new Error('plain'); });
      });`);
    const lines = out.trimEnd().split('\n');
    assert.equal(lines.at(-1), '1 passed, 2 failed, 1 skipped');
    assert.equal(lines.at(-2), '');
    assert.deepEqual(lines.slice(-4, -2), ['failed: outer breaks — expected 3 [31m to be 4', 'failed: outer breaks too — plain']);
  });

  it('prints no failure lines when everything passes', () => {
    const out = runFixture(`describe('ok', () => { it('passes', () => {}); });`);
    assert.ok(!out.includes('failed: '), out);
    assert.match(out.trimEnd(), /\n1 passed, 0 failed, 0 skipped$/);
  });
});
