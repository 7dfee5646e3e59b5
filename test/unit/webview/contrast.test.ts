// WCAG contrast arithmetic of the panel (src/webview/contrast.ts): the figures the e2e theme check relies on, against
// values worked out by hand from the WCAG 2.2 definitions, and the chart palette made readable on a light editor.
import assert from 'node:assert/strict';
import { contrastRatio, parseColour, readableOn } from '../../../src/webview/contrast';

const ratio = (a: string, b: string) => contrastRatio(parseColour(a)!, parseColour(b)!);

describe('webview contrast (WCAG 2)', () => {
  it('parses the forms a computed style and a theme variable take', () => {
    assert.deepEqual(parseColour('#fff'), { r: 255, g: 255, b: 255, a: 1 });
    assert.deepEqual(parseColour('#ccccccb3'), { r: 204, g: 204, b: 204, a: 179 / 255 });
    assert.deepEqual(parseColour('rgb(31, 31, 31)'), { r: 31, g: 31, b: 31, a: 1 });
    assert.deepEqual(parseColour('rgba(0, 0, 0, 0.5)'), { r: 0, g: 0, b: 0, a: 0.5 });
    assert.deepEqual(parseColour('color(srgb 1 0.5 0 / 0.25)'), { r: 255, g: 127.5, b: 0, a: 0.25 });
    assert.equal(parseColour('var(--x)'), null);
  });

  it('gives 21:1 for black on white, 1:1 for equal colours, and 2.0:1 for testing.iconPassed (#73c991) on white', () => {
    assert.equal(ratio('#000', '#fff').toFixed(2), '21.00');
    assert.equal(ratio('#777', '#777').toFixed(2), '1.00');
    assert.equal(ratio('#73c991', '#ffffff').toFixed(1), '2.0');
  });

  it('composites a translucent colour over the background first', () => {
    // 50 % black over white is rgb(127.5,127.5,127.5): 4.0:1 against white.
    assert.equal(ratio('rgba(0, 0, 0, 0.5)', '#ffffff').toFixed(1), '4.0');
  });

  it('keeps a chart colour that already reaches 3:1 and mixes one that does not towards the foreground', () => {
    assert.equal(readableOn('#1a85ff', '#ffffff', '#3b3b3b'), '#1a85ff');
    const orange = readableOn('#d18616', '#ffffff', '#3b3b3b');
    assert.notEqual(orange, '#d18616');
    assert.ok(ratio('#d18616', '#ffffff') < 3);
    assert.ok(ratio(orange, '#ffffff') >= 3, orange);
    assert.equal(readableOn('not a colour', '#fff', '#000'), 'not a colour');
  });
});
