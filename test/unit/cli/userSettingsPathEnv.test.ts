// Attack install41: where the CLI looks for VS Code's user settings when APPDATA / XDG_CONFIG_HOME are empty or
// relative. A relative folder is read from the current directory — a cloned repository could then supply the
// `durabilityLens.connections` profiles the CLI refuses to take from `<cwd>/.vscode/settings.json`.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { userSettingsPath } from '../../../src/cli/connectionOption';

describe('userSettingsPath with an empty or relative environment folder (install41)', () => {
  it('Windows: an empty APPDATA falls back to the profile folder, never to the current directory', () => {
    const p = userSettingsPath('win32', { APPDATA: '' }, 'C:\\Users\\Zoë');
    assert.ok(path.win32.isAbsolute(p), p);
    assert.equal(p, path.win32.join('C:\\Users\\Zoë', 'AppData', 'Roaming', 'Code', 'User', 'settings.json'));
  });

  it('Windows: a set APPDATA is used, joined with Windows separators', () => {
    assert.equal(userSettingsPath('win32', { APPDATA: 'D:\\Roam' }, 'C:\\Users\\x'), 'D:\\Roam\\Code\\User\\settings.json');
  });

  it('Linux: an empty or relative XDG_CONFIG_HOME is ignored (XDG Base Directory: absolute paths only)', () => {
    assert.equal(userSettingsPath('linux', { XDG_CONFIG_HOME: '' }, '/home/zoë'), '/home/zoë/.config/Code/User/settings.json');
    assert.equal(userSettingsPath('linux', { XDG_CONFIG_HOME: 'cfg' }, '/home/zoë'), '/home/zoë/.config/Code/User/settings.json');
    assert.equal(userSettingsPath('linux', { XDG_CONFIG_HOME: '/xdg' }, '/home/zoë'), '/xdg/Code/User/settings.json');
  });

  it('macOS: ~/Library/Application Support', () => {
    assert.equal(userSettingsPath('darwin', {}, '/Users/zoë'), '/Users/zoë/Library/Application Support/Code/User/settings.json');
  });
});
