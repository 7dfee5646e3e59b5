// Attack install42: a `\` in a Linux file name is a character, not a separator; the SARIF artifact URI is built by the
// rules of the path's own platform (simulated with path.win32 / path.posix, never by this machine's platform).
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { pathToSarifUri } from '../../../src/report/sarif';
import { sarifUri } from '../../../src/cli/commands/analyze';

describe('SARIF artifact URIs follow the path\'s platform (install42)', () => {
  it('POSIX: a backslash in a name is percent-encoded, only / separates', () => {
    assert.equal(pathToSarifUri('db/load\\rows.sql', 'posix'), 'db/load%5Crows.sql');
    assert.equal(sarifUri('db/load\\rows.sql', '/home/ci/repo', path.posix), 'db/load%5Crows.sql');
  });

  it('Windows: \\ and / both separate', () => {
    assert.equal(pathToSarifUri('db\\load rows.sql', 'win32'), 'db/load%20rows.sql');
    assert.equal(sarifUri('db\\sub/x.sql', 'D:\\a\\repo', path.win32), 'db/sub/x.sql');
  });

  it('outside the working folder: a file: URI of that platform; a name starting with ".." is still inside', () => {
    assert.equal(sarifUri('C:\\other\\x.sql', 'D:\\a\\repo', path.win32), 'file:///C:/other/x.sql');
    assert.equal(sarifUri('../x\\y.sql', '/home/ci/repo', path.posix), 'file:///home/ci/x%5Cy.sql');
    assert.equal(sarifUri('..x.sql', '/home/ci/repo', path.posix), '..x.sql');
  });
});
