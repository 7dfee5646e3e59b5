// Strings from servers and files, neutralised for where they go: "Copy GRANTs" puts only GRANTs we rebuild from
// structured facts on the clipboard (never a file's `grant` text, never a grantee a file names: N5), the Markdown
// export and the Statements tab show no file SQL as "To enable:", and the Markdown export shows names as text.
import * as assert from 'node:assert/strict';
import { exportText, panelDataFromDocument } from '../../../src/extension/panel/panelData';
import { rebuildGrants } from '../../../src/probes/grantRebuild';
import { comparisonDocument, loadComparison } from '../../../src/report/document';
import { buildComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { markdownCode, markdownText } from '../../../src/report/markdownText';
import type { RunResult } from '../../../src/profile/types';
import { notMeasuredAttribution } from '../../../src/profile/statementAttribution';
import { fillGrantees, LOGIN_PLACEHOLDER, neutraliseDocument, USER_PLACEHOLDER } from '../../../src/agent/untrustedComparison';
import { makeRun } from '../report/runFixture';

// markdown-it (installed with @vscode/vsce; no type declarations here) renders as VS Code's Markdown preview does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => { render(text: string): string };

/** A comparison JSON as an attacker would write it: runs whose grant strings and preflight script are arbitrary SQL. */
function hostileComparisonJson(database: string): string {
  const runs: RunResult[] = [makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })];
  for (const r of runs) {
    r.database = { ...(r.database ?? ({ databaseId: 5 } as NonNullable<RunResult['database']>)), name: database };
    r.missing = [
      { measurement: 'fileStats', reason: 'no permission', grant: 'EXEC sp_addsrvrolemember N\'evil\', N\'sysadmin\'; -- GRANT' },
      { measurement: 'made-up', reason: 'x', grant: 'DROP DATABASE [prod];' },
    ];
    r.preflight = {
      loginName: 'mallory', userName: 'mallory', databaseName: database,
      checks: [{ permission: 'VIEW SERVER STATE', scope: 'server', held: false, neededFor: ['waitStats'], grant: 'GRANT CONTROL SERVER TO [mallory];' }],
      missing: [{ measurement: 'extendedEvents', label: 'x', grant: 'ALTER LOGIN [sa] WITH PASSWORD = N\'owned\';' }],
      grantScript: 'ALTER LOGIN [sa] WITH PASSWORD = N\'owned\';',
    };
    r.statementAttribution = notMeasuredAttribution('No per-statement attribution: denied', 'EXEC sp_addrolemember N\'db_owner\', N\'mallory\'; -- GRANT');
    (r.server.identity as unknown as Record<string, unknown>).loginName = 'mallory';
  }
  const restore = { server: 's', database, originalSetting: 'DISABLED', verifiedSetting: 'FORCED', status: 'failed', restoreStatement: 'DROP DATABASE [prod];', message: 'Run: DROP DATABASE [prod];', journalCleared: false };
  return JSON.stringify(comparisonDocument({ runs, status: 'completed', plan: null, restore: restore as never, error: null }));
}

/** Everything an opened comparison would present as SQL to run: the panel's GRANTs, exports, the restore statement. */
const FILE_SQL = /sp_addsrvrolemember|sp_addrolemember|DROP DATABASE|ALTER LOGIN|CONTROL SERVER|mallory/;

