// A report is the same whichever machine writes it: the comparison's Markdown, CSV, JSON and document, and the Heaviest
// Log Writers text, rendered from fixed figures in UTC, in zones with odd offsets and daylight saving time, and in
// processes whose locale writes numbers otherwise (da-DK "1.234,5", ar-EG Arabic-Indic digits, hi-IN "12,34,567") and
// sorts text otherwise (da-DK puts "aa" after "z", cs-CZ "CH" after "H"). CI runs in UTC with the C locale, where such a dependence never
// shows; this test makes it show there.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { AWKWARD_ZONES, inTimeZone } from '../../support/timeZone';
import { renderedReports } from './support/renderedReports';

const HELPER = path.join(__dirname, 'support', 'renderedReports.ts');

/** The reports as a separate Node process renders them with this zone and locale (ICU reads LANG/LC_ALL at start). */
function renderedElsewhere(zone: string, locale: string): Record<string, string> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', HELPER], {
    encoding: 'utf8',
    env: { ...process.env, TZ: zone, LANG: `${locale}.UTF-8`, LC_ALL: `${locale}.UTF-8`, LANGUAGE: locale },
    timeout: 60_000,
  });
  return JSON.parse(out) as Record<string, string>;
}

describe('reports do not depend on the machine\'s time zone or locale', function () {
  this.timeout(120_000);
  const inUtc = () => inTimeZone('UTC', renderedReports);

  it('renders figures with en-US separators and UTC times in the UTC reference', async () => {
    const r = await inUtc();
    assert.match(r.markdown!, /\| 100,000 \| 100,000 \|/);
    assert.match(r.topLogText!, /1\.2 M exec \(176\.4 k\/day\) · 9\.20 GiB log/);
    assert.match(r.document!, /"createdAt":"2026-12-31T23:59:59\.999Z"/);
  });

  for (const zone of AWKWARD_ZONES) {
    it(`renders every report identically with the machine in ${zone}`, async () => {
      assert.deepEqual(await inTimeZone(zone, renderedReports), await inUtc());
    });
  }

  for (const [zone, locale] of [['Pacific/Chatham', 'da_DK'], ['Asia/Kathmandu', 'ar_EG'], ['America/St_Johns', 'hi_IN'], ['Europe/Prague', 'cs_CZ']] as const) {
    it(`renders every report identically in a process set to ${locale} in ${zone}`, async () => {
      assert.deepEqual(renderedElsewhere(zone, locale), await inUtc());
    });
  }
});
