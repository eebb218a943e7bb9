import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clampFirstLine,
  countLines,
  firstLineFor,
  renderWindow,
  replaceLines,
  scrolledFirstLine,
} from '../../../extension/core/scaffolds/swe-agent/tools/windowedFile';

const file = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('windowed viewer arithmetic', () => {
  test('line counts follow splitlines: a final newline adds no line, a missing one loses none', () => {
    assert.equal(countLines(''), 0);
    assert.equal(countLines('\n'), 1);
    assert.equal(countLines('a\nb'), 2);
    assert.equal(countLines('a\nb\n'), 2);
    assert.equal(countLines('a\r\nb\rc\n'), 3);
  });

  test('a target line sits a sixth of a window down, clamped to the file', () => {
    assert.equal(firstLineFor(149, 315, 100), 132);
    assert.equal(firstLineFor(0, 315, 100), 0);
    assert.equal(firstLineFor(314, 315, 100), 215);
    assert.equal(firstLineFor(5, 10, 100), 0, 'a file shorter than the window never scrolls');
    assert.equal(clampFirstLine(-16.6, 315, 100), 0);
  });

  test('scrolling moves by window minus overlap and stops at both ends', () => {
    assert.equal(scrolledFirstLine(0, 1, 315, 100, 2), 98);
    assert.equal(scrolledFirstLine(196, 1, 315, 100, 2), 215);
    assert.equal(scrolledFirstLine(50, -1, 315, 100, 2), 0);
  });

  test('the window shows what lies above and below', () => {
    assert.equal(renderWindow(file(5), 'a.py', 0, 3), '[File: a.py (5 lines total)]\n1:line 1\n2:line 2\n3:line 3\n(2 more lines below)');
    assert.equal(renderWindow(file(5), 'a.py', 2, 3), '[File: a.py (5 lines total)]\n(2 more lines above)\n3:line 3\n4:line 4\n5:line 5');
    assert.equal(renderWindow('\n', 'n.py', 0, 100), '[File: n.py (1 lines total)]\n1:');
  });

  test('replacing lines: more, fewer, none, and Python slice rules at the edges', () => {
    assert.equal(replaceLines('a\nb\nc', 1, 1, 'x\ny'), 'a\nx\ny\nc');
    assert.equal(replaceLines('a\nb\nc', 0, 1, 'z'), 'z\nc');
    assert.equal(replaceLines('a\nb\nc', 1, 2, ''), 'a');
    assert.equal(replaceLines('a\nb', 5, 6, 'z'), 'a\nb\nz', 'past the end appends');
    assert.equal(replaceLines('a\nb\nc', -1, -1, 'z'), 'a\nb\nz\nc', 'edit 0:0 inserts before the last line, as SWE-agent does');
  });
});
