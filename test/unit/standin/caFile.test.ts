// The stand-in's CA file (test/standin/caFile.ts, issue 25 N13): a symlink planted at the name the old code used, or
// anywhere in the temp folder, is never followed; the file lands in a new private folder and is removed on stop.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeCaFile } from '../../standin/caFile';

describe('stand-in CA file', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'lens-ca-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('does not follow a planted symlink: the victim file is untouched, the CA goes to a new private folder', function () {
    if (process.platform === 'win32') this.skip(); // symlinks need privileges there; mkdtemp and 'wx' hold the same
    const victim = join(base, 'victim-bashrc');
    writeFileSync(victim, 'original\n');
    // The old code wrote to <tmp>/durability-lens-standin-ca-<port>.pem: plant links there and at a guess of the new name.
    symlinkSync(victim, join(base, 'durability-lens-standin-ca-14333.pem'));
    symlinkSync(victim, join(base, 'durability-lens-standin-ca-14333.pem.d'));
    const ca = writeCaFile('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n', 14333, base);
    assert.equal(readFileSync(victim, 'utf8'), 'original\n');
    assert.equal(dirname(dirname(ca.path)), base);
    assert.match(ca.path, /durability-lens-standin-[A-Za-z0-9]{6}[/\\]ca-14333\.pem$/);
    assert.equal(statSync(dirname(ca.path)).mode & 0o777, 0o700);
    assert.match(readFileSync(ca.path, 'utf8'), /BEGIN CERTIFICATE/);
    ca.remove();
    assert.equal(existsSync(dirname(ca.path)), false);
  });
});
