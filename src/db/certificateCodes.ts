// The dependency-free part of certificate trust (src/db/certificate.ts): which Node TLS error codes may be offered for
// one-click trust and which never, and the fingerprint format. Kept apart so the error classifier (imported as far
// as the webview bundle, through src/probes) needs neither tedious nor node:tls.

/** Node's verification codes that only say "no trusted authority signed this" (what one click may accept). */
export const UNTRUSTED_ISSUER_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/** Codes for a certificate that is wrong, not merely unknown: another host's, expired or not yet valid. */
export const INVALID_CERTIFICATE_CODES: ReadonlySet<string> = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** "AB:CD:…" (32 colon-separated hex pairs), the form Node's PeerCertificate.fingerprint256 has. */
export const FINGERPRINT_PATTERN = /^(?:[0-9A-F]{2}:){31}[0-9A-F]{2}$/;

export function normaliseFingerprint(text: string): string | null {
  const hex = text.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  if (hex.length !== 64) return null;
  return hex.match(/../g)!.join(':');
}

