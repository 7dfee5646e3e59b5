// The job summary the GitHub Action writes ($GITHUB_STEP_SUMMARY, rendered as GitHub-flavoured Markdown): a headline
// with the exit code's meaning, the gate verdicts as a table, the CLI's Markdown report, and on failure the end of
// its log. Text from the CLI's log (which may quote server and file strings) is escaped for where it goes: table
// cells lose their HTML and pipes, the log sits in a code fence longer than any backtick run inside it.
'use strict';

/** The CLI's exit codes (docs/cli.md, docs/ci.md; a test checks them against src/cli). */
const EXIT_MEANINGS = {
  0: 'done',
  1: 'unexpected failure',
  2: 'usage error or unreadable file',
  3: 'could not connect',
  4: 'the workload or a program run failed',
  5: 'refused: the plan was not confirmed (set `yes: true`) or the database may not be changed',
  6: 'DELAYED_DURABILITY could NOT be restored — run the ALTER DATABASE the log prints',
  7: 'the setting could not be changed (nothing changed)',
  8: 'FORCED was not fast enough (`fail-if-speedup-below`)',
  9: 'another session changed DELAYED_DURABILITY during the comparison',
  10: 'a gate of the baseline regressed',
  11: 'the monitor connection was lost: the comparison stopped changing the database and restored it',
  130: 'cancelled',
};

function exitMeaning(code) {
  return EXIT_MEANINGS[code] || (code > 128 ? `ended by signal ${code - 128}` : 'unexpected exit code');
}

/** The CLI's gate lines on stderr: "Gate FAILED|passed|skipped: <message>". */
function gateLines(stderr) {
  return [...String(stderr).matchAll(/^Gate (FAILED|passed|skipped): (.*)$/gm)].map((m) => ({ status: m[1], message: m[2].trim() }));
}

/** Safe inside a Markdown table cell: no HTML, no cell breaks, no line breaks. */
function cell(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** A fenced code block that nothing inside can close. */
function fenced(text) {
  const longest = Math.max(2, ...[...String(text).matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${String(text).replace(/\n+$/, '')}\n${fence}`;
}

function summaryMarkdown({ command, exitCode, report, stderr, files }) {
  const icon = exitCode === 0 ? '✅' : '❌';
  const parts = [`## ${icon} Durability Lens ${command}: ${exitMeaning(exitCode)} (exit ${exitCode})`];
  const gates = gateLines(stderr);
  if (gates.length > 0) {
    const failed = gates.filter((g) => g.status === 'FAILED').length;
    parts.push(`### Gates: ${failed === 0 ? 'all within the baseline' : `${failed} regressed`}`);
    const mark = { FAILED: '❌ FAILED', passed: '✅ passed', skipped: '⚪ not measured' };
    // The regressions first, then what could not be checked, then the rest (in the CLI's order within each).
    const order = { FAILED: 0, skipped: 1, passed: 2 };
    const rows = gates.map((g, i) => ({ ...g, i })).sort((a, b) => order[a.status] - order[b.status] || a.i - b.i);
    parts.push(['| verdict | gate |', '|---|---|', ...rows.map((g) => `| ${mark[g.status]} | ${cell(g.message)} |`)].join('\n'));
  }
  if (String(report).trim() !== '') parts.push(String(report).trim());
  if (exitCode !== 0) {
    const tail = String(stderr).split(/\r?\n/).filter((l) => !/^Gate (FAILED|passed|skipped): /.test(l)).slice(-60).join('\n').trim();
    if (tail !== '') parts.push(`<details><summary>Log (the last lines)</summary>\n\n${fenced(tail)}\n\n</details>`);
  }
  const kept = Object.entries(files).filter(([, f]) => f).map(([kind, f]) => `${kind}: \`${String(f).replace(/`/g, "'")}\``);
  if (kept.length > 0) parts.push(`Reports: ${kept.join(' · ')}`);
  return `${parts.join('\n\n')}\n`;
}

module.exports = { EXIT_MEANINGS, exitMeaning, fenced, gateLines, summaryMarkdown };
