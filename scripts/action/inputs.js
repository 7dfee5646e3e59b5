// The GitHub Action's inputs (action.yml maps each to an INPUT_* environment variable) → the durability-lens command
// line and the report files it writes. No shell ever sees an input: each becomes one argv element.
'use strict';
const path = require('node:path');

class InputError extends Error {}

/** Non-empty, trimmed lines of a multi-line input. */
function lines(text) {
  return String(text || '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
}

function readInputs(env) {
  const get = (name) => String(env[`INPUT_${name}`] || '').trim();
  return {
    command: get('COMMAND') || 'compare',
    connection: get('CONNECTION'),
    workload: get('WORKLOAD'),
    program: get('PROGRAM'),
    duration: get('DURATION'),
    modes: get('MODES'),
    repeat: get('REPEAT'),
    yes: get('YES').toLowerCase(),
    baseline: get('BASELINE'),
    saveBaseline: get('SAVE_BASELINE'),
    tolerance: lines(env.INPUT_TOLERANCE),
    failIfSpeedupBelow: get('FAIL_IF_SPEEDUP_BELOW'),
    analyze: lines(env.INPUT_ANALYZE),
    args: lines(env.INPUT_ARGS),
    cli: get('CLI'),
    artifactName: get('ARTIFACT_NAME'),
  };
}

/** One extra option per line: the option, then (after the first space) its value, kept whole. */
function optionLine(line) {
  const m = /^(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m || !m[1].startsWith('-')) throw new InputError(`args: each line is one option starting with '-', not '${line}'`);
  return m[2] === undefined ? [m[1]] : [m[1], m[2]];
}

/**
 * The run the inputs describe: the CLI's argv (without the executable), the report files, and the analyze argv
 * (null without `analyze`). Throws InputError with the input to fix.
 */
function planRun(inputs, reportDir) {
  const { command } = inputs;
  if (command !== 'compare' && command !== 'record') throw new InputError(`command: 'compare' or 'record', not '${command}'`);
  if (inputs.connection === '') throw new InputError('connection: required (an ADO.NET connection string without the password, or a profile name)');
  if (!['', 'true', 'false'].includes(inputs.yes)) throw new InputError(`yes: 'true' or 'false', not '${inputs.yes}'`);
  const files = { markdown: path.join(reportDir, 'durability.md'), json: path.join(reportDir, 'durability.json'), junit: null, sarif: null };
  const argv = [command, '--connection', inputs.connection];

  if (inputs.workload !== '' && inputs.program !== '') throw new InputError('workload and program: give one of them, not both');
  if (command === 'compare') {
    if (inputs.workload === '' && inputs.program === '') throw new InputError('compare needs a workload (a T-SQL file) or a program (a command line)');
    if (inputs.duration !== '') throw new InputError('duration: only for record');
    argv.push(...(inputs.workload !== '' ? ['--file', inputs.workload] : ['--command', inputs.program]));
    if (inputs.modes !== '') argv.push('--modes', inputs.modes);
    if (inputs.repeat !== '') argv.push('--repeat', inputs.repeat);
    if (inputs.yes === 'true') argv.push('--yes');
    if (inputs.failIfSpeedupBelow !== '') argv.push('--fail-if-speedup-below', inputs.failIfSpeedupBelow);
  } else {
    if (inputs.workload !== '') throw new InputError('workload: record measures a program (program) or a time window (duration); a T-SQL file is for compare');
    if (inputs.failIfSpeedupBelow !== '') throw new InputError('fail-if-speedup-below: only for compare');
    if (inputs.program !== '' && inputs.duration !== '') throw new InputError('program and duration: give one of them, not both');
    if (inputs.program !== '') argv.push('--command', inputs.program);
    if (inputs.duration !== '') argv.push('--duration', inputs.duration);
  }
  // Markdown on stdout (the job summary), the JSON document beside it.
  argv.push('--markdown', '--out', files.json);
  if (inputs.baseline !== '') {
    files.junit = path.join(reportDir, 'durability-gates.xml');
    argv.push('--baseline', inputs.baseline, '--junit', files.junit);
  }
  if (inputs.saveBaseline !== '') argv.push('--save-baseline', inputs.saveBaseline);
  for (const t of inputs.tolerance) argv.push('--tolerance', t);
  for (const line of inputs.args) argv.push(...optionLine(line));

  let analyzeArgv = null;
  if (inputs.analyze.length > 0) {
    files.sarif = path.join(reportDir, 'durability.sarif');
    analyzeArgv = ['analyze', ...inputs.analyze, '--sarif', files.sarif];
  }
  return { argv, analyzeArgv, files };
}

module.exports = { InputError, lines, readInputs, planRun };
