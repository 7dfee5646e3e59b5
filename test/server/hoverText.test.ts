import * as assert from 'node:assert/strict';
import { commitOutcome, commitText } from '../../src/server/hoverText';

describe('server/hoverText', () => {
  it('follows the COMMIT option × database setting table of "Control Transaction Durability"', () => {
    const table = (['OFF', 'ON', null] as const).map((option) =>
      (['DISABLED', 'ALLOWED', 'FORCED'] as const).map((setting) => commitOutcome(option, setting)),
    );
    assert.deepEqual(table, [
      ['fully durable', 'fully durable', 'delayed durable'],
      ['fully durable', 'delayed durable', 'delayed durable'],
      ['fully durable', 'fully durable', 'delayed durable'],
    ]);
  });

  it('names the connected database and warns about loss only when the commit is delayed', () => {
    const forced = commitText(null, { database: 'Sales', delayedDurability: 'FORCED' });
    assert.match(forced, /\*\*delayed durable\*\* on database `Sales` \(DELAYED_DURABILITY = FORCED\)/);
    assert.match(forced, /can be lost/);
    const disabled = commitText('ON', { database: 'Sales', delayedDurability: 'DISABLED' });
    assert.match(disabled, /\*\*fully durable\*\*/);
    assert.doesNotMatch(disabled, /can be lost/);
  });
});

describe('server/hoverText with a hostile database name (N10)', () => {
  // markdown-it renders as VS Code's Markdown does (no type declarations here).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const MarkdownIt = require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => { render(text: string): string };
  const md = new MarkdownIt({ html: true, linkify: true });
  const hostile = [
    'x` ![t](https://t.example/p.png) [click](https://evil.example) `',
    '``` ![t](https://t.example/p.png)',
    '<img src=https://t.example/p.png>',
    'a\n\n![t](https://t.example/p.png)\n\n[x](command:workbench.action.terminal.new)',
    '`',
    'x\u202e\u0007y',
  ];

  for (const name of hostile) {
    it(`shows ${JSON.stringify(name)} as text: no image, no link, no HTML`, () => {
      const text = commitText(null, { database: name, delayedDurability: 'FORCED' });
      const html = md.render(text);
      assert.doesNotMatch(html, /<img|<script|<h\d/, html);
      // The only link is our own Learn page.
      const links = [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]!);
      assert.deepEqual(links, ['https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability'], html);
      // The name is still there, as code (its line breaks as spaces, controls as visible escapes).
      const codes = [...html.matchAll(/<code>([^<]*)<\/code>/g)].map((m) => m[1]!);
      assert.ok(codes.some((c) => c.includes('t.example') || c.includes('`') || c.includes('\\u202e') || c.includes('&lt;img')), `${html}`);
      assert.match(html, /\*\*|<strong>delayed durable<\/strong>/);
    });
  }

  it('a setting that is not one of the three is not believed: the hover shows the whole table', () => {
    const text = commitText(null, { database: 'lab', delayedDurability: '![x](https://t.example)' as never });
    assert.doesNotMatch(text, /t\.example/);
    assert.match(text, /\| FORCED \| delayed durable \|/);
  });
});
