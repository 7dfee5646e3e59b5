// Generates the stand-in's TLS identity at start-up: a throw-away CA and a server certificate it signs for
// CN localhost with SAN DNS:localhost, IP:127.0.0.1. Nothing is written to disk or committed.
import { generate } from 'selfsigned';

export interface StandinCertificates {
  /** CA certificate (PEM): clients that verify pass it as tedious `options.cryptoCredentialsDetails.ca`. */
  caPem: string;
  /** Server certificate (PEM) signed by the CA. */
  certPem: string;
  /** Server private key (PEM). */
  keyPem: string;
}

export async function createStandinCertificates(): Promise<StandinCertificates> {
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000); // an hour of slack for clock skew
  const notAfterDate = new Date(Date.now() + 7 * 24 * 60 * 60 * 1000);
  const ca = await generate([{ name: 'commonName', value: 'Durability Lens stand-in CA' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { caPem: ca.cert, certPem: server.cert, keyPem: server.private };
}

let shared: Promise<StandinCertificates> | undefined;

/** One identity per process: key generation takes about a second, and every server in a test run can share it. */
export function sharedStandinCertificates(): Promise<StandinCertificates> {
  shared ??= createStandinCertificates();
  return shared;
}
