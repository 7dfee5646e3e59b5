// Which files `analyze DIR|GLOB|FILE...` means: a directory is every .sql file under it, a pattern with * ? or ** is
// matched against paths under its fixed leading folder, anything else is a file. Sorted, so output is reproducible.

import * as fs from 'node:fs';
import * as path from 'node:path';

const WILDCARD = /[*?]/;

/** Folders never worth descending into when looking for scripts. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

function walk(dir: string, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) { if (!SKIPPED_DIRS.has(entry.name)) walk(full, out); }
    else if (entry.isFile()) out.push(full);
  }
}

/** `**` any folders (zero or more), `*` any characters but a separator, `?` one such character. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  const p = pattern.replaceAll('\\', '/');
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      i++;
      if (p[i + 1] === '/') { i++; re += '(?:.*/)?'; } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, process.platform === 'win32' ? 'i' : '');
}

export interface Expanded {
  files: string[];
  /** Arguments that named nothing: a missing path or a pattern that matched no file. */
  unmatched: string[];
}

/**
 * Expands the arguments. A plain argument that is not a folder stays as it is (it may exist only for the command's
 * IO, as in tests), so reading it reports the OS error when it is missing.
 */
export function expandInputs(args: readonly string[]): Expanded {
  const files: string[] = [];
  const unmatched: string[] = [];
  for (const arg of args) {
    if (WILDCARD.test(arg)) {
      const parts = arg.replaceAll('\\', '/').split('/');
      const fixed: string[] = [];
      while (parts.length > 1 && !WILDCARD.test(parts[0]!)) fixed.push(parts.shift()!);
      const base = fixed.length === 0 ? '.' : fixed.join('/') || '/';
      const found: string[] = [];
      walk(base, found);
      const re = globToRegExp(parts.join('/'));
      const matches = found.filter((f) => re.test(path.relative(base, f).replaceAll('\\', '/'))).sort();
      if (matches.length === 0) unmatched.push(arg);
      files.push(...matches);
      continue;
    }
    let isDir = false;
    try { isDir = fs.statSync(arg).isDirectory(); } catch { isDir = false; }
    if (isDir) {
      const found: string[] = [];
      walk(arg, found);
      const scripts = found.filter((f) => f.toLowerCase().endsWith('.sql')).sort();
      if (scripts.length === 0) unmatched.push(arg);
      files.push(...scripts);
    } else files.push(arg);
  }
  return { files: [...new Set(files)], unmatched };
}
