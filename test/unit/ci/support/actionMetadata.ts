// A check of a composite action's metadata (action.yml) against GitHub's "Metadata syntax reference"
// (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax): the keys it allows, the ones it
// requires, composite outputs' `value`, `shell` on every `run` step, branding colours; plus our own rules: every
// `${{ inputs.* }}` / `${{ steps.*.outputs.* }}` names something that exists, and no input is spliced into a `run:`
// script (a shell injection: inputs reach the script through `env:`). actionlint checks the workflows that use it.

type Json = Record<string, unknown>;

const TOP_KEYS = ['name', 'author', 'description', 'inputs', 'outputs', 'runs', 'branding'];
const INPUT_KEYS = ['description', 'required', 'default', 'deprecationMessage'];
const STEP_KEYS = ['run', 'shell', 'if', 'name', 'id', 'env', 'working-directory', 'uses', 'with', 'continue-on-error'];
const COLOURS = ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark'];
const ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every `${{ … }}` expression in a value (strings anywhere inside it). */
function expressions(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\$\{\{([\s\S]*?)\}\}/g)].map((m) => m[1]!.trim());
  if (Array.isArray(value)) return value.flatMap(expressions);
  if (isObject(value)) return Object.values(value).flatMap(expressions);
  return [];
}

/** Problems with a composite action's metadata; empty when it is well formed. */
export function compositeActionProblems(action: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(action)) return ['action.yml is not a mapping'];
  for (const key of Object.keys(action)) if (!TOP_KEYS.includes(key)) problems.push(`unknown top-level key '${key}'`);
  for (const key of ['name', 'description']) if (typeof action[key] !== 'string' || action[key] === '') problems.push(`'${key}' is required (a string)`);

  const inputs = isObject(action.inputs) ? action.inputs : {};
  for (const [id, input] of Object.entries(inputs)) {
    if (!ID.test(id)) problems.push(`input id '${id}' must start with a letter or _ and hold only letters, digits, - and _`);
    if (!isObject(input)) { problems.push(`input '${id}' is not a mapping`); continue; }
    for (const key of Object.keys(input)) if (!INPUT_KEYS.includes(key)) problems.push(`input '${id}': unknown key '${key}'`);
    if (typeof input.description !== 'string' || input.description === '') problems.push(`input '${id}': description is required`);
    if (input.required !== undefined && typeof input.required !== 'boolean') problems.push(`input '${id}': required is a boolean`);
    if (input.default !== undefined && typeof input.default !== 'string') problems.push(`input '${id}': default is a string (quote it)`);
  }

  const runs = action.runs;
  if (!isObject(runs) || runs.using !== 'composite') return [...problems, "runs.using must be 'composite'"];
  const steps = Array.isArray(runs.steps) ? runs.steps : [];
  if (steps.length === 0) problems.push('runs.steps is required');
  const stepIds = new Set<string>();
  steps.forEach((step, i) => {
    const where = `step ${i + 1}${isObject(step) && typeof step.id === 'string' ? ` (${step.id})` : ''}`;
    if (!isObject(step)) { problems.push(`${where} is not a mapping`); return; }
    for (const key of Object.keys(step)) if (!STEP_KEYS.includes(key)) problems.push(`${where}: unknown key '${key}'`);
    if ((step.run === undefined) === (step.uses === undefined)) problems.push(`${where}: exactly one of run and uses`);
    if (step.run !== undefined && typeof step.shell !== 'string') problems.push(`${where}: shell is required with run`);
    if (step.with !== undefined && step.uses === undefined) problems.push(`${where}: with belongs to a uses step`);
    if (typeof step.id === 'string') {
      if (stepIds.has(step.id)) problems.push(`${where}: duplicate id`);
      stepIds.add(step.id);
    }
    if (typeof step.run === 'string' && /\$\{\{\s*inputs\./.test(step.run)) problems.push(`${where}: an input is spliced into the run script; pass it through env`);
  });

  const outputs = isObject(action.outputs) ? action.outputs : {};
  for (const [id, output] of Object.entries(outputs)) {
    if (!ID.test(id)) problems.push(`output id '${id}' is not a valid id`);
    if (!isObject(output) || typeof output.description !== 'string' || typeof output.value !== 'string') problems.push(`output '${id}': description and value are required`);
  }

  for (const expression of expressions({ outputs, steps })) {
    for (const m of expression.matchAll(/\binputs\.([A-Za-z0-9_-]+)/g)) if (!(m[1]! in inputs)) problems.push(`\${{ ${expression} }} names no input '${m[1]}'`);
    for (const m of expression.matchAll(/\bsteps\.([A-Za-z0-9_-]+)\.outputs\b/g)) if (!stepIds.has(m[1]!)) problems.push(`\${{ ${expression} }} names no step '${m[1]}'`);
  }

  if (action.branding !== undefined) {
    const b = action.branding;
    if (!isObject(b) || (b.color !== undefined && !COLOURS.includes(String(b.color)))) problems.push(`branding.color must be one of ${COLOURS.join(', ')}`);
  }
  return problems;
}
