import assert from 'node:assert/strict';
import { ConnectionError, RequestError } from 'tedious';
import { classifyConnectionError, isMissingObjectError, isPermissionError, sqlErrorsOf } from '../../../src/db/errors';

const profile = { server: 'db.example', port: 1433, database: 'Sales' };

function requestError(number: number, message: string, lineNumber = 1, procName?: string): RequestError {
  const e = new RequestError(message, 'EREQUEST');
  e.number = number;
  e.state = 1;
  e.class = 14;
  e.lineNumber = lineNumber;
  e.procName = procName;
  return e;
}

describe('db/errors: connection error classification', () => {
  it('classifies login failed (18456) from the number seen on errorMessage during login', () => {
    const info = classifyConnectionError(new ConnectionError("Login failed for user 'lens'.", 'ELOGIN'), { serverErrorNumber: 18456, profile });
    assert.equal(info.kind, 'login-failed');
    assert.equal(info.serverErrorNumber, 18456);
    assert.equal(info.nothingChanged, true);
    assert.match(info.message, /Nothing was changed/);
    assert.match(info.action, /user name and password/);
    assert.equal(info.offerTrustServerCertificate, false);
  });

  it('classifies an unknown database (4060) and names it', () => {
    const info = classifyConnectionError(new ConnectionError('Cannot open database "Nope" requested by the login. The login failed.', 'ELOGIN'), {
      serverErrorNumber: 4060,
      profile: { ...profile, database: 'Nope' },
    });
    assert.equal(info.kind, 'unknown-database');
    assert.match(info.message, /"Nope"/);
  });

  it('classifies socket errors and timeouts as unreachable, naming server and port', () => {
    const refused = new ConnectionError('Failed to connect to db.example:1433 - connect ECONNREFUSED', 'ESOCKET');
    assert.equal(classifyConnectionError(refused, { profile }).kind, 'unreachable');
    const timeout = classifyConnectionError(new ConnectionError('Failed to connect in 15000ms', 'ETIMEOUT'), { profile });
    assert.equal(timeout.kind, 'unreachable');
    assert.match(timeout.message, /db\.example:1433 before the connect timeout/);
  });

  it('recognises a self-signed certificate in the cause chain and offers to trust it for this profile', () => {
    const tls = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    const err = new ConnectionError('Failed to connect to db.example:1433 - self-signed certificate', 'ESOCKET', { cause: tls });
    const info = classifyConnectionError(err, { profile });
    assert.equal(info.kind, 'untrusted-certificate');
    assert.equal(info.offerTrustServerCertificate, true);
    assert.match(info.action, /this profile only/);
  });

  it('classifies a server that refuses encryption (EENCRYPT)', () => {
    const err = new ConnectionError("Server did not negotiate encryption, but the 'encrypt' config option is set to `true`.", 'EENCRYPT');
    assert.equal(classifyConnectionError(err, { profile }).kind, 'encryption-refused');
  });

  it('classifies aborts as cancelled', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    assert.equal(classifyConnectionError(abort, { profile }).kind, 'cancelled');
  });
});

describe('db/errors: request errors', () => {
  it('flattens an AggregateError of RequestErrors into server errors', () => {
    const agg = new AggregateError([requestError(2627, 'Violation of PRIMARY KEY', 3), requestError(3621, 'The statement has been terminated.', 3)]);
    const errors = sqlErrorsOf(agg);
    assert.deepEqual(
      errors.map((e) => [e.number, e.lineNumber]),
      [
        [2627, 3],
        [3621, 3],
      ],
    );
  });

  it('recognises permission errors 297 and 300, and missing objects 208', () => {
    assert.equal(isPermissionError(requestError(300, 'VIEW SERVER STATE permission was denied on object')), true);
    assert.equal(isPermissionError(requestError(297, 'The user does not have permission to perform this action.')), true);
    assert.equal(isPermissionError(requestError(208, "Invalid object name 'sys.dm_os_host_info'.")), false);
    assert.equal(isMissingObjectError(requestError(208, "Invalid object name 'sys.dm_os_host_info'.")), true);
    assert.equal(isPermissionError(new Error('plain')), false);
  });
});

describe('db/errors: encryption required by the server', () => {
  it('tells the user to turn Encrypt on when the server requires it', () => {
    const info = classifyConnectionError(new ConnectionError("Server requires encryption, set 'encrypt' config option to `true`.", 'EENCRYPT'), { profile });
    assert.equal(info.kind, 'encryption-refused');
    assert.match(info.action, /Set "Encrypt" to true/);
  });
});