describe('hostile strings at their sinks', () => {
  describe('clipboard: Copy GRANTs', () => {
    it('copies GRANTs rebuilt from the facts of an opened comparison, never the file\'s SQL nor its grantee', () => {
      const data = panelDataFromDocument(loadComparison(hostileComparisonJson("lab]; DROP TABLE t; --")));
      assert.equal(
        data.grantScript,
        `USE [master];\nGRANT ALTER ANY EVENT SESSION TO ${LOGIN_PLACEHOLDER};\n\nUSE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO ${LOGIN_PLACEHOLDER};`,
      );
      assert.doesNotMatch(data.grantScript, FILE_SQL);
      assert.deepEqual(data.missing.map((m) => m.grant), [`USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO ${LOGIN_PLACEHOLDER};`, null]);
    });

    it('Copy GRANTs fills the grantee from the connection\'s own login and user, quoted; without a connection it stays a placeholder', () => {
      const data = panelDataFromDocument(loadComparison(hostileComparisonJson('lab')));
      const filled = fillGrantees(data.grantScript, { loginName: 'me]; DROP LOGIN x; --', userName: 'dbo' });
      assert.equal(filled.filled, true);
      assert.equal(filled.text, 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [me]]; DROP LOGIN x; --];\n\nUSE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [me]]; DROP LOGIN x; --];');
      const unfilled = fillGrantees(data.grantScript, null);
      assert.deepEqual([unfilled.filled, unfilled.needed, unfilled.text], [false, true, data.grantScript]);
      // A database-scoped GRANT names the database user placeholder.
      const db = panelDataFromDocument(loadComparison(JSON.stringify(JSON.parse(hostileComparisonJson('lab'), (k, v) => (k === 'measurement' && v === 'fileStats' ? 'vlfs' : v)))));
      assert.match(db.grantScript, new RegExp(`GRANT VIEW DATABASE PERFORMANCE STATE TO ${USER_PLACEHOLDER};`));
      assert.match(fillGrantees(db.grantScript, { loginName: 'l', userName: 'u[1]' }).text, /TO \[u\[1\]\]\];/);
    });

    it('a file\'s database name holding the placeholder cannot make Copy GRANTs put the login inside it (no GRANT is built)', () => {
      for (const name of [`x${LOGIN_PLACEHOLDER}]; DROP TABLE t; --`, `a[\u0001durability-lens-login\u0001`, `${USER_PLACEHOLDER}`]) {
        const json = JSON.parse(hostileComparisonJson(name), (k, v) => (k === 'measurement' && v === 'fileStats' ? 'vlfs' : v));
        const data = panelDataFromDocument(loadComparison(JSON.stringify(json)));
        const filled = fillGrantees(data.grantScript, { loginName: 'me', userName: 'me' }).text;
        assert.doesNotMatch(filled, /DROP TABLE|\u0001/, filled);
        assert.ok(!filled.includes('[x[me]'), filled);
        assert.equal(data.grantScript.includes('USE ['), false, `a database-scoped GRANT was built for ${JSON.stringify(name)}: ${data.grantScript}`);
      }
    });

    it('the Markdown export, the Statements tab and the restore statement of an opened comparison show only our templates', () => {
      const md = exportText(panelDataFromDocument(loadComparison(hostileComparisonJson('lab'))), 'markdown');
      assert.doesNotMatch(md, FILE_SQL);
      assert.match(md, /To enable: `USE \[master\]; GRANT VIEW SERVER PERFORMANCE STATE TO <your login>;`/);
      const data = panelDataFromDocument(loadComparison(hostileComparisonJson('lab')));
      const attribution = data.model.statements?.attribution;
      assert.equal(attribution?.status, 'not-measured');
      assert.equal(attribution?.grant, `USE [master];\nGRANT ALTER ANY EVENT SESSION TO ${LOGIN_PLACEHOLDER};`);
      const doc = neutraliseDocument(loadComparison(hostileComparisonJson('lab')));
      assert.equal(doc.restore?.restoreStatement, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;');
      assert.doesNotMatch(doc.restore?.message ?? '', FILE_SQL);
      // Re-exported as JSON it carries our texts, not the file's.
      assert.doesNotMatch(JSON.stringify(doc.modes), /sp_addsrvrolemember|sp_addrolemember|ALTER LOGIN|CONTROL SERVER|DROP DATABASE/);
    });

    it('quotes the principal and database; unusable facts give no GRANT at all', () => {
      const facts = { majorVersion: 16, engineEdition: 3, loginName: 'a]b', userName: "o'u\nser", databaseName: 'x]]y' };
      assert.deepEqual(rebuildGrants({ ...facts, measurements: ['durabilityToggle', 'vlfs', 'nope', 42] }), [
        "USE [x]]]]y];\nGRANT ALTER ON DATABASE::[x]]]]y] TO [o'u\nser];",
        "USE [x]]]]y];\nGRANT VIEW DATABASE PERFORMANCE STATE TO [o'u\nser];",
      ]);
      assert.deepEqual(rebuildGrants({ ...facts, majorVersion: '16; DROP', measurements: ['fileStats'] }), []);
      assert.deepEqual(rebuildGrants({ ...facts, loginName: { toString: () => 'x' }, measurements: ['fileStats'] }), []);
      assert.deepEqual(rebuildGrants({ ...facts, measurements: ['__proto__', 'constructor', 'toString'] }), []);
    });
  });

  describe('Markdown export', () => {
    const md = new MarkdownIt({ html: true, linkify: false });

    it('a database or server name with HTML, links, images, pipes and newlines renders as text', () => {
      const hostile = '<img src=x onerror=alert(1)>[click](https://evil.example) ![t](https://t.example/p.png) a|b\n# Heading\x1b[2J`code`';
      const model = { ...buildComparisonModel([makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })]), database: hostile, server: hostile };
      model.notes = [hostile];
      const text = toMarkdown(model, hostile);
      assert.equal(text.includes('\x1b'), false);
      const html = md.render(text);
      assert.doesNotMatch(html, /<img|<a |<script|<h1>Heading|<code>code<\/code>/);
      // The title is one heading; the metric table keeps its columns (no row gained a cell from a `|`).
      assert.equal((html.match(/<h1>/g) ?? []).length, 1);
      const rows = html.match(/<tr>[\s\S]*?<\/tr>/g) ?? [];
      assert.ok(rows.length > 2);
      const widths = new Set(rows.map((r: string) => (r.match(/<t[dh][ >]/g) ?? []).length));
      assert.equal(widths.size, 1, `table rows have different widths: ${[...widths].join(', ')}`);
      // The text is still there, as text.
      assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;[click](https://evil.example)'), html);
    });

    it('the panel export escapes its extra tables too', () => {
      const doc = loadComparison(hostileComparisonJson('<b>x</b>|y'));
      const text = exportText(panelDataFromDocument(doc), 'markdown');
      assert.doesNotMatch(md.render(text), /<b>x<\/b>/);
    });

    it('markdownText / markdownCode keep plain text readable', () => {
      assert.equal(markdownText('×1.5 [0.8–1.2] better'), '×1.5 [0.8–1.2] better');
      assert.equal(markdownText('a|b<c>&[d](e)'), 'a\\|b\\<c\\>\\&[d\\](e)');
      assert.equal(markdownCode('x`y\nz'), "`x'y z`");
      assert.equal(markdownCode(' pad'), '`  pad `');
    });
  });
});
