// The check npm makes on the real platform, made here for any platform: a package that is not optional must accept
// the target's os and cpu, or `npm ci` stops with EBADPLATFORM. npm's --os/--cpu flags only steer which OPTIONAL
// packages install (arborist's build-ideal-tree checks required ones against the running machine), so a dry run
// with the flags cannot see a required package of the wrong platform: this reads package-lock.json for it.
// Semantics of package.json "os"/"cpu": https://docs.npmjs.com/cli/v11/configuring-npm/package-json#os
// (a list of allowed values; a value prefixed with "!" is blocked).

export interface LockPackage {
  version?: string;
  /** Optional everywhere it is needed. ("devOptional" — optional on one path, a dev dependency on another — is still required.) */
  optional?: boolean;
  os?: string | string[];
  cpu?: string | string[];
}

export interface Target {
  os: string;
  cpu: string;
}

/** True when a package.json os/cpu field admits the value. */
export function admits(field: string | string[] | undefined, value: string): boolean {
  if (field === undefined) return true;
  const list = Array.isArray(field) ? field : [field];
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((v) => !v.startsWith('!'));
  return allowed.length === 0 || allowed.includes('any') || allowed.includes(value);
}

/** Required (not optional) lockfile packages that would stop `npm ci` with EBADPLATFORM on the target. */
export function requiredPackagesBlocking(packages: Record<string, LockPackage>, target: Target): string[] {
  return Object.entries(packages)
    .filter(([key, p]) => key !== '' && !p.optional)
    .filter(([, p]) => !admits(p.os, target.os) || !admits(p.cpu, target.cpu))
    .map(([key, p]) => `${key.replace(/^.*node_modules\//, '')}@${p.version ?? '?'} (os ${JSON.stringify(p.os ?? 'any')}, cpu ${JSON.stringify(p.cpu ?? 'any')})`);
}
