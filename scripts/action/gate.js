// The GitHub Action's step (action.yml): reads the inputs, installs the durability-lens CLI, runs `analyze` (SARIF)
// when asked and then `record`/`compare`, writes the Markdown report and the gate verdicts to the job summary, sets
// the step outputs, and exits with the CLI's code so the job fails exactly when the gate does. The reports go to
// ./durability-lens-report/ for the artifact upload that follows. Needs Node 22 (action.yml sets it up).
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { InputError, planRun, readInputs } = require('./inputs');
const { CliError, resolveCli } = require('./cli');
const { exitMeaning, summaryMarkdown } = require('./summary');

/** Runs the launcher with this Node; streams and keeps stdout and stderr. */
function runCli(launcher, argv, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [launcher, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; process.stdout.write(c); });
    child.stderr.on('data', (c) => { stderr += c; process.stderr.write(c); });
    child.on('error', (e) => { stderr += `could not start ${launcher}: ${e.message}\n`; });
    // Ended by a signal: the shell's code, 128 + its number.
    child.on('close', (code, signal) => resolve({ code: code !== null ? code : 128 + ((signal && os.constants.signals[signal]) || 0), stdout, stderr }));
  });
}

/** Appends name=value to $GITHUB_OUTPUT in the multi-line form (a value can never end the block). */
function setOutputs(env, outputs) {
  if (!env.GITHUB_OUTPUT) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `lens_${crypto.randomBytes(8).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  fs.appendFileSync(env.GITHUB_OUTPUT, text);
}

function appendSummary(env, markdown) {
  if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, markdown);
}

/** A workflow command's message: %, CR and LF escaped as the runner expects. */
function commandText(text) {
  return String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

async function main(env = process.env, cwd = process.cwd(), log = (line) => console.log(line)) {
  const inputs = readInputs(env);
  const reportDir = path.resolve(cwd, 'durability-lens-report');
  let plan;
  try {
    plan = planRun(inputs, reportDir);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    log(`::error title=durability-lens action::${commandText(error.message)}`);
    appendSummary(env, `## ❌ Durability Lens: the action's inputs are wrong\n\n${error.message}\n`);
    setOutputs(env, { 'exit-code': 2 });
    return 2;
  }
  // Secrets passed as inputs are masked by the runner; a password from anywhere else is masked here.
  if (env.DURABILITY_LENS_PASSWORD) log(`::add-mask::${commandText(env.DURABILITY_LENS_PASSWORD)}`);
  fs.mkdirSync(reportDir, { recursive: true });

  let launcher;
  try {
    launcher = await resolveCli({ cli: inputs.cli, cwd, env, log });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    log(`::error title=durability-lens action::${commandText(error.message)}`);
    appendSummary(env, `## ❌ Durability Lens: could not install the CLI\n\n${error.message}\n`);
    setOutputs(env, { 'exit-code': 1, 'report-dir': reportDir });
    return 1;
  }
  const childEnv = { ...env };
  if (plan.analyzeArgv) {
    log(`durability-lens ${plan.analyzeArgv.join(' ')}`);
    const analyzed = await runCli(launcher, plan.analyzeArgv, childEnv);
    if (analyzed.code !== 0) log(`::warning title=durability-lens analyze::${commandText(`analyze exited ${analyzed.code} (${exitMeaning(analyzed.code)}); see its output above`)}`);
  }
  log(`durability-lens ${plan.argv.map((a, i) => (plan.argv[i - 1] === '--connection' ? '<connection>' : a)).join(' ')}`);
  const run = await runCli(launcher, plan.argv, childEnv);
  fs.writeFileSync(plan.files.markdown, run.stdout);

  const present = Object.fromEntries(Object.entries(plan.files).map(([kind, f]) => [kind, f && fs.existsSync(f) ? f : '']));
  appendSummary(env, summaryMarkdown({ command: inputs.command, exitCode: run.code, report: run.stdout, stderr: run.stderr, files: present }));
  setOutputs(env, { 'exit-code': run.code, 'report-dir': reportDir, ...present });
  if (run.code !== 0) log(`::error title=durability-lens ${inputs.command}::${commandText(`exit ${run.code}: ${exitMeaning(run.code)}`)}`);
  return run.code;
}

module.exports = { main };

if (require.main === module) {
  main().then((code) => { process.exitCode = code; }, (error) => {
    console.log(`::error title=durability-lens action::${commandText(error && error.stack ? error.stack : String(error))}`);
    process.exitCode = 1;
  });
}
