// Where `npm run standin` puts the CA certificate clients need to verify it: a new private folder under the temp
// directory (mkdtemp: an unpredictable name, mode 0700), and the file created there exclusively ('wx', 0644). A name
// planted in /tmp beforehand — a symlink to the user's ~/.bashrc, say — is never written through (issue 25 N13: the
// old fixed name "durability-lens-standin-ca-<port>.pem" followed such a link).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CaFile {
  path: string;
  /** Deletes the folder and the file (on stop). */
  remove(): void;
}

export function writeCaFile(pem: string, port: number, base: string = tmpdir()): CaFile {
  const dir = mkdtempSync(join(base, 'durability-lens-standin-'));
  const path = join(dir, `ca-${port}.pem`);
  writeFileSync(path, pem, { flag: 'wx', mode: 0o644 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
