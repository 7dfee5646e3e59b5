// Strings from servers and files, neutralised for where they go: "Copy GRANTs" puts only GRANTs we rebuild from
// structured facts on the clipboard (never a file's `grant` text), and the Markdown export shows names as text.
import * as assert from 'node:assert/strict';
import { exportText, panelDataFromDocument } from '../../../src/extension/panelData';
import { rebuildGrants } from '../../../src/probes/grantRebuild';
import { comparisonDocument, loadComparison } from '../../../src/report/document';
import { buildComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { markdownCode, markdownText } from '../../../src/report/markdownText';
import type { RunResult } from '../../../src/profile/types';
import { makeRun } from '../report/runFixture';

// markdown-it (installed with @vscode/vsce; no type declarations here) renders as VS Code's Markdown preview does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => { render(text: string): string };

/** A comparison JSON as an attacker would write it: runs whose grant strings and preflight script are arbitrary SQL. */
function hostileComparisonJson(database: string): string {
  const runs: RunResult[] = [makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })];
  for (const r of runs) {
    r.database = { ...(r.database ?? ({} as NonNullable<RunResult['database']>)), name: database };
    r.missing = [
      { measurement: 'fileStats', reason: 'no permission', grant: 'EXEC sp_addsrvrolemember N\'evil\', N\'sysadmin\'; -- GRANT' },
      { measurement: 'made-up', reason: 'x', grant: 'DROP DATABASE [prod];' },
    ];
    r.preflight = {
      loginName: 'lens', userName: 'dbo', databaseName: database, checks: [],
      missing: [{ measurement: 'extendedEvents', label: 'x', grant: 'ALTER LOGIN [sa] WITH PASSWORD = N\'owned\';' }],
      grantScript: 'ALTER LOGIN [sa] WITH PASSWORD = N\'owned\';',
    };
  }
  return JSON.stringify(comparisonDocument({ runs, status: 'completed', plan: null, restore: null, error: null }));
}

describe('hostile strings at their sinks', () => {
  describe('clipboard: Copy GRANTs', () => {
    it('copies GRANTs rebuilt from the facts of an opened comparison, never the file\'s SQL', () => {
      const data = panelDataFromDocument(loadComparison(hostileComparisonJson("lab]; DROP TABLE t; --")));
      assert.equal(
        data.grantScript,
        'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [lens];\n\nUSE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];',
      );
      assert.doesNotMatch(data.grantScript, /sp_addsrvrolemember|DROP DATABASE|ALTER LOGIN/);
      assert.deepEqual(data.missing.map((m) => m.grant), ['USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];', null]);
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
