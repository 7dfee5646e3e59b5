// --connection resolution: settings.json (JSON with comments) profile names, ADO.NET strings, passwords.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { connectionsOf, parseJsonc, profileFromSettingsEntry, resolveConnection, userSettingsPath } from '../../../src/cli/connectionOption';

const files: Record<string, string> = {
  '/w/.vscode/settings.json': `{
  // workspace
  "editor.tabSize": 2,
  "durabilityLens.connections": [
    { "name": "Dev", "server": "db1", "port": 1444, "database": "lab", "user": "me", "encrypt": "strict", "development": true, /* trailing */ },
  ],
}`,
  '/home/u/.config/Code/User/settings.json': '{ "durabilityLens": { "connections": [ { "name": "prod", "server": "db2", "database": "app", "authenticationType": "entra-default" } ] } }',
};
const ctx = (over: Partial<Parameters<typeof resolveConnection>[1]> = {}) => ({
  readFile: (p: string) => {
    if (!(p in files)) throw new Error(`ENOENT ${p}`);
    return files[p]!;
  },
  exists: (p: string) => p in files,
  cwd: '/w',
  env: { DURABILITY_LENS_PASSWORD: 'pw' },
  settingsPath: null,
  passwordEnv: 'DURABILITY_LENS_PASSWORD',
  userSettings: '/home/u/.config/Code/User/settings.json',
  ...over,
});

describe('cli: --connection', () => {
  it('parses settings.json with comments and trailing commas, keeping // inside strings', () => {
    assert.deepEqual(parseJsonc('{ "a": "http://x", // c\n "b": [1, 2,], }'), { a: 'http://x', b: [1, 2] });
    assert.deepEqual(parseJsonc('{ "name": "a,}b,]c", /* block */ "n": 1, }'), { name: 'a,}b,]c', n: 1 });
    assert.throws(() => parseJsonc('{ "a": }'), SyntaxError);
    assert.equal(connectionsOf(parseJsonc(files['/w/.vscode/settings.json']!)).length, 1);
  });

  it('finds a profile by name (case-insensitive) in the user settings, never in <cwd>/.vscode/settings.json', () => {
    const prod = resolveConnection('PROD', ctx());
    assert.ok(typeof prod !== 'string');
    assert.deepEqual(prod.profile.authentication, { type: 'entra-default' });
    assert.equal(prod.profile.server, 'db2');
    assert.equal(prod.development, false);
    assert.match(prod.warnings[0]!, /\/w\/\.vscode\/settings\.json is not read for connections/);
    // "Dev" exists only in the workspace file: it is not found, and the message names the user settings file.
    assert.match(resolveConnection('dev', ctx()) as string, /^no connection named "dev" in durabilityLens.connections of \/home\/u\/\.config\/Code\/User\/settings\.json$/);
  });

  it('a workspace profile with the user profile\'s name never wins, nor its development flag', () => {
    const original = files['/w/.vscode/settings.json']!;
    files['/w/.vscode/settings.json'] = '{ "durabilityLens.connections": [ { "name": "prod", "server": "evil", "user": "x", "encrypt": false, "development": true } ] }';
    try {
      const prod = resolveConnection('prod', ctx());
      assert.ok(typeof prod !== 'string');
      assert.equal(prod.profile.server, 'db2');
      assert.equal(prod.development, false);
    } finally {
      files['/w/.vscode/settings.json'] = original;
    }
  });

  it('without a user settings file: says which file is missing', () => {
    assert.match(resolveConnection('prod', ctx({ userSettings: '/home/u/none.json' })) as string, /user settings file \/home\/u\/none\.json does not exist; pass --settings PATH/);
  });

  it('--settings PATH reads only that file (an explicit choice: its development flag counts)', () => {
    const dev = resolveConnection('dev', ctx({ settingsPath: '/w/.vscode/settings.json' }));
    assert.ok(typeof dev !== 'string');
    assert.deepEqual(dev.profile, { server: 'db1', port: 1444, database: 'lab', authentication: { type: 'sql', user: 'me' }, encrypt: 'strict', trustServerCertificate: false, appName: 'Durability Lens CLI' });
    assert.equal(dev.secret, 'pw');
    assert.equal(dev.development, true);
    assert.deepEqual(dev.warnings, ['Using the connection "dev" from /w/.vscode/settings.json.']);
    assert.match(resolveConnection('dev', ctx({ settingsPath: '/home/u/.config/Code/User/settings.json' })) as string, /no connection named "dev" in durabilityLens.connections of \/home/);
    assert.match(resolveConnection('dev', ctx({ settingsPath: '/nope.json' })) as string, /cannot read the settings file \/nope.json: ENOENT/);
  });

  it('an ADO.NET string: the password in it is used but warned about; else the environment', () => {
    const withPw = resolveConnection('Server=tcp:db3,1500;Database=x;User Id=u;Password=s3cret;Encrypt=true', ctx());
    assert.ok(typeof withPw !== 'string');
    assert.equal(withPw.secret, 's3cret');
    assert.equal(withPw.profile.port, 1500);
    assert.match(withPw.warnings[0]!, /process list/);
    const without = resolveConnection('Server=db3;Database=x;User Id=u', ctx());
    assert.ok(typeof without !== 'string');
    assert.equal(without.secret, 'pw');
    assert.deepEqual(without.warnings, []);
  });

  it('names what is wrong with an entry, by the same rules as the extension', () => {
    assert.equal(profileFromSettingsEntry({ name: 'a', server: 's', database: 'd' }), 'Connection "a": "user" is required for sql authentication.');
    assert.match(profileFromSettingsEntry({ name: 'a', server: 's', database: 'd', authenticationType: 'kerberos', user: 'u' }) as string, /^Connection "a": "authenticationType" must be one of sql, ntlm, /);
    assert.equal(profileFromSettingsEntry({ name: 'a', server: 's', database: 'd', authenticationType: 'ntlm', user: 'u' }), 'Connection "a": "domain" is required for NTLM authentication.');
    assert.equal(profileFromSettingsEntry({ name: 'a', server: 's', user: 'u', port: 1433, instanceName: 'X' }), 'Connection "a": set either "port" or "instanceName", not both.');
    assert.match(profileFromSettingsEntry({ name: 'a', server: 's', user: 'u', password: 'pw' }) as string, /passwords and tokens are not read from settings/);
  });

  it('maps a valid entry like the extension does (database defaults to master) with the CLI as application name', () => {
    assert.deepEqual(profileFromSettingsEntry({ name: 'a', server: 's', user: 'u', port: 1444, encrypt: 'strict' }), {
      server: 's',
      port: 1444,
      database: 'master',
      authentication: { type: 'sql', user: 'u' },
      encrypt: 'strict',
      trustServerCertificate: false,
      appName: 'Durability Lens CLI',
    });
  });

  it('knows VS Code\'s user settings path per platform', () => {
    assert.equal(userSettingsPath('linux', {}, '/home/u'), join('/home/u', '.config', 'Code', 'User', 'settings.json'));
    assert.equal(userSettingsPath('darwin', {}, '/Users/u'), join('/Users/u', 'Library', 'Application Support', 'Code', 'User', 'settings.json'));
    // Joined the Windows way whatever the host (install41): on Windows itself path.join is path.win32.join.
    assert.equal(userSettingsPath('win32', { APPDATA: 'C:/Users/u/AppData/Roaming' }, 'C:/Users/u'), 'C:\\Users\\u\\AppData\\Roaming\\Code\\User\\settings.json');
  });
});
