// Reads the commands a Markdown page shows — the lines of its ```sh blocks and the `run:` / `uses:` steps of its
// ```yaml workflows — and splits a command line the way a POSIX shell would for the forms the docs use: quotes,
// backslash continuations, `# comments`, leading NAME=value assignments and $NAME expansion. Anything else (pipes,
// redirections, subshells) is refused, so a doc cannot show a command this reading would get wrong.
import { load } from 'js-yaml';

export interface ShellCommand {
  /** The text as the doc shows it (continuations joined). */
  text: string;
  assignments: Record<string, string>;
  argv: string[];
}

export interface WorkflowStep {
  job: string;
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}

export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!);
}

/** Command lines of a sh block: continuations joined, blank and comment-only lines dropped. */
export function shLines(block: string): string[] {
  return block.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/** The steps of a workflow (every job, in order). */
export function workflowSteps(yaml: string): WorkflowStep[] {
  const wf = load(yaml) as { jobs: Record<string, { steps: Omit<WorkflowStep, 'job'>[] }> };
  return Object.entries(wf.jobs).flatMap(([job, j]) => j.steps.map((s) => ({ job, ...s })));
}

/** Splits one command line; `vars` expands $NAME. Throws on shell syntax the docs must not use. */
export function parseCommand(line: string, vars: Readonly<Record<string, string>> = {}): ShellCommand {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const expand = (): string => {
    const m = /^\$(\w+)/.exec(line.slice(i));
    if (!m) throw new Error(`unsupported $ at ${i} in: ${line}`);
    i += m[0].length;
    if (!(m[1]! in vars)) throw new Error(`$${m[1]} is not set for: ${line}`);
    return vars[m[1]!]!;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === '#' && word === null) {
      break;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word = word ?? '';
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '$') word += expand();
        else if (line[i] === '\\' && /["\\$`]/.test(line[i + 1] ?? '')) { word += line[i + 1]; i += 2; }
        else word += line[i++];
      }
      if (line[i] !== '"') throw new Error(`unterminated " in: ${line}`);
      i++;
    } else if (c === '$') {
      word = (word ?? '') + expand();
    } else if (/[|&;<>()`]/.test(c)) {
      throw new Error(`shell syntax '${c}' this reading does not support in: ${line}`);
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  const assignments: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_]\w*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    assignments[name!] = value.join('=');
  }
  return { text: line, assignments, argv: words };
}
