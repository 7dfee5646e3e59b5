// A name from a server, a file or settings.json inside a label that renders VS Code's theme icons (`$(name)`) shows as
// written, not as icons: code-lens titles, status-bar texts, language-status texts, quick-pick labels/descriptions/
// details and Window-progress titles escape it (shared/visibleText.ts iconLabelField); our own icons stay icons.
import * as assert from 'node:assert/strict';
import { escapeThemeIcons, iconLabelField } from '../../../src/shared/visibleText';
import { buildCodeLenses } from '../../../src/server/codeLenses';
import { analyze } from '../../../src/tsql';

/**
 * How VS Code shows a label with icons (renderLabelWithIcons, src/vs/base/browser/ui/iconLabel/iconLabels.ts): each
 * `$(name)` or `$(name~modifier)` becomes an icon (here «icon:name»); a backslash before it makes it the text `$(name)`.
 */
function shownLabel(label: string): string {
  return label.replace(/(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g, (_m, escaped: string | undefined, name: string) => (escaped ? `$(${name})` : `«icon:${name}»`));
}

const HOSTILE_NAME = 'p$(zap)$(sync~spin)\\$(alert)';

describe('names in labels that render theme icons', () => {
  it('escapeThemeIcons: every $(name) shows as written, an escaped one too; other $( text is left alone', () => {
    for (const text of [HOSTILE_NAME, '$(zap)', 'a$(b c)', '$()', 'x$(', 'price $(5)', '\\\\$(zap)', '$(a-b~spin)x']) {
      assert.equal(shownLabel(escapeThemeIcons(text)), text, text);
    }
    assert.equal(escapeThemeIcons('a$(b c) $(ok)'), 'a$(b c) \\$(ok)', 'only icon syntax gets a backslash (no stray one elsewhere)');
    assert.equal(shownLabel(`$(database) ${iconLabelField(HOSTILE_NAME)}`), `«icon:database» ${HOSTILE_NAME}`, 'our own icon stays an icon');
  });

  it('iconLabelField: also one line, controls and bidi visible', () => {
    assert.equal(iconLabelField('a$(zap)\nb\u202e'), 'a\\$(zap)\\x0ab\\u202e');
  });

  it('code lens titles show a procedure\'s name as written', () => {
    const text = [
      `CREATE PROCEDURE dbo.[${HOSTILE_NAME}] @n int AS`,
      'BEGIN',
      '  DECLARE @i int = 0;',
      '  WHILE @i < @n BEGIN INSERT dbo.t VALUES (@i); SET @i += 1; END',
      'END',
    ].join('\n');
    const titles = buildCodeLenses(analyze(text), 'file:///w/p.sql', 1).map((l) => l.command!.title);
    assert.deepEqual(titles.map(shownLabel).sort(), [`Compare durability…`, `Profile EXEC dbo.${HOSTILE_NAME}…`, `Profile this loop via EXEC dbo.${HOSTILE_NAME}…`].sort());
  });

  it('code lens titles keep a bracketed name on one line', () => {
    const titles = buildCodeLenses(analyze('CREATE PROCEDURE [a\nEXEC b] AS SELECT 1;'), 'file:///w/p.sql', 1).map((l) => l.command!.title);
    assert.ok(titles.includes('Profile EXEC a\\x0aEXEC b'), titles.join(' | '));
  });
});
