// Finds actionlint (a Go module; .ci/run installs it into .tools/bin, the hosted workflows into $(go env GOPATH)/bin
// and name it in ACTIONLINT) and runs it on workflow files. Locally a missing actionlint skips the caller with the
// reason; in CI (CI=true) it is a failure.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

export const ACTIONLINT_MODULE = 'github.com/rhysd/actionlint/cmd/actionlint@v1.7.12';
const root = resolve(__dirname, '../../../..');
const exe = process.platform === 'win32' ? 'actionlint.exe' : 'actionlint';

export function findActionlint(): string | null {
  const candidates = [
    process.env.ACTIONLINT,
    ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, exe)),
    process.env.GOBIN ? join(process.env.GOBIN, exe) : undefined,
    process.env.GOPATH ? join(process.env.GOPATH, 'bin', exe) : undefined,
    join(homedir(), 'go', 'bin', exe),
    join(root, '.tools', 'bin', exe),
  ];
  return candidates.find((c): c is string => !!c && existsSync(c)) ?? null;
}

/** The actionlint binary, or skips the running test (locally) / fails it (CI=true) when there is none. */
export function requireActionlint(context: Mocha.Context): string {
  const found = findActionlint();
  if (found) return found;
  if (process.env.CI === 'true') assert.fail(`actionlint is not installed; .ci/run installs it with \`go install ${ACTIONLINT_MODULE}\``);
  console.log(`    actionlint is not installed: go install ${ACTIONLINT_MODULE} to run this check`);
  context.skip();
}

/** actionlint's verdict on files, run from `cwd` (a local action `uses: ./` is resolved against the repository there). */
export function actionlint(binary: string, files: readonly string[], cwd = root): { ok: boolean; output: string } {
  const r = spawnSync(binary, ['-no-color', ...files], { cwd, encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}
