// The user-connection check of a concurrency sweep counts the connections in use (issue 25 N12): a level that fits
// the limit on its own but not beside the connections already open is refused; a login that cannot see other sessions
// is not fooled into counting only its own (their count is not taken, and the refusal says what was not counted).
import { strict as assert } from 'node:assert';
import type { Row, SqlClient } from '../../../src/db/types';
import { CONNECTION_LIMIT_SQL, connectionLimitProblem, readConnectionLimit } from '../../../src/profile/concurrency';
import { createStandin } from '../../standin/model/index';
import { connect, query, rows } from '../standin/harness';

const client = (row: Row): SqlClient => ({ query: async () => [row], execute: async () => undefined });

describe('profile: user connections in use', () => {
  it('counts the connections open now when the login sees every session', async () => {
    const limit = await readConnectionLimit(client({ max_connections: 32767, user_connections: 20, sees_all_sessions: 1, user_sessions: 15 }));
    assert.deepEqual(limit, { limit: 20, source: 'user connections', inUse: 15 });
    assert.equal(connectionLimitProblem(limit, 5), null, '15 + 5 = 20 fits');
    assert.match(connectionLimitProblem(limit, 6)!, /opens 6 more connections, but 15 user connections are in use now \(this comparison's included\) and the server allows 20 \(user connections\): 21 would not fit\. Nothing was changed/);
    // The same level without the count would have passed: 6 + 2 = 8 ≤ 20.
    assert.equal(connectionLimitProblem({ limit: 20, source: 'user connections' }, 6), null);
  });

  it('a login that sees only its own session does not count it as all there is', async () => {
    const limit = await readConnectionLimit(client({ max_connections: 32767, user_connections: 0, sees_all_sessions: 0, user_sessions: 1 }));
    assert.deepEqual(limit, { limit: 32767, source: '@@MAX_CONNECTIONS' });
    assert.match(connectionLimitProblem({ limit: 10, source: 'user connections' }, 9)!, /connections of other sessions were not counted \(this login cannot see them: VIEW SERVER STATE\)/);
  });

  it('the statement runs on the stand-in: sa sees every user session, a plain login only its own', async () => {
    const s = createStandin({ speedFactor: 0, userConnections: 30 });
    const sa = await connect(s);
    await connect(s);
    await connect(s);
    assert.deepEqual(await rows(s, sa, CONNECTION_LIMIT_SQL), [{ max_connections: 32767, user_connections: 30, sees_all_sessions: 1, user_sessions: 3 }]);
    await query(s, sa, "CREATE LOGIN lp WITH PASSWORD = N'Lp-1'; CREATE USER lp FOR LOGIN lp;");
    const lp = await connect(s, { user: 'lp', password: 'Lp-1' });
    const [seen] = await rows(s, lp, CONNECTION_LIMIT_SQL);
    assert.equal(seen!.sees_all_sessions, 0);
  });
});
