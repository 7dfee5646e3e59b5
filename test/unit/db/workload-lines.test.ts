import assert from 'node:assert/strict';
import { documentLineOf } from '../../../src/db/workload';
import { rowFromColumns, toQueryError } from '../../../src/db/session';
import { RequestError } from 'tedious';

describe('db/workload: server line → document line', () => {
  it('maps batch line N to firstLine + N - 1', () => {
    assert.equal(documentLineOf(10, 1), 10);
    assert.equal(documentLineOf(10, 4), 13);
    assert.equal(documentLineOf(0, 7), 6);
  });

  it('gives no document line when the server sent none (0) or the line is inside a procedure', () => {
    assert.equal(documentLineOf(10, 0), null);
    assert.equal(documentLineOf(10, 5, 'usp_insert'), null);
  });
});

describe('db/session: rows and query errors', () => {
  it('keys a tedious column array by column name, keeping bigint strings as strings', () => {
    const row = rowFromColumns([
      { value: '9223372036854775807', metadata: { colName: 'num_of_writes' } },
      { value: 'LOG     ', metadata: { colName: 'type_desc' } },
    ]);
    assert.deepEqual(row, { num_of_writes: '9223372036854775807', type_desc: 'LOG     ' });
  });

  it('wraps a server error with its number and the statement it came from', () => {
    const e = new RequestError('VIEW SERVER STATE permission was denied on object', 'EREQUEST');
    e.number = 300;
    const wrapped = toQueryError(e, 'SELECT wait_type\n  FROM sys.dm_os_wait_stats');
    assert.equal(wrapped.number, 300);
    assert.equal(wrapped.code, 'EREQUEST');
    assert.match(wrapped.message, /SQL error 300: .*while running: SELECT wait_type FROM sys\.dm_os_wait_stats/);
  });
});
