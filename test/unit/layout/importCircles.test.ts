// No import circles in src/. The graph is walked here over the TypeScript sources (sourceGraph.ts), not taken
// from a bundler, so the test fails on a circle before anything is built.
//
// Type-only imports (`import type`) count as edges. They vanish at runtime, so they cannot cause a
// half-initialised module, but a circle is a reading problem before it is a loading one: two files that name
// each other's types are one concept split in two, and a newcomer cannot read either first. Dynamic `import()`
// counts for the same reason.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCircles, importGraph, importSpecifiers } from './sourceGraph';

describe('src/ import graph', () => {
  it('has no import circles, type-only imports included', () => {
    const circles = importCircles(importGraph());
    assert.deepEqual(
      circles.map((c) => `${c.path.join(' → ')} (circle of ${c.files.join(', ')})`),
      [],
    );
  });

  it('resolves every relative import in src/ to a file (so no edge is missed silently)', () => {
    assert.deepEqual(importGraph().unresolved, []);
  });

  it('reads the import forms src/ uses and ignores specifiers in comments', () => {
    const text = [
      "import a from './a';",
      "import type { B } from '../b';",
      'import {',
      '  c,',
      '  type C,',
      "} from './c';",
      "export { d } from './d';",
      "export * from './e';",
      "import './f.css';",
      "const g = await import(/* webpackMode: \"eager\" */ './g');",
      "import h = require('./h');",
      "// import x from './commented';",
      "/* export * from './blocked'; */",
      "const s = 'import y from \"./in-a-string-only-after-from\"';",
    ].join('\n');
    const found = importSpecifiers(text);
    for (const expected of ['./a', '../b', './c', './d', './e', './f.css', './g', './h']) {
      assert.ok(found.includes(expected), `missing ${expected} in ${found.join(', ')}`);
    }
    assert.ok(!found.includes('./commented') && !found.includes('./blocked'), found.join(', '));
  });

  it('finds a circle through a type-only import and an index file', () => {
    const root = mkdtempSync(join(tmpdir(), 'dl-import-graph-'));
    try {
      mkdirSync(join(root, 'x'));
      writeFileSync(join(root, 'x', 'index.ts'), "export { a } from './a';\n");
      writeFileSync(join(root, 'x', 'a.ts'), "import type { B } from '../b';\nexport const a = (b: B) => b;\n");
      writeFileSync(join(root, 'b.ts'), "import { a } from './x';\nexport type B = typeof a;\n");
      writeFileSync(join(root, 'c.ts'), "import { a } from './x';\nexport const c = a;\n");
      const circles = importCircles(importGraph(root));
      assert.equal(circles.length, 1);
      assert.equal(circles[0]!.files.length, 3);
      const path = circles[0]!.path;
      assert.equal(path[0], path[path.length - 1]);
      assert.equal(path.length, 4);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
