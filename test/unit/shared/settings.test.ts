import * as assert from 'node:assert/strict';
import { DIAGNOSTIC_CODES, DIAGNOSTIC_INFO, defaultSettings, disabledCodes, readSettings } from '../../../src/shared/settings';

describe('shared/settings', () => {
  it('defaults switch every diagnostic code and code lenses on', () => {
    const settings = defaultSettings();
    assert.deepEqual(Object.values(settings.diagnostics), DIAGNOSTIC_CODES.map(() => true));
    assert.equal(settings.codeLens.enabled, true);
    assert.deepEqual([...disabledCodes(settings)], []);
  });

  it('reads the nested section VS Code returns for dotted keys', () => {
    const settings = readSettings({ diagnostics: { commitInLoop: false, unbalancedTransaction: false }, codeLens: { enabled: false } });
    assert.deepEqual([...disabledCodes(settings)].sort(), ['commit-in-loop', 'unbalanced-transaction']);
    assert.equal(settings.codeLens.enabled, false);
  });

  it('keeps defaults for missing sections and values of the wrong type', () => {
    assert.deepEqual(readSettings(null), defaultSettings());
    assert.deepEqual(readSettings('nonsense'), defaultSettings());
    const settings = readSettings({ diagnostics: { commitInLoop: 'no', autocommitDmlInLoop: 0 }, codeLens: { enabled: 'false' } });
    assert.deepEqual(settings, defaultSettings());
  });

  it('gives every code a distinct camelCase setting and an https doc link', () => {
    const keys = DIAGNOSTIC_CODES.map((code) => DIAGNOSTIC_INFO[code].setting);
    assert.equal(new Set(keys).size, keys.length);
    for (const code of DIAGNOSTIC_CODES) {
      const camel = code.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      assert.equal(DIAGNOSTIC_INFO[code].setting, camel);
      assert.match(DIAGNOSTIC_INFO[code].docUrl, /^https:\/\/learn\.microsoft\.com\/sql\//);
    }
  });
});
