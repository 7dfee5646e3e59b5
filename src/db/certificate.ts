// The server's TLS certificate, for "trust this certificate" done safely: one click trusts ONE certificate (its
// SHA-256 fingerprint is pinned in the profile), only when the sole problem is that no trusted authority signed it
// (self-signed or a private CA) — never a certificate for another host name or an expired one — and every later
// connect checks the fingerprint, the host name and the dates again before the login (with the password) is sent.
//
// tedious 20 takes no checkServerIdentity callback; for encrypt=true (TLS after PRELOGIN) it emits 'secure' with the
// TLS socket right after the handshake and sends LOGIN7 only after that (tedious lib/connection.js: performTlsNegotiation
// then sendLogin7Packet). A pinned connect therefore turns tedious' own chain check off (trustServerCertificate) and
// checks here, destroying the TLS socket on a mismatch so nothing more is written. encrypt='strict' (TDS 8.0) always
// validates against the machine's trust store in tedious, so pinning is not offered there.
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from 'node:tls';
import { Connection } from 'tedious';
import { normaliseFingerprint } from './certificateCodes';
import { toTediousConfig } from './profile';
import type { ConnectionProfile } from './types';

export { FINGERPRINT_PATTERN, INVALID_CERTIFICATE_CODES, normaliseFingerprint, UNTRUSTED_ISSUER_CODES } from './certificateCodes';

export interface CertificateFacts {
  fingerprint256: string;
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  /** Why the certificate does not fit this host name; null when it does. */
  hostnameProblem: string | null;
  /** Expired or not yet valid; null when `now` is inside its validity. */
  dateProblem: string | null;
}

function dn(part: PeerCertificate['subject'] | undefined): string {
  if (!part) return '';
  return Object.entries(part)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`)
    .join(', ');
}

/** What the user is shown before trusting, and what every pinned connect re-checks. */
export function certificateFacts(cert: PeerCertificate, host: string, now: Date = new Date()): CertificateFacts {
  const identity = checkServerIdentity(host, cert);
  const from = Date.parse(cert.valid_from);
  const to = Date.parse(cert.valid_to);
  const dateProblem =
    Number.isFinite(to) && now.getTime() > to
      ? `it expired on ${cert.valid_to}`
      : Number.isFinite(from) && now.getTime() < from
        ? `it is not valid before ${cert.valid_from}`
        : !Number.isFinite(from) || !Number.isFinite(to)
          ? 'its validity dates cannot be read'
          : null;
  return {
    fingerprint256: cert.fingerprint256,
    subject: dn(cert.subject),
    issuer: dn(cert.issuer),
    validFrom: cert.valid_from,
    validTo: cert.valid_to,
    hostnameProblem: identity ? `it is issued for ${cert.subjectaltname || dn(cert.subject) || 'another name'}, not "${host}"` : null,
    dateProblem,
  };
}

/** null when `cert` is the pinned one and still fits host and date; else what is wrong (the connect is refused). */
export function pinnedCertificateProblem(cert: PeerCertificate | null | undefined, pin: string, host: string, now: Date = new Date()): string | null {
  if (!cert || !cert.fingerprint256) return 'the server presented no certificate';
  const facts = certificateFacts(cert, host, now);
  if (normaliseFingerprint(facts.fingerprint256) !== normaliseFingerprint(pin)) {
    return `the server presented a different certificate (SHA-256 ${facts.fingerprint256}) from the one trusted for this profile (${pin})`;
  }
  if (facts.hostnameProblem) return `the trusted certificate does not fit this host: ${facts.hostnameProblem}`;
  if (facts.dateProblem) return `the trusted certificate is no longer valid: ${facts.dateProblem}`;
  return null;
}

/** The host name the certificate must name: what tedious verifies too (server, or '' SNI for an IP). */
export function certificateHost(profile: Pick<ConnectionProfile, 'server'>): string {
  return profile.server;
}

/**
 * Fetches the server's certificate without logging in: TLS handshake after PRELOGIN with verification off, the
 * certificate read at 'secure', the socket destroyed before LOGIN7 (no credentials are given to the driver either).
 * Rejects when the server does not do TLS this way (e.g. encrypt='strict').
 */
export function fetchServerCertificate(profile: ConnectionProfile, timeoutMs = 15000): Promise<CertificateFacts> {
  return new Promise((resolve, reject) => {
    const probe: ConnectionProfile = { ...profile, encrypt: true, trustServerCertificate: true, authentication: { type: 'sql', user: '' }, connectTimeoutMs: timeoutMs };
    let facts: CertificateFacts | null = null;
    let connection: Connection;
    try {
      connection = new Connection(toTediousConfig(probe, undefined, 'monitor'));
    } catch (err) {
      reject(err);
      return;
    }
    connection.on('error', () => undefined);
    connection.on('secure', (socket: TLSSocket) => {
      facts = certificateFacts(socket.getPeerCertificate(), certificateHost(profile));
      socket.destroy();
    });
    connection.connect(() => {
      connection.close();
      if (facts) resolve(facts);
      else reject(new Error(`No TLS certificate could be read from ${profile.server}.`));
    });
  });
}
