// TLS trust decisions in the UI: what the status says about encryption (never "verified" when it was not), the modal
// warning before a password goes out in clear text, and "Trust this certificate" — offered only when no trusted
// issuer is the sole problem (self-signed or private CA; src/db/certificate.ts), showing the certificate and pinning
// its SHA-256 fingerprint in this one profile instead of turning validation off.
import * as vscode from 'vscode';
import type { CertificateFacts } from '../../db/certificate';
import { loadDriver } from '../../db/loadDriver';
import { describeStoredServer, needsSecret, type StoredProfile } from '../../db/storedProfiles';
import type { ConnectionFailureInfo, ConnectionProfile } from '../../db/types';
import { l10n } from '../l10n';

// A button label, translated when shown (activation installs vscode.l10n.t after this module loads): the choice is
// compared with the same call.
export const TRUST_CERTIFICATE_ACTION = () => l10n.t('Trust This Certificate…');
export const CONFIRM_TRUST_ACTION = () => l10n.t('Trust This Certificate');
export const SEND_IN_CLEAR_ACTION = () => l10n.t('Connect Without Encryption');

/** The status/log wording for a connected session. */
export function encryptionStatus(session: { encrypted: boolean | null; certificate?: 'verified' | 'pinned' | 'not-verified' | null }, profile: Pick<StoredProfile, 'certificateSha256'>): string {
  if (session.encrypted !== true) return 'not encrypted';
  switch (session.certificate) {
    case 'verified':
      return 'encrypted, certificate verified';
    case 'pinned':
      return `encrypted, pinned certificate fingerprint (SHA-256 ${profile.certificateSha256?.slice(0, 23) ?? '?'}…)`;
    default:
      return 'encrypted, certificate not verified (trustServerCertificate)';
  }
}

function isLoopback(server: string): boolean {
  const s = server.trim().toLowerCase().replace(/^tcp:/, '');
  return s === 'localhost' || s === '::1' || s === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(s) || s === '.' || s === '(local)';
}

const clearTextAccepted = new Set<string>();

/**
 * encrypt:false with a password: tedious has no login-only encryption, so the password crosses the network readable.
 * A modal asks once per profile and window (loopback servers excepted: the password does not leave the machine).
 */
export async function confirmClearTextLogin(profile: StoredProfile): Promise<boolean> {
  if (profile.encrypt !== false || !needsSecret(profile.authenticationType) || isLoopback(profile.server)) return true;
  const key = `${profile.name.toLowerCase()}\u0000${profile.server.toLowerCase()}\u0000${profile.user ?? ''}`;
  if (clearTextAccepted.has(key)) return true;
  const choice = await vscode.window.showWarningMessage(
    profile.user
      ? l10n.t(`"{0}" has encryption turned off: the password for {1} will be sent to {2} in clear text.`, profile.name, profile.user, describeStoredServer(profile))
      : l10n.t('"{0}" has encryption turned off: the password for this login will be sent to {1} in clear text.', profile.name, describeStoredServer(profile)),
    { modal: true, detail: l10n.t('Anyone who can see the network traffic can read it. Set "encrypt": true in the profile unless this is a lab server on a network you trust.') },
    SEND_IN_CLEAR_ACTION(),
  );
  if (choice !== SEND_IN_CLEAR_ACTION()) return false;
  clearTextAccepted.add(key);
  return true;
}

/** Whether the failure may lead to "Trust This Certificate…": an unknown issuer, with encrypt true (not strict). */
export function mayOfferCertificateTrust(info: ConnectionFailureInfo, profile: Pick<StoredProfile, 'encrypt'>): boolean {
  return info.offerTrustServerCertificate && profile.encrypt === true;
}

export function certificateDetail(facts: CertificateFacts): string {
  return [
    l10n.t('Subject: {0}', facts.subject || l10n.t('(none)')),
    l10n.t('Issuer: {0}', facts.issuer || l10n.t('(none)')),
    l10n.t('Valid: {0} – {1}', facts.validFrom, facts.validTo),
    `SHA-256: ${facts.fingerprint256}`,
    '',
    l10n.t("Compare the fingerprint with the one the server's administrator gives you. Only this certificate is trusted, only for this profile, and only while it names this host and is valid."),
  ].join('\n');
}

/**
 * Reads the server's certificate (no login) and, when it fits the host and is in date, asks in a modal dialog
 * whether to trust exactly it. Returns the profile with the fingerprint pinned, or null (the reason is shown).
 */
export async function askToTrustCertificate(profile: StoredProfile, connectionProfile: ConnectionProfile, log: (line: string) => void): Promise<StoredProfile | null> {
  let facts: CertificateFacts;
  try {
    facts = await (await loadDriver()).fetchServerCertificate(connectionProfile);
  } catch (err) {
    void vscode.window.showErrorMessage(l10n.t(`Durability Lens: could not read the certificate of {0}: {1}`, describeStoredServer(profile), (err as Error).message));
    return null;
  }
  log(`Certificate of ${describeStoredServer(profile)}: ${certificateDetail(facts).split('\n').slice(0, 4).join('; ')}`);
  const wrong = facts.hostnameProblem ?? facts.dateProblem;
  if (wrong) {
    void vscode.window.showErrorMessage(l10n.t(`Durability Lens will not trust this certificate: {0}. Connect with the name it is issued for, or have it renewed.`, wrong));
    return null;
  }
  const choice = await vscode.window.showWarningMessage(
    l10n.t(`Trust this certificate of {0} for "{1}" only?`, describeStoredServer(profile), profile.name),
    { modal: true, detail: certificateDetail(facts) },
    CONFIRM_TRUST_ACTION(),
  );
  if (choice !== CONFIRM_TRUST_ACTION()) return null;
  return { ...profile, trustServerCertificate: false, certificateSha256: facts.fingerprint256 };
}
