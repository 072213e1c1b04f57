// The browser's mirror of Python (relpos/ui/explorer_panel_assets/attention.js) against the NumPy
// core's own numbers, under node's built-in test runner (no browser, no npm package).
//
// tests/js/test_attention_mirror.py writes the fixture (inputs and Python's answers) and runs
//   RELPOS_MIRROR_FIXTURE=<fixture.json> RELPOS_MIRROR_MODULE=<file URL of attention.js> node --test tests/js/attention.test.mjs
// Strings must match to the character; numbers within 1e-12 (relative above 1), hover numbers
// Python sends as float32 (panels above 12 × 12) within float32's precision.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const fixture = JSON.parse(readFileSync(process.env.RELPOS_MIRROR_FIXTURE, "utf8"));
const mirror = await import(process.env.RELPOS_MIRROR_MODULE);

const EXACT = 1e-12;
const FLOAT32 = 1e-6;

// Where `actual` and `expected` differ (a path and both values), up to `most` places.
function differences(actual, expected, tolerance, path = "", found = [], most = 5) {
  if (found.length >= most) return found;
  if (typeof expected === "number" && typeof actual === "number") {
    if (!(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)))) found.push([path, actual, expected]);
  } else if (Array.isArray(expected) && Array.isArray(actual) && actual.length === expected.length) {
    expected.forEach((value, index) => differences(actual[index], value, tolerance, `${path}[${index}]`, found, most));
  } else if (actual !== expected) {
    found.push([path, actual, expected]);
  }
  return found;
}

function assertSame(actual, expected, what, tolerance = EXACT) {
  const found = differences(actual, expected, tolerance);
  assert.deepEqual(found, [], `${what}: browser differs from Python at ${JSON.stringify(found)}`);
}

function grid(n, cell) {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => cell(i, j)));
}

test("clip: relpos.clip_offsets(relative_offsets(n), k)", () => {
  for (const { n, k, clipped } of fixture.states) {
    assertSame(grid(n, (i, j) => mirror.clip(j - i, k)), clipped, `n=${n} k=${k}`);
  }
});

test("contentScores: relpos.content_scores", () => {
  for (const { queries, keys, content_scores } of fixture.states) {
    assertSame(mirror.contentScores(queries, keys), content_scores, `n=${queries.length}`);
  }
});

test("positionBiases: relpos.position_biases", () => {
  for (const { n, queries, table, position_biases } of fixture.states) {
    assertSame(mirror.positionBiases(queries, table, n), position_biases, `n=${n}`);
  }
});

test("scalarBiases: relpos.scalar_position_biases", () => {
  for (const { n, table, scalar_biases } of fixture.states) {
    const perOffset = table.map((row) => row[0]);
    assertSame(mirror.scalarBiases(perOffset, n, n), scalar_biases, `n=${n}`);
  }
});

test("softmax: relpos.softmax, overflow-free", () => {
  for (const { logits, weights } of fixture.softmax) {
    assertSame(mirror.softmax(logits), weights, JSON.stringify(logits).slice(0, 60));
  }
});

test("attend: relative_attention / scalar_bias_attention, every panel's matrix", () => {
  for (const { n, k, scalar, queries, keys, table, matrices } of fixture.states) {
    const result = mirror.attend(queries, keys, table, scalar);
    for (const [name, matrix] of Object.entries(matrices)) {
      assertSame(result[name], matrix, `${name} of n=${n} k=${k} scalar=${scalar}`);
    }
  }
});

// Rows of arguments with Python's text last: the mirror's text for each, to the character.
function assertTexts(rows, format, what) {
  const actual = rows.map((row) => format(...row.slice(0, -1)));
  assertSame(
    actual,
    rows.map((row) => row[row.length - 1]),
    `${rows.length} ${what}`,
  );
}

test("formatFixed: relpos.text.numbers.number", () => {
  assertTexts(fixture.fixed, mirror.formatFixed, "numbers");
});

test("sumText: relpos.text.hover.sum_text", () => {
  assertTexts(fixture.sums, mirror.sumText, "sums");
});

test("formatField: relpos.text.hover.format_cells", () => {
  assertTexts(fixture.fields, mirror.formatField, "fields");
});

test("hoverData: relpos.topics.explorer.panel_spec.explorer_hovers(cells=True)", () => {
  let checked = 0;
  for (const { n, k, scalar, queries, keys, table, hovers } of fixture.states) {
    const result = mirror.attend(queries, keys, table, scalar);
    for (const [name, hover] of Object.entries(hovers)) {
      const logits = hover.logits && result[hover.logits];
      const customdata = mirror.hoverData(hover.fields, hover.text, { queries, keys, table, result, logits, z: result[name] });
      assertSame(customdata, hover.customdata, `${name} of n=${n} k=${k} scalar=${scalar}`, hover.text ? EXACT : FLOAT32);
      checked += 1;
    }
  }
  assert.ok(checked > 0, "no hover in the fixture");
});

test("offsetCells: relpos.plots.offset_map.panel_cells and the offset map's cells", () => {
  for (const { n, k, recipe, cells } of fixture.offset_maps) {
    const built = mirror.offsetCells(n, k, recipe);
    assert.deepEqual(Object.keys(built).sort(), Object.keys(cells).sort(), `n=${n} k=${k}: which cells`);
    for (const [name, value] of Object.entries(cells)) assertSame(built[name], value, `${name} of n=${n} k=${k}`);
  }
});

test("outlinePaths: relpos.plots.heatmaps.outline_shapes", () => {
  for (const { n, k, origin, paths } of fixture.outlines) {
    const shapes = paths.map(() => ({ type: "path" })); // Python sends the shapes without their path
    mirror.outlinePaths(shapes, { n, k, origin });
    assertSame(
      shapes.map((shape) => shape.path),
      paths,
      `n=${n} k=${k}`,
    );
  }
});
