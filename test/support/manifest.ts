// package.json as VS Code shows it: every "%key%" string replaced by its English text from package.nls.json (the
// same replacement VS Code makes when it loads the manifest; translations add package.nls.<locale>.json files).
import * as fs from 'node:fs';
import * as path from 'node:path';

export const NLS_PLACEHOLDER = /^%([\w.-]+)%$/;

/** Replaces "%key%" strings anywhere in a manifest with the bundle's text; a key the bundle lacks throws. */
export function localize<T>(manifest: T, nls: Readonly<Record<string, string>>): T {
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const m = NLS_PLACEHOLDER.exec(value);
      if (!m) return value;
      if (!(m[1]! in nls)) throw new Error(`package.nls.json has no "${m[1]}"`);
      return nls[m[1]!];
    }
    if (Array.isArray(value)) return value.map(visit);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    return value;
  };
  return visit(manifest) as T;
}

/** The repository's package.json with its English strings in place. */
export function localizedManifest(root = path.resolve(__dirname, '..', '..')): any {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8'));
  return localize(manifest, nls);
}
