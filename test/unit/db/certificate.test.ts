// TLS certificate trust: which failures may be offered for one-click trust (by TLS error code), what the user is
// shown, and the pinned check every later connect makes (fingerprint, host name, dates).
import { strict as assert } from 'node:assert';
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { ConnectionError } from 'tedious';
import { certificateFacts, normaliseFingerprint, pinnedCertificateProblem } from '../../../src/db/certificate';
import { classifyConnectionError } from '../../../src/db/errors';
import { sharedStandinCertificates } from '../../standin/tds/certificates';

const profile = { server: 'db.example', port: 1433, database: 'lab' };

function tlsFailure(code: string, text: string) {
  return new ConnectionError(`Failed to connect to db.example:1433 - ${text}`, 'ESOCKET', { cause: Object.assign(new Error(text), { code }) });
}

describe('db: certificate trust', () => {
  let cert: PeerCertificate;
  before(async () => {
    const { certPem } = await sharedStandinCertificates();
    cert = new X509Certificate(certPem).toLegacyObject();
  });

  it('offers trust only when no trusted issuer is the problem, never for another host name or a date problem', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']) {
      const info = classifyConnectionError(tlsFailure(code, 'unable to verify'), { profile });
      assert.equal(info.kind, 'untrusted-certificate', code);
      assert.equal(info.offerTrustServerCertificate, true, code);
    }
    const mismatch = classifyConnectionError(tlsFailure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"), { profile });
    assert.equal(mismatch.kind, 'certificate-invalid');
    assert.equal(mismatch.offerTrustServerCertificate, false);
    assert.match(mismatch.message, /issued for another host name than db\.example/);
    for (const code of ['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']) {
      const info = classifyConnectionError(tlsFailure(code, 'certificate has expired'), { profile });
      assert.equal(info.kind, 'certificate-invalid', code);
      assert.equal(info.offerTrustServerCertificate, false, code);
    }
  });

  it('shows subject, issuer, dates and fingerprint, and names a host-name or date problem', () => {
    const ok = certificateFacts(cert, 'localhost', new Date());
    assert.equal(ok.hostnameProblem, null);
    assert.equal(ok.dateProblem, null);
    assert.match(ok.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.match(ok.subject, /CN=localhost/);
    assert.match(certificateFacts(cert, 'db.example').hostnameProblem!, /not "db\.example"/);
    assert.match(certificateFacts(cert, 'localhost', new Date(Date.parse(cert.valid_to) + 1000)).dateProblem!, /expired/);
    assert.match(certificateFacts(cert, 'localhost', new Date(Date.parse(cert.valid_from) - 1000)).dateProblem!, /not valid before/);
  });

  it('a pin accepts exactly that certificate, for its host, while valid', () => {
    const pin = cert.fingerprint256;
    assert.equal(pinnedCertificateProblem(cert, pin, '127.0.0.1'), null);
    assert.equal(pinnedCertificateProblem(cert, pin.toLowerCase().replace(/:/g, ''), 'localhost'), null);
    // Another certificate's pin: the first byte changed (a fixed '00' would be this pin 1 time in 256: the key is random).
    const other = `${pin.startsWith('00') ? 'FF' : '00'}${pin.slice(2)}`;
    assert.match(pinnedCertificateProblem(cert, other, 'localhost')!, /different certificate/);
    assert.match(pinnedCertificateProblem(cert, pin, 'db.example')!, /does not fit this host/);
    assert.match(pinnedCertificateProblem(cert, pin, 'localhost', new Date(Date.parse(cert.valid_to) + 1000))!, /no longer valid/);
    assert.match(pinnedCertificateProblem(null, pin, 'localhost')!, /no certificate/);
    assert.equal(normaliseFingerprint('ab'.repeat(32)), Array(32).fill('AB').join(':'));
    assert.equal(normaliseFingerprint('abc'), null);
  });
});
