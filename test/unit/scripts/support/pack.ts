// `npm pack` once per test process (the tarball and docs/ci.md tests share it) into a scratch folder, and the
// machine's own Node — the `node` on PATH outside this project, which `npm ci` did not install — to install and run
// it with, as a user of the release would.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runNpm } from './npm';

export const root = path.resolve(__dirname, '../../../..');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
export const TARBALL_NAME = `${PACKAGE.name}-${PACKAGE.version}.tgz`;

function newestMtime(entry: string): number {
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(entry).map((n) => newestMtime(path.join(entry, n))));
}

/** The newest modification time (ms) of what dist/cli.js is built from. */
function newestInput(): number {
  const inputs = ['src', 'package.json', 'package-lock.json', 'webpack.config.js', 'tsconfig.json'].map((f) => path.join(root, f));
  return Math.max(...inputs.map(newestMtime));
}

/** dist/cli.js is newer than everything it is built from (then `npm pack` need not run prepack's webpack again). */
export function cliBundleIsFresh(): boolean {
  const bundle = path.join(root, 'dist', 'cli.js');
  if (!fs.existsSync(bundle)) return false;
  return newestInput() < fs.statSync(bundle).mtimeMs;
}

export interface Packed {
  tarball: string;
  /** The files npm put in it (npm pack --json). */
  files: string[];
  /** Whether prepack (the CLI bundle's build) ran for it. */
  builtByPrepack: boolean;
}

let packed: Promise<Packed> | undefined;
const scratch: string[] = [];
process.once('exit', () => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

/** A scratch folder removed when the test process ends. */
export function scratchDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** npm pack (prepack builds dist/cli.js unless it is already fresh, as right after `npm test`'s bundles phase). */
export function packTarball(): Promise<Packed> {
  packed ??= Promise.resolve().then(() => {
    const dir = scratchDir('lens-pack-');
    const builtByPrepack = !cliBundleIsFresh();
    const r = runNpm(['pack', '--json', '--pack-destination', dir, ...(builtByPrepack ? [] : ['--ignore-scripts'])], { cwd: root, timeoutMs: 600_000 });
    if (r.status !== 0) throw new Error(`npm pack failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    // webpack leaves a bundle whose content did not change untouched (compareBeforeEmit): date the build it just made,
    // so the next run does not rebuild an up-to-date bundle — just after its newest input, not "now": a clock that is
    // off (a test run under a fake clock, a machine set a year ahead) would otherwise date it past every later edit,
    // and a stale bundle would pass for fresh.
    if (builtByPrepack) {
      const bundle = path.join(root, 'dist', 'cli.js');
      const built = new Date(Math.floor(newestInput()) + 1);
      fs.utimesSync(bundle, built, built);
    }
    // With prepack, webpack's lines precede npm's JSON on stdout.
    const json = r.stdout.slice(r.stdout.search(/^\[/m));
    const [info] = JSON.parse(json) as { filename: string; files: { path: string }[] }[];
    return { tarball: path.join(dir, info!.filename), files: info!.files.map((f) => f.path).sort(), builtByPrepack };
  });
  return packed;
}

/** The machine's Node: the first `node` on PATH that is not inside this project (npm puts node_modules/.bin first). */
export function machineNode(): { node: string; version: string; pathWithoutProject: string } | null {
  const exe = process.platform === 'win32' ? 'node.exe' : 'node';
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '' && !path.resolve(d).startsWith(root));
  for (const dir of dirs) {
    const candidate = path.join(dir, exe);
    if (!fs.existsSync(candidate)) continue;
    const real = fs.realpathSync(candidate);
    if (real.startsWith(root)) continue;
    const version = require('node:child_process').execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() as string;
    return { node: candidate, version, pathWithoutProject: dirs.join(path.delimiter) };
  }
  return null;
}
