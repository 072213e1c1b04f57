// The follow view's arithmetic (relpos/ui/follow_assets/follow.js) under node's built-in test
// runner (no browser, no npm package): how a quiz's table is cut to fit a screen's width.
//
// tests/js/test_follow_fit.py writes Python's even_parts for every count and bound to a
// fixture, then runs
//   RELPOS_FOLLOW_FIXTURE=<fixture.json> RELPOS_FOLLOW_MODULE=<file URL of follow.js> node --test tests/js/follow.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const follow = await import(process.env.RELPOS_FOLLOW_MODULE);
const python = JSON.parse(readFileSync(process.env.RELPOS_FOLLOW_FIXTURE, "utf8"));

// The layout follow.js assumes (its FIT_* constants): a box of 36 px, labels of 48 px, a number of 62 px.
const BOX = 36;
const LABEL = 48;
const CELL = 62;
const PHONE = 358; // a 390 px phone's follow view, inside Streamlit's 16 px margins
const PROJECTOR = 1232; // a 1280 px presenter screen's

const LEAST = 200; // the least room assumed (a width not known yet, or a very narrow one)

test("columnsThatFit: a phone holds 4 numbers, a projector 18; an unknown width the least room's 2", () => {
  assert.equal(follow.columnsThatFit(PHONE), 4);
  assert.equal(follow.columnsThatFit(PROJECTOR), 18);
  for (const width of [0, undefined, -50, 100, LEAST + BOX]) assert.equal(follow.columnsThatFit(width), 2);
  for (let width = 300; width <= 2400; width += 1) {
    const fits = follow.columnsThatFit(width);
    assert.ok(BOX + LABEL + fits * CELL <= width, `${fits} columns overflow ${width} px`);
    assert.ok(BOX + LABEL + (fits + 1) * CELL > width, `${fits + 1} columns would still fit ${width} px`);
  }
});

test("fitParts: five positions on a phone go as 3 + 2, ten as 4 + 3 + 3; a projector keeps one table", () => {
  assert.deepEqual(follow.fitParts(5, PHONE), [[0, 3], [3, 5]]);
  assert.deepEqual(follow.fitParts(4, PHONE), [[0, 4]]);
  assert.deepEqual(follow.fitParts(10, PHONE), [[0, 4], [4, 7], [7, 10]]);
  assert.deepEqual(follow.fitParts(9, PROJECTOR), [[0, 9]]);
  assert.deepEqual(follow.fitParts(0, PHONE), []);
});

test("fitParts: every column once, in order, in as few tables as fit, each fitting, sizes within one", () => {
  for (let count = 1; count <= 40; count += 1) {
    for (let width = 0; width <= 2000; width += 7) {
      const parts = follow.fitParts(count, width);
      const fits = follow.columnsThatFit(width);
      const where = `${count} columns in ${width} px: ${JSON.stringify(parts)}`;
      assert.equal(parts[0][0], 0, where);
      assert.equal(parts.at(-1)[1], count, where);
      parts.slice(1).forEach(([start], index) => assert.equal(start, parts[index][1], where));
      const sizes = parts.map(([start, end]) => end - start);
      assert.ok(sizes.every((size) => size >= 1 && size <= fits), where);
      assert.equal(parts.length, Math.ceil(count / fits), where);
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, where);
    }
  }
});

test("evenParts: the same parts as Python's even_parts (relpos.ui.tables), for every count and bound", () => {
  assert.ok(python.length > 100, "the fixture holds Python's parts");
  for (const { count, most, parts } of python) {
    assert.deepEqual(follow.evenParts(count, most), parts, `${count} columns, at most ${most} a part`);
  }
});
