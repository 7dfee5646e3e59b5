// Who may open the demo's code-server: on a loopback address only this machine can reach it, so no password;
// on any other address (e.g. --host 0.0.0.0) anyone on the network could run commands in that VS Code — and through
// the extension reach the stand-in — so code-server's own password auth is turned on with a fresh random password.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** null: no password needed; otherwise the password to give code-server (and to print for the user). */
export function demoPassword(host: string, random: (size: number) => Buffer = randomBytes): string | null {
  return isLoopbackHost(host) ? null : random(18).toString('base64url');
}
