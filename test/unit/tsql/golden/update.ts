// Writes test/unit/tsql/golden/*.json from the current T-SQL core: `npm run golden:update`. Run it when a change of
// what the core says is intended, then read the diff (`git diff test/unit/tsql/golden`) before committing it.
// Golden files of fixtures that no longer exist are removed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixtures, GOLDEN_DIR, goldenPath, goldenText } from './record';

const wanted = new Set<string>();
let changed = 0;
for (const f of fixtures()) {
  const file = goldenPath(f);
  wanted.add(path.basename(file));
  const text = goldenText(f);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (before === text) continue;
  fs.writeFileSync(file, text);
  changed++;
  console.log(`${before === null ? 'added' : 'updated'} ${path.relative(process.cwd(), file)}`);
}
for (const name of fs.readdirSync(GOLDEN_DIR)) {
  if (!name.endsWith('.json') || wanted.has(name)) continue;
  fs.rmSync(path.join(GOLDEN_DIR, name));
  changed++;
  console.log(`removed ${name} (its fixture is gone)`);
}
console.log(`${wanted.size} golden files, ${changed} changed`);
