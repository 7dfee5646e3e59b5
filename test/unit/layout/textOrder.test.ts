// No order in src/ depends on the machine's locale: `localeCompare` with no locale collates by the one Node's ICU takes
// from LC_ALL / LANG (Czech sorts "CH" after "H"), so a tie between wait types, event names or paths came out in
// another order — and another top N — on another machine (test/unit/report/machineIndependence.test.ts shows it).
// Sorts use shared/textOrder.ts; a localeCompare that names its locale would be a choice, and is allowed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { byCodeUnits } from '../../../src/shared/textOrder';
import { sourceFiles, srcRelative, withoutComments } from './sourceGraph';

describe('src/ text order', () => {
  it('calls localeCompare nowhere without naming a locale', () => {
    const found: string[] = [];
    for (const file of sourceFiles()) {
      const code = withoutComments(readFileSync(file, 'utf8'));
      for (const m of code.matchAll(/\.localeCompare\(\s*[^,()]*(?:\([^()]*\))?[^,()]*\)/g)) found.push(`${srcRelative(file)}: ${m[0]}`);
    }
    assert.deepEqual(found, []);
  });

  it('byCodeUnits orders as `<` does: underscore after capitals, "CH" before "CX", "aa" before "z"', () => {
    assert.deepEqual(['LCK_M_X', 'LCKX', 'HADR_SYNC_COMMIT', 'CXPACKET', 'CHECKPOINT_QUEUE', 'z', 'aa'].sort(byCodeUnits), ['CHECKPOINT_QUEUE', 'CXPACKET', 'HADR_SYNC_COMMIT', 'LCKX', 'LCK_M_X', 'aa', 'z']);
    assert.equal(byCodeUnits('2026-11-28T10:00:00.000Z', '2026-11-28T09:59:59.999Z'), 1);
    assert.equal(byCodeUnits('x', 'x'), 0);
  });
});
