// Attack install42: `record -- PROGRAM ARGS` / `--command "LINE"` on Windows, simulated (path.win32 names, an injected
// platform, environment and file check): a .cmd shim such as npm.cmd runs through cmd.exe with quoted arguments,
// an argument cmd.exe would rewrite is refused with the shell form to use, and a shell line stays as typed.
import { strict as assert } from 'node:assert';
import { spawnPlan } from '../../../src/profile/externalCommand';
import { resolveWindowsProgram, windowsInvocation, windowsTreeKill } from '../../../src/profile/windowsCommand';

const files = new Set(['C:\\Program Files\\nodejs\\npm.cmd', 'C:\\Program Files\\nodejs\\node.exe', 'C:\\tools (x86)\\load.bat', 'D:\\repo\\npm.cmd']);
// NTFS ignores case, as existsSync does there.
const lower = new Set([...files].map((f) => f.toLowerCase()));
const exists = (f: string) => lower.has(f.toLowerCase());
const env = { Path: 'C:\\Windows\\system32;"C:\\Program Files\\nodejs";C:\\tools (x86)', PATHEXT: '.COM;.EXE;.BAT;.CMD' };

describe('programs on Windows (install42)', () => {
  it('finds a program by PATH and PATHEXT, case-insensitive variable names, never in the current folder', () => {
    assert.equal(resolveWindowsProgram('npm', env, 'D:\\repo', exists), 'C:\\Program Files\\nodejs\\npm.cmd');
    assert.equal(resolveWindowsProgram('node', env, 'D:\\repo', exists), 'C:\\Program Files\\nodejs\\node.exe');
    assert.equal(resolveWindowsProgram('.\\npm', env, 'D:\\repo', exists), 'D:\\repo\\npm.cmd', 'a name with a folder is taken as given');
    assert.equal(resolveWindowsProgram('npm', { Path: 'C:\\none' }, 'D:\\repo', exists), null, 'D:\\repo\\npm.cmd (the current folder) is not searched');
  });

  it('-- npm test: npm.cmd runs through cmd.exe, every argument quoted (& | ( ) stay text inside quotes)', () => {
    assert.deepEqual(spawnPlan({ kind: 'argv', argv: ['npm', 'run', 'load', '--', 'a&b', 'x (1)', 'C:\\out dir\\'] }, 'win32', env, 'D:\\repo', exists), {
      shell: true,
      line: '"C:\\Program Files\\nodejs\\npm.cmd" "run" "load" "--" "a&b" "x (1)" "C:\\out dir\\\\"',
    });
    assert.equal((windowsInvocation(['load', 'n'], env, 'D:\\repo', exists) as { line: string }).line, '"C:\\tools (x86)\\load.bat" "n"');
  });

  it('an .exe is started directly, as on POSIX; the same argv on Linux is never rewritten', () => {
    assert.deepEqual(spawnPlan({ kind: 'argv', argv: ['node', 'x.js'] }, 'win32', env, 'D:\\repo', exists), { shell: false, file: 'node', args: ['x.js'] });
    assert.deepEqual(spawnPlan({ kind: 'argv', argv: ['npm', 'test'] }, 'linux', env, '/repo', exists), { shell: false, file: 'npm', args: ['test'] });
  });

  it('an argument cmd.exe would expand or unquote is refused, naming the --command form', () => {
    for (const arg of ['%PATH%', 'say "hi"', 'wow!', 'a\nb']) {
      const plan = spawnPlan({ kind: 'argv', argv: ['npm', 'run', arg] }, 'win32', env, 'D:\\repo', exists);
      assert.ok('refused' in plan, arg);
      assert.match(plan.refused, /npm\.cmd is a batch file, which Windows runs through cmd\.exe, .* give the whole line with --command/);
    }
  });

  it('a batch file whose own path holds % or ! is refused too: cmd.exe would expand its name before running it', () => {
    const odd = new Set(['c:\\users\\a%temp%b\\npm.cmd', 'c:\\tools!x\\load.bat']);
    const oddExists = (f: string) => odd.has(f.toLowerCase());
    for (const [argv, path] of [[['C:\\Users\\a%TEMP%b\\npm', 'test'], 'a%TEMP%b'], [['C:\\tools!x\\load'], 'tools!x']] as const) {
      const plan = windowsInvocation(argv, env, 'D:\\repo', oddExists);
      assert.equal(plan.kind, 'refused', argv.join(' '));
      assert.ok(plan.kind === 'refused' && plan.reason.includes(path) && /its path holds % or !/.test(plan.reason), plan.kind === 'refused' ? plan.reason : '');
    }
  });

  it('--command "LINE" is handed to the shell as typed (Node runs cmd.exe /d /s /c "LINE")', () => {
    const line = '"C:\\Program Files\\nodejs\\npm.cmd" test -- --grep "a|b"';
    assert.deepEqual(spawnPlan({ kind: 'shell', line }, 'win32', env, 'D:\\repo', exists), { shell: true, line });
  });

  it('a cancel ends the whole tree with taskkill /T /F', () => {
    assert.deepEqual(windowsTreeKill(4242), { file: 'taskkill', args: ['/pid', '4242', '/T', '/F'] });
  });
});
