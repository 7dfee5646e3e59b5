// The import graph of src/, read from the TypeScript sources themselves: every relative specifier in an
// `import`/`export … from`, a side-effect `import '…'`, a dynamic `import('…')` and an `import x = require('…')`,
// resolved to the file it names. Used by the layout tests (no circles, no long files).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export const srcRoot = resolve(__dirname, '../../../src');

/** Every .ts file below `root`, as absolute paths, in a stable order. */
export function sourceFiles(root = srcRoot): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) out.push(path);
    }
  };
  walk(root);
  return out;
}

/** `path` relative to src/, with forward slashes (what a failure message shows). */
export function srcRelative(path: string): string {
  return relative(srcRoot, path).split(sep).join('/');
}

/**
 * The text with comments blanked out (strings and template literals kept), so a specifier quoted in a
 * comment is not read as an import and one after a `/* webpackMode *\/` comment still is.
 */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const specifierPatterns: readonly RegExp[] = [
  // import x from '…'; import type { X } from '…'; export { x } from '…'; export * from '…' (possibly multi-line)
  /\b(?:import|export)\s+(?:type\s+)?[\w*{}\s,$]*?\bfrom\s*['"]([^'"]+)['"]/g,
  // import '…' (side effects only)
  /\bimport\s*['"]([^'"]+)['"]/g,
  // import('…'), require('…')
  /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** The module specifiers a source text imports, in order of appearance per pattern. */
export function importSpecifiers(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  for (const pattern of specifierPatterns) {
    for (const match of code.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The file a relative specifier names, or undefined when none of the TypeScript candidates exists. */
export function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const stem = base.replace(/\.js$/, '');
  for (const candidate of [base, `${stem}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

export interface ImportGraph {
  /** file → the src/ files it imports (absolute paths). */
  readonly edges: ReadonlyMap<string, readonly string[]>;
  /** Relative specifiers that named no file: the walk would otherwise miss an edge silently. */
  readonly unresolved: readonly string[];
}

/** The graph over src/: only relative imports landing inside src/ and on a .ts file are edges. */
export function importGraph(root = srcRoot): ImportGraph {
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of sourceFiles(root)) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target === undefined) unresolved.push(`${srcRelative(file)} → ${specifier}`);
      else if (target.endsWith('.ts') && target.startsWith(root + sep)) targets.add(target);
    }
    edges.set(file, [...targets].sort());
  }
  return { edges, unresolved };
}

export interface ImportCircle {
  /** Every file of the strongly connected component, relative to src/, sorted. */
  readonly files: readonly string[];
  /** One concrete path through it, `a → b → … → a`. */
  readonly path: readonly string[];
}

/** Every import circle: one per strongly connected component of the graph (Tarjan's algorithm). */
export function importCircles(graph: ImportGraph): ImportCircle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.edges.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const v of graph.edges.keys()) if (!index.has(v)) connect(v);
  return components.map((component) => ({
    files: component.map(srcRelative).sort(),
    path: circleThrough(graph, new Set(component)),
  }));
}

/** A shortest path from the component's first file (in sorted order) back to itself, inside the component. */
function circleThrough(graph: ImportGraph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.edges.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start].map(srcRelative);
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...component].map(srcRelative);
}
