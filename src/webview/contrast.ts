// WCAG 2 contrast for the panel's own colours: chart series come from the theme's chart colours, which are made for
// marks on the theme's background but not always readable there (charts.orange #d18616 on a light editor: 2.9:1);
// a series colour below 3:1 (WCAG 1.4.11, non-text contrast) is mixed towards the foreground until it reaches it.
// Formulas: WCAG 2.2 "relative luminance" and "contrast ratio" (https://www.w3.org/TR/WCAG22/#dfn-relative-luminance).

export interface Rgb { r: number; g: number; b: number; a: number }

/** #rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba(), and `color(srgb r g b [/ a])` (how Chromium computes color-mix). */
export function parseColour(text: string): Rgb | null {
  const t = text.trim().toLowerCase();
  let m = /^#([0-9a-f]{3,8})$/.exec(t);
  if (m) {
    const h = m[1]!;
    if (h.length === 3 || h.length === 4) {
      const [r, g, b, a] = [...h].map((c) => parseInt(c + c, 16));
      return { r: r!, g: g!, b: b!, a: a === undefined ? 1 : a / 255 };
    }
    if (h.length === 6 || h.length === 8) {
      const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
      return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
    }
    return null;
  }
  m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(t);
  if (m) return { r: +m[1]!, g: +m[2]!, b: +m[3]!, a: alphaOf(m[4]) };
  m = /^color\(srgb\s+([\d.e-]+)\s+([\d.e-]+)\s+([\d.e-]+)(?:\s*\/\s*([\d.]+%?))?\s*\)$/.exec(t);
  if (m) return { r: +m[1]! * 255, g: +m[2]! * 255, b: +m[3]! * 255, a: alphaOf(m[4]) };
  return null;
}

function alphaOf(text: string | undefined): number {
  if (text === undefined) return 1;
  return text.endsWith('%') ? parseFloat(text) / 100 : parseFloat(text);
}

/** `top` painted over an opaque `bottom` (alpha compositing). */
export function over(top: Rgb, bottom: Rgb): Rgb {
  const a = top.a;
  return { r: top.r * a + bottom.r * (1 - a), g: top.g * a + bottom.g * (1 - a), b: top.b * a + bottom.b * (1 - a), a: 1 };
}

export function luminance(c: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** (L1 + 0.05) / (L2 + 0.05), lighter over darker; `fg` is composited over `bg` first. */
export function contrastRatio(fg: Rgb, bg: Rgb): number {
  const a = luminance(over(fg, bg));
  const b = luminance(bg);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

function hex(c: Rgb): string {
  return `#${[c.r, c.g, c.b].map((v) => Math.round(Math.max(0, Math.min(255, v))).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * `colour` unchanged when it reaches `min`:1 on `background`, else mixed towards `foreground` (10 % steps) until it
 * does; unparseable colours are returned as given (the theme's own choice).
 */
export function readableOn(colour: string, background: string, foreground: string, min = 3): string {
  const c = parseColour(colour);
  const bg = parseColour(background);
  const fg = parseColour(foreground);
  if (!c || !bg || !fg || bg.a < 1) return colour;
  const solid = over(c, bg);
  const fgSolid = over(fg, bg);
  for (let step = 0; step <= 10; step++) {
    const k = step / 10;
    const mixed = { r: solid.r * (1 - k) + fgSolid.r * k, g: solid.g * (1 - k) + fgSolid.g * k, b: solid.b * (1 - k) + fgSolid.b * k, a: 1 };
    if (contrastRatio(mixed, bg) >= min) return step === 0 ? colour : hex(mixed);
  }
  return hex(fgSolid);
}
