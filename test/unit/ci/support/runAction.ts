// Runs action.yml's gate step the way the Actions runner does, without a runner: the step's `env:` with each
// `${{ inputs.x }}` replaced by the value given (or the input's default), $GITHUB_STEP_SUMMARY / $GITHUB_OUTPUT as
// scratch files, $GITHUB_ACTION_PATH at the repository, the step's working directory, and its `run:` line's script
// started with this Node (the action sets up Node 22). Returns what the job would see. Asynchronous: the stand-in the
// step connects to may run in this very process.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { load } from 'js-yaml';

export const root = path.resolve(__dirname, '../../../..');

export interface ActionStep { id?: string; run?: string; uses?: string; shell?: string; env?: Record<string, string>; with?: Record<string, string>; if?: string; 'working-directory'?: string }
export interface ActionMetadata { inputs: Record<string, { default?: string; required?: boolean }>; outputs: Record<string, { value: string }>; runs: { steps: ActionStep[] } }

export function loadAction(): ActionMetadata {
  return load(fs.readFileSync(path.join(root, 'action.yml'), 'utf8')) as ActionMetadata;
}

/** `${{ inputs.x }}` → the value; any other expression is not something this stand-in for the runner evaluates. */
export function substituteInputs(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expression: string) => {
    const m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(expression);
    if (!m) throw new Error(`cannot evaluate \${{ ${expression} }} here`);
    if (!(m[1]! in values)) throw new Error(`no input ${m[1]}`);
    return values[m[1]!]!;
  });
}

/** Step outputs written in the runner's `name<<DELIMITER … DELIMITER` form (and plain name=value lines). */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const plain = /^([^=]+)=(.*)$/.exec(lines[i]!);
    if (plain) outputs[plain[1]!] = plain[2]!;
  }
  return outputs;
}

export interface ActionRun {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
  /** The action's own outputs (action.yml `outputs:`), as the caller's `steps.<id>.outputs` would show them. */
  actionOutputs: Record<string, string>;
}

export async function runGateStep(given: Record<string, string>, workspace: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<ActionRun> {
  const action = loadAction();
  const values: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) values[name] = given[name] ?? input.default ?? '';
  for (const name of Object.keys(given)) if (!(name in action.inputs)) throw new Error(`action.yml has no input '${name}'`);
  const step = action.runs.steps.find((s) => s.id === 'gate')!;
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  for (const [name, value] of Object.entries(step.env ?? {})) env[name] = substituteInputs(value, values);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lens-runner-'));
  try {
    Object.assign(env, {
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: root,
      GITHUB_STEP_SUMMARY: path.join(scratch, 'summary.md'),
      GITHUB_OUTPUT: path.join(scratch, 'output'),
      RUNNER_TEMP: scratch,
    });
    fs.writeFileSync(env.GITHUB_STEP_SUMMARY!, '');
    fs.writeFileSync(env.GITHUB_OUTPUT!, '');
    const script = /^node "\$GITHUB_ACTION_PATH\/([^"]+)"$/.exec(step.run ?? '');
    if (!script) throw new Error(`unexpected run line: ${step.run}`);
    const cwd = path.resolve(workspace, substituteInputs(step['working-directory'] ?? '.', values));
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(root, ...script[1]!.split('/'))], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => void (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    const outputs = parseOutputs(fs.readFileSync(env.GITHUB_OUTPUT!, 'utf8'));
    const actionOutputs: Record<string, string> = {};
    for (const [name, output] of Object.entries(action.outputs)) {
      const m = /^\$\{\{ steps\.gate\.outputs\.([\w-]+) \}\}$/.exec(output.value);
      if (m) actionOutputs[name] = outputs[m[1]!] ?? '';
    }
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, summary: fs.readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8'), outputs, actionOutputs };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
