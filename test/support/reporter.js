// Mocha's spec reporter plus the plain closing lines CI reads: one "failed: <title> — <message>" line per failed
// test (CI shows only the tail of a long log, so the names must sit at the end), then "N passed, N failed, N skipped".
const Mocha = require('mocha');

/** One line: the error's first message line, control characters shown as spaces, at most 300 characters. */
function firstLine(err) {
  const text = String((err && err.message) || err || '').split('\n').find((l) => l.trim() !== '') || '';
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return clean.length > 300 ? `${clean.slice(0, 299)}…` : clean;
}

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on('fail', (test, err) => failures.push(`failed: ${test.fullTitle()} — ${firstLine(err)}`));
    runner.once('end', () => {
      const s = runner.stats;
      const list = failures.length ? `\n${failures.join('\n')}\n` : '';
      process.stdout.write(`${list}\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;
module.exports.firstLine = firstLine;
