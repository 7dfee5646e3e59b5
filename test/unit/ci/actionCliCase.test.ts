// Attack install42: the action's `cli:` glob on windows-latest and macos-latest, whose file systems ignore case. The
// runner is simulated (path.win32 / path.posix, an injected platform and directory listing), never this machine's.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { root } from './support/runAction';

type Sys = { platform: NodeJS.Platform; path: path.PlatformPath; readdir(dir: string): string[]; exists(p: string): boolean };
const cli = require(path.join(root, 'scripts/action/cli.js')) as { matchTarball(pattern: string, cwd: string, sys?: Partial<Sys>): string | null };

function runner(platform: NodeJS.Platform, dir: string, names: string[]): Sys {
  const p = platform === 'win32' ? path.win32 : path.posix;
  return { platform, path: p, readdir: (d) => (d === dir ? names : []), exists: (f) => p.dirname(f) === dir && names.includes(p.basename(f)) };
}

describe('the action\'s cli glob on each runner (install42)', () => {
  it('windows-latest: a glob in another case finds the tarball, with \\ or / in the pattern', () => {
    const sys = runner('win32', 'D:\\a\\app\\app\\dist', ['durability-lens-0.1.0.tgz', 'other.txt']);
    assert.equal(cli.matchTarball('dist/Durability-Lens-*.TGZ', 'D:\\a\\app\\app', sys), 'D:\\a\\app\\app\\dist\\durability-lens-0.1.0.tgz');
    assert.equal(cli.matchTarball('dist\\durability-lens-*.tgz', 'D:\\a\\app\\app', sys), 'D:\\a\\app\\app\\dist\\durability-lens-0.1.0.tgz');
  });

  it('macos-latest: the same; a case-sensitive volume holding both spellings takes the exact one', () => {
    const sys = runner('darwin', '/Users/runner/work/app/dist', ['durability-lens-0.1.0.tgz']);
    assert.equal(cli.matchTarball('dist/DURABILITY-LENS-*.tgz', '/Users/runner/work/app', sys), '/Users/runner/work/app/dist/durability-lens-0.1.0.tgz');
    const both = runner('darwin', '/v', ['Durability-lens-0.1.0.tgz', 'durability-lens-0.1.0.tgz']);
    assert.equal(cli.matchTarball('durability-lens-*.tgz', '/v', both), '/v/durability-lens-0.1.0.tgz');
  });

  it('ubuntu-latest: case matters, as the file system makes it', () => {
    const sys = runner('linux', '/home/runner/work/app/dist', ['durability-lens-0.1.0.tgz']);
    assert.throws(() => cli.matchTarball('dist/Durability-Lens-*.tgz', '/home/runner/work/app', sys), /no file matches/);
    assert.equal(cli.matchTarball('dist/durability-lens-*.tgz', '/home/runner/work/app', sys), '/home/runner/work/app/dist/durability-lens-0.1.0.tgz');
  });
});
