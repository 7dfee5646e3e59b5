// Attack install42: VS Code Insiders, VSCodium and portable VS Code keep their user settings elsewhere; the CLI finds
// a connection profile there and says which file it read. Platforms simulated (path.win32 / path.posix, env, home).
import { strict as assert } from 'node:assert';
import { resolveConnection, userSettingsCandidates, type ResolveContext } from '../../../src/cli/connectionOption';

const profile = (name: string, server: string) => JSON.stringify({ 'durabilityLens.connections': [{ name, server, database: 'app', authenticationType: 'entra-default' }] });

function ctx(files: Record<string, string>, over: Partial<ResolveContext>): ResolveContext {
  return {
    readFile: (p) => {
      if (!(p in files)) throw new Error(`ENOENT ${p}`);
      return files[p]!;
    },
    exists: (p) => p in files,
    cwd: '/w',
    env: {},
    settingsPath: null,
    passwordEnv: 'DURABILITY_LENS_PASSWORD',
    ...over,
  };
}

describe('CLI connections from VS Code Insiders, VSCodium and portable VS Code (install42)', () => {
  it('knows each editor\'s file per platform, a portable one first', () => {
    assert.deepEqual(userSettingsCandidates('win32', { APPDATA: 'C:\\Users\\z\\AppData\\Roaming', VSCODE_PORTABLE: 'D:\\VSCode\\data' }, 'C:\\Users\\z').map((c) => c.path), [
      'D:\\VSCode\\data\\user-data\\User\\settings.json',
      'C:\\Users\\z\\AppData\\Roaming\\Code\\User\\settings.json',
      'C:\\Users\\z\\AppData\\Roaming\\Code - Insiders\\User\\settings.json',
      'C:\\Users\\z\\AppData\\Roaming\\VSCodium\\User\\settings.json',
    ]);
    assert.deepEqual(userSettingsCandidates('darwin', {}, '/Users/z').map((c) => c.path), [
      '/Users/z/Library/Application Support/Code/User/settings.json',
      '/Users/z/Library/Application Support/Code - Insiders/User/settings.json',
      '/Users/z/Library/Application Support/VSCodium/User/settings.json',
    ]);
    assert.equal(userSettingsCandidates('linux', {}, '/home/z')[2]!.path, '/home/z/.config/VSCodium/User/settings.json');
    // A relative VSCODE_PORTABLE would be read from the current folder, which a cloned repository controls.
    assert.equal(userSettingsCandidates('linux', { VSCODE_PORTABLE: 'data' }, '/home/z').length, 3);
  });

  it('Insiders only: its profile is used, and the message names the file and the editor', () => {
    const r = resolveConnection('lab', ctx({ '/home/z/.config/Code - Insiders/User/settings.json': profile('lab', 'db-ins') }, { platform: 'linux', home: '/home/z' }));
    assert.ok(typeof r !== 'string', String(r));
    assert.equal(r.profile.server, 'db-ins');
    assert.ok(r.warnings.includes('Using the connection "lab" from /home/z/.config/Code - Insiders/User/settings.json (the user settings of VS Code Insiders).'), r.warnings.join('\n'));
  });

  it('VS Code\'s file without the name: VSCodium\'s is searched next on Windows', () => {
    const files = {
      'C:\\Users\\z\\AppData\\Roaming\\Code\\User\\settings.json': profile('other', 'db-code'),
      'C:\\Users\\z\\AppData\\Roaming\\VSCodium\\User\\settings.json': profile('lab', 'db-codium'),
    };
    const r = resolveConnection('lab', ctx(files, { platform: 'win32', home: 'C:\\Users\\z', env: { APPDATA: 'C:\\Users\\z\\AppData\\Roaming' } }));
    assert.ok(typeof r !== 'string', String(r));
    assert.equal(r.profile.server, 'db-codium');
    assert.match(r.warnings.join('\n'), /VSCodium\\User\\settings\.json \(the user settings of VSCodium\)/);
  });

  it('portable mode: <VSCODE_PORTABLE>/user-data/User/settings.json wins over the installed VS Code\'s', () => {
    const files = { '/opt/vscode/data/user-data/User/settings.json': profile('lab', 'db-portable'), '/home/z/.config/Code/User/settings.json': profile('lab', 'db-code') };
    const r = resolveConnection('lab', ctx(files, { platform: 'linux', home: '/home/z', env: { VSCODE_PORTABLE: '/opt/vscode/data' } }));
    assert.ok(typeof r !== 'string', String(r));
    assert.equal(r.profile.server, 'db-portable');
  });

  it('none of them: the error lists every file looked for; in none: every file read', () => {
    const none = resolveConnection('lab', ctx({}, { platform: 'darwin', home: '/Users/z' })) as string;
    assert.match(none, /^no connection named "lab": no user settings file of VS Code, VS Code Insiders or VSCodium exists \(looked for .*Code\/User.*Code - Insiders\/User.*VSCodium\/User.*\); pass --settings PATH/);
    const files = { '/home/z/.config/Code/User/settings.json': profile('a', 'x'), '/home/z/.config/VSCodium/User/settings.json': profile('b', 'y') };
    assert.equal(resolveConnection('lab', ctx(files, { platform: 'linux', home: '/home/z' })), 'no connection named "lab" in durabilityLens.connections of /home/z/.config/Code/User/settings.json, /home/z/.config/VSCodium/User/settings.json');
  });
});
