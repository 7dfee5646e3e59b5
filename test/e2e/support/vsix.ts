// Builds and packages our VSIX (webpack build + `vsce package`) and checks what went into it: the dist/ bundles, and none
// of node_modules, sources, tests or source maps (.vscodeignore decides; this guards it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { node22Env, run } from './exec';
import { repoRoot, vsixPath } from './paths';

/** File names in a zip archive, read from its central directory (a VSIX is a zip; APPNOTE.TXT 4.3.12, 4.3.16). */
export function zipEntryNames(archive: Buffer): string[] {
  const EOCD = 0x06054b50;
  const CENTRAL = 0x02014b50;
  // The end-of-central-directory record sits in the last 22 + up to 65535 (comment) bytes.
  let eocd = -1;
  for (let i = archive.length - 22; i >= Math.max(0, archive.length - 22 - 0xffff); i--) {
    if (archive.readUInt32LE(i) === EOCD) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error('not a zip archive: no end-of-central-directory record');
  const count = archive.readUInt16LE(eocd + 10);
  let offset = archive.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (archive.readUInt32LE(offset) !== CENTRAL) throw new Error(`bad central directory entry at ${offset}`);
    const nameLen = archive.readUInt16LE(offset + 28);
    const extraLen = archive.readUInt16LE(offset + 30);
    const commentLen = archive.readUInt16LE(offset + 32);
    names.push(archive.toString('utf8', offset + 46, offset + 46 + nameLen));
    offset += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

/** Problems with a VSIX's file list; empty when it holds the bundles and nothing that should stay out. */
export function vsixContentProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  for (const bundle of ['extension/dist/extension.js', 'extension/dist/extension.features.js', 'extension/dist/extension.driver.js', 'extension/dist/extension.languageClient.js', 'extension/dist/server.js', 'extension/dist/webview.js', 'extension/package.json']) {
    if (!names.includes(bundle)) problems.push(`missing ${bundle}`);
  }
  const forbidden: [RegExp, string][] = [
    [/^extension\/node_modules\//, 'node_modules'],
    [/^extension\/(src|test|bench|\.e2e|\.ci|\.notes|test-results)\//, 'sources/tests/caches'],
    [/^extension\/\.[^/]+\//, 'hidden folders'],
    [/\.map$/, 'source maps'],
    [/\.ts$/, 'TypeScript sources'],
  ];
  for (const [pattern, what] of forbidden) {
    const hits = names.filter((n) => pattern.test(n));
    if (hits.length) problems.push(`${what} packaged: ${hits.slice(0, 5).join(', ')}${hits.length > 5 ? ` (+${hits.length - 5} more)` : ''}`);
  }
  return problems;
}

function newestMtime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

/**
 * True when the last webpack build is newer than everything webpack reads (make's rule). In CI `npm test` has
 * just built dist/, and a second production build costs minutes on a busy machine. The newest bundle dates
 * the last build: webpack rewrites only bundles whose content changed, so the others keep older times.
 */
export function bundlesAreFresh(): boolean {
  const bundles = ['extension.js', 'server.js', 'webview.js'].map((f) => path.join(repoRoot, 'dist', f));
  if (!bundles.every((b) => fs.existsSync(b))) return false;
  const lastBuild = Math.max(...bundles.map((b) => fs.statSync(b).mtimeMs));
  const inputs = ['src', 'package.json', 'package-lock.json', 'webpack.config.js', 'tsconfig.json'].map((f) => path.join(repoRoot, f));
  return Math.max(...inputs.map(newestMtime)) < lastBuild;
}

/** Build (unless fresh) + vsce package → durability-lens.vsix, then the content check; returns the VSIX path. */
export async function buildVsix(): Promise<string> {
  const given = process.env.E2E_VSIX;
  if (given) {
    // A VSIX built elsewhere (a release candidate): test exactly that file, with the same content check.
    const problems = vsixContentProblems(zipEntryNames(fs.readFileSync(given)));
    if (problems.length) throw new Error(`${given} content is wrong:\n  ${problems.join('\n  ')}`);
    console.log(`e2e: testing the given VSIX ${given} (E2E_VSIX); nothing built`);
    return path.resolve(given);
  }
  fs.rmSync(vsixPath, { force: true });
  const env = node22Env();
  if (process.env.E2E_REBUILD !== '1' && bundlesAreFresh()) {
    console.log('e2e: dist/ bundles are newer than their sources: packaging them without rebuilding (E2E_REBUILD=1 forces a build)');
  } else {
    await run('npm', ['run', 'build', '--silent'], { cwd: repoRoot, env, quiet: true });
  }
  // `npm run package`'s packaging step (scripts/package-vsix.js: vsce on a staged copy, .vscodeignore decides).
  await run(process.execPath, [path.join(repoRoot, 'scripts', 'package-vsix.js'), '--no-build', '--out', vsixPath], { cwd: repoRoot, env, quiet: true });
  const names = zipEntryNames(fs.readFileSync(vsixPath));
  const problems = vsixContentProblems(names);
  if (problems.length) throw new Error(`durability-lens.vsix content is wrong:\n  ${problems.join('\n  ')}`);
  console.log(`e2e: packaged ${vsixPath} (${names.length} files: ${names.filter((n) => n.startsWith('extension/dist/')).join(', ')})`);
  return vsixPath;
}
