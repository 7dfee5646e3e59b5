// The panel's element tree: plain objects (no DOM, so tests run in mocha), the h() that builds them, and toHtml()
// that serialises them escaped. Only our own tags and attributes pass: no script, no style, no on* handler.

export interface VElement {
  tag: string;
  attrs: Record<string, string>;
  children: VNode[];
}
/** A string child is text: it is always set with textContent, never parsed as markup. */
export type VNode = VElement | string;

/** An attribute given as undefined is left out (a boolean attribute such as `hidden` is present only when set). */
export function h(tag: string, attrs: Record<string, string | undefined> = {}, ...children: (VNode | null | undefined | false)[]): VElement {
  const set = Object.fromEntries(Object.entries(attrs).filter((a): a is [string, string] => a[1] !== undefined));
  return { tag, attrs: set, children: children.filter((c): c is VNode => c !== null && c !== undefined && c !== false) };
}

const ATTR_NAME = /^[a-z][a-z0-9-]*$/;

/** Attributes are only ours: an on* handler or a style attribute would break the CSP promise, so they are refused. */
export function assertSafeAttribute(name: string): void {
  if (!ATTR_NAME.test(name) || name.startsWith('on') || name === 'style' || name === 'srcdoc') throw new Error(`Attribute not allowed in the panel: ${name}`);
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

export function toHtml(node: VNode): string {
  if (typeof node === 'string') return escapeText(node);
  if (!/^[a-z][a-z0-9-]*$/.test(node.tag) || node.tag === 'script' || node.tag === 'style') throw new Error(`Tag not allowed: ${node.tag}`);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => {
      assertSafeAttribute(k);
      return ` ${k}="${escapeAttr(v)}"`;
    })
    .join('');
  return `<${node.tag}${attrs}>${node.children.map(toHtml).join('')}</${node.tag}>`;
}
