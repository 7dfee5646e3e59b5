// How a program runs on Windows (record/compare `-- PROGRAM ARGS`, `--command "LINE"`). Pure functions, the platform
// and file checks injected, so the rules are tested on any machine.
//
// - `--command "LINE"`: Node's `shell: true` runs `cmd.exe /d /s /c "LINE"`; with /s cmd drops only the outer quotes,
//   so the line runs exactly as typed ("C:\Program Files\…\x.exe" arg works). Nothing to change.
// - `-- PROGRAM ARGS` (no shell): CreateProcess finds only .exe/.com, and Node refuses to start a .cmd/.bat without a
//   shell (CVE-2024-27980), so `-- npm test` (npm.cmd) failed with ENOENT. When PROGRAM resolves on PATH to a .cmd or
//   .bat, it now runs through cmd.exe with every argument quoted — inside quotes cmd reads & | < > ( ) ^ as text. An
//   argument cmd cannot be given verbatim even quoted (" % ! or a line break: percent and delayed expansion) is refused
//   with the shell form to use instead, and so is a batch file whose own path holds % or !.
// - Stopping: a signal to cmd.exe or npm.cmd's process would not reach the processes they started; `taskkill /T /F`
//   ends the whole tree.
import { win32 } from 'node:path';

/** A variable of a Windows environment, whose names are case-insensitive. */
function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

/**
 * The file a program name starts on Windows by PATH and PATHEXT (".COM;.EXE;.BAT;.CMD" when unset), or null. A name
 * with a folder is resolved against `cwd`; a bare name is looked up on PATH only — not in the current folder, which a
 * cloned repository controls (an `npm.cmd` planted there).
 */
export function resolveWindowsProgram(name: string, env: Readonly<Record<string, string | undefined>>, cwd: string, exists: (file: string) => boolean): string | null {
  const exts = (envValue(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e.startsWith('.')).map((e) => e.toLowerCase());
  const withExt = (base: string): string[] => (win32.extname(base) !== '' ? [base, ...exts.map((e) => base + e)] : exts.map((e) => base + e));
  const hasFolder = /[\\/]/.test(name) || /^[a-z]:/i.test(name);
  const dirs = hasFolder ? [''] : (envValue(env, 'PATH') ?? '').split(';').filter((d) => d.trim() !== '');
  for (const dir of dirs) {
    const base = hasFolder ? win32.resolve(cwd, name) : win32.join(dir.replace(/^"(.*)"$/, '$1'), name);
    const hit = withExt(base).find((f) => exists(f));
    if (hit) return hit;
  }
  return null;
}

/** One argument in double quotes for cmd.exe and the MSVCRT parser after it (backslashes before the closing quote doubled). */
function cmdQuoted(arg: string): string {
  return `"${arg.replace(/(\\+)$/, '$1$1')}"`;
}

/** What `spawn` gets for an argv on Windows: as is, or one cmd.exe line (shell: true) for a .cmd/.bat; or why not. */
export type WindowsInvocation = { kind: 'direct' } | { kind: 'cmd'; line: string } | { kind: 'refused'; reason: string };

export function windowsInvocation(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string, exists: (file: string) => boolean): WindowsInvocation {
  const resolved = resolveWindowsProgram(argv[0]!, env, cwd, exists);
  if (resolved === null || !/\.(cmd|bat)$/i.test(resolved)) return { kind: 'direct' };
  if (/[%!]/.test(resolved)) {
    return {
      kind: 'refused',
      reason: `${resolved} is a batch file, which Windows runs through cmd.exe, and its path holds % or !, which cmd.exe would expand before running it; give the whole line with --command "…" as cmd.exe should read it, or move the file`,
    };
  }
  const bad = argv.slice(1).find((a) => /["%!\r\n]/.test(a));
  if (bad !== undefined) {
    return {
      kind: 'refused',
      reason: `${resolved} is a batch file, which Windows runs through cmd.exe, and cmd.exe cannot be given the argument ${JSON.stringify(bad)} verbatim (it expands % and !, and ends quotes at "); give the whole line with --command "…" as cmd.exe should read it`,
    };
  }
  return { kind: 'cmd', line: [resolved, ...argv.slice(1)].map(cmdQuoted).join(' ') };
}

/** The command that ends a Windows process and every process it started. */
export function windowsTreeKill(pid: number): { file: string; args: string[] } {
  return { file: 'taskkill', args: ['/pid', String(pid), '/T', '/F'] };
}
