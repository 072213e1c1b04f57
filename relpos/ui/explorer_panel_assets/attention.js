// The Explorer's numbers in the browser: a mirror of Python, not a second truth.
//
// While a slider moves, the Explorer panel (explorer_panel.js) recomputes here what Python computes on
// release: the core's matrices (relpos.core), the cell text and hover fields
// (relpos.text.numbers, relpos.text.hover) and the offset map's cells and the clipping
// window's outline (relpos.plots). Every exported function names the Python function it
// mirrors. Pure functions, no DOM: tests/js/attention.test.mjs runs them under node's own
// test runner against numbers the NumPy core exported (tests/js/test_attention_mirror.py),
// and tests/explorer/test_explorer_panel.py checks what the browser draws on random states.
// Index letters as in the core: i query, j key, c feature, r table row; offset = j - i.
// Arrays are plain row-major Arrays of float64 numbers: queries (n, d), keys (n, d),
// table (2k+1, d).

// relpos.core.offsets.relative_offsets + clip_offsets:
// clip(j - i, k) = max(-k, min(k, j - i))
export function clip(offset, k) {
  return Math.max(-k, Math.min(k, offset));
}

// relpos.core.attention.content_scores: c_ij = q_i · k_j / sqrt(d)
export function contentScores(queries, keys) {
  const d = queries[0].length;
  const scale = Math.sqrt(d); // _scale_factor(d, True)
  return queries.map((q) =>
    keys.map((key) => {
      let dot = 0; // q_i · k_j, summed over features c in order
      for (let c = 0; c < d; c++) dot += q[c] * key[c];
      return dot / scale;
    }),
  ); // (n_q, n_k)
}

// relpos.core.attention.position_biases:
// L_ir = q_i · a^K_r / sqrt(d); b_ij = L_{i, clip(j - i, k) + k}
export function positionBiases(queries, table, nKeys) {
  const d = queries[0].length;
  const k = (table.length - 1) / 2;
  const scale = Math.sqrt(d);
  return queries.map((q, i) => {
    const relative = table.map((row) => {
      let dot = 0; // q_i · a^K_r
      for (let c = 0; c < d; c++) dot += q[c] * row[c];
      return dot / scale;
    }); // (2k+1,)
    return Array.from({ length: nKeys }, (_, j) => relative[clip(j - i, k) + k]);
  }); // (n_q, n_k)
}

// relpos.core.scalar_bias.scalar_position_biases: b_ij = w_{clip(j - i, k)}, the same for
// every query, not divided by sqrt(d) (w is the table's first column)
export function scalarBiases(perOffset, nQueries, nKeys) {
  const k = (perOffset.length - 1) / 2;
  return Array.from({ length: nQueries }, (_, i) =>
    Array.from({ length: nKeys }, (_, j) => perOffset[clip(j - i, k) + k]),
  ); // (n_q, n_k)
}

// relpos.core.attention.softmax (no mask): alpha_ij = exp(e_ij - m_i) / sum_j' exp(e_ij' - m_i),
// m_i = max_j e_ij, so no exponent is positive and nothing overflows
export function softmax(logits) {
  return logits.map((row) => {
    const top = Math.max(...row); // m_i
    const exps = row.map((e) => Math.exp(e - top)); // exp(e_ij - m_i)
    let total = 0;
    for (const value of exps) total += value; // sum_j exp(e_ij - m_i)
    return exps.map((value) => value / total);
  });
}

// relpos.core.attention.relative_attention (A_K given, no mask) and, with scalar = true,
// relpos.core.scalar_bias.scalar_bias_attention: every matrix a panel shows.
export function attend(queries, keys, table, scalar) {
  const content = contentScores(queries, keys); // c_ij
  const bias = scalar
    ? scalarBiases(
        table.map((row) => row[0]),
        queries.length,
        keys.length,
      )
    : positionBiases(queries, table, keys.length); // b_ij
  const scores = content.map((row, i) => row.map((c, j) => c + bias[i][j])); // e_ij = c_ij + b_ij
  const weights = softmax(scores); // alpha_ij
  const contentWeights = softmax(content); // alpha^(c)_ij: softmax of the content term alone
  const difference = weights.map((row, i) => row.map((w, j) => w - contentWeights[i][j])); // panels.panel_matrices
  return {
    content,
    bias,
    scores,
    content_weights: contentWeights,
    weights,
    difference,
  };
}

// relpos.plots.offset_map (the map as a panel, see panel_cells there): z the clipped offset
// clip(j − i, k) + shift (the table row above 64 × 64 cells), the offsets as cell text and
// the hover's [offset, clipped] as text (up to 12 × 12), or the offset as a number.
export function offsetCells(n, k, { shift, labels, hover }) {
  const grid = (cell) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => cell(i, j)));
  const offset = (value) => formatField(value, "+d");
  const cells = { z: grid((i, j) => clip(j - i, k) + shift) };
  if (labels) cells.text = grid((i, j) => offset(clip(j - i, k)));
  if (hover === "text") cells.customdata = grid((i, j) => [offset(j - i), offset(clip(j - i, k))]);
  if (hover === "offset") cells.customdata = grid((i, j) => [j - i]);
  return cells;
}

// relpos.plots.heatmaps.window_staircases + outline_shapes: the cell-edge paths between
// offsets within ±k and the clipped ones (above the window, then below it), for the
// outline shapes Python sent without their path.
export function outlinePaths(shapes, { n, k, origin }) {
  if (!shapes || shapes.every((shape) => shape.path)) return;
  const paths = [];
  const corner = (x, y) => `${x + origin},${y + origin}`;
  if (k + 1 <= n - 1) {
    // keys more than k after their query, then more than k before it (a square panel has both or neither)
    paths.push(staircase(k + 0.5, -0.5, n, 0, 1), staircase(-0.5, k + 0.5, n, 1, 0));
  }
  shapes.forEach((shape, index) => {
    if (!shape.path) shape.path = `M ${paths[index].map(([x, y]) => corner(x, y)).join(" L ")}`;
  });
}

// One staircase from (x, y): a step down then right (dx = 0, dy = 1 first) or right then down.
function staircase(x, y, n, dx, dy) {
  const end = n - 0.5;
  const path = [[x, y]];
  while (x < end && y < end) {
    [x, y] = [x + dx, y + dy];
    path.push([x, y]);
    if ((dx ? x : y) < end) {
      [x, y] = [x + dy, y + dx];
      path.push([x, y]);
    }
  }
  return path;
}

// relpos.text.hover: the per-cell fields behind a panel's hover template (the template
// itself stays Python's). `fields` lists [name, format] in customdata order; `logits` are
// the panel's softmax inputs (content for the content-only weights, scores for the
// combined ones), `z` the panel's own matrix. As text (up to 12 × 12) the fields are
// formatted here with true minus signs; larger panels send numbers Plotly formats.
export function hoverData(fields, asText, { queries, keys, table, result, logits, z }) {
  const k = (table.length - 1) / 2;
  const stable = fields.some(([name]) => name === "max"); // Python chose exp(e - max): scores above 50
  const top = logits && logits.map((row) => Math.max(...row)); // m_i
  const exps = logits && logits.map((row, i) => row.map((e) => Math.exp(e - (stable ? top[i] : 0))));
  const totals = exps && exps.map((row) => row.reduce((sum, value) => sum + value, 0));
  const cell = {
    offset: (i, j) => j - i,
    clipped: (i, j) => clip(j - i, k),
    content: (i, j) => result.content[i][j],
    bias: (i, j) => result.bias[i][j],
    scores: (i, j) => result.scores[i][j],
    logit: (i, j) => logits[i][j],
    max: (i) => top[i],
    exp: (i, j) => exps[i][j],
    total: (i) => totals[i],
    content_weight: (i, j) => result.content_weights[i][j],
    weight: (i, j) => result.weights[i][j],
    // relpos.text.hover.weight_hovers: the change as the hover's own 4-decimal weights give it
    change: (i, j) => shown(result.weights[i][j], 4) - shown(result.content_weights[i][j], 4),
    z: (i, j) => z[i][j],
  };
  const getters = fields.map(([name, format]) => {
    if (format === "sum") {
      // relpos.text.hover._Fields.sum: "left + (right) = total", adding up as printed
      const [left, right, total] = name.split(/[+=]/).map((part) => cell[part]);
      return (i, j) => sumText(left(i, j), right(i, j), total(i, j));
    }
    const vector = /^([qka])(\d+)$/.exec(name); // q_i, k_j or the table row a^K_clip(j-i), feature c
    const get = vector ? vectorField(vector[1], Number(vector[2]), queries, keys, table, k) : cell[name];
    return asText ? (i, j) => formatField(get(i, j), format) : get;
  });
  return queries.map((_, i) => keys.map((_, j) => getters.map((get) => get(i, j)))); // (n_q, n_k, fields)
}

// relpos.text.hover.sum_text: the fewest decimals (at least 2) at which the printed terms
// add up to the printed total (relpos.text.facts.decimals_adding_up), then the sum.
export function sumText(left, right, total) {
  let places = 2;
  while (places < 17 && shown(shown(left, places) + shown(right, places), places) !== shown(total, places)) places += 1;
  return `${formatFixed(left, places)} + (${formatFixed(right, places)}) = ${formatFixed(total, places)}`;
}

// relpos.text.facts.printed: a value as formatFixed prints it, read back.
function shown(value, decimals) {
  return Number(formatFixed(value, decimals).replace("−", "-"));
}

function vectorField(letter, c, queries, keys, table, k) {
  if (letter === "q") return (i) => queries[i][c];
  if (letter === "k") return (i, j) => keys[j][c];
  return (i, j) => table[clip(j - i, k) + k][c];
}

// relpos.text.hover._number (which writes with relpos.text.numbers.number): "+d" signs
// offsets (0 unsigned), ".Nf" as formatFixed.
export function formatField(value, format) {
  if (format === "+d") return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0";
  const fixed = /^\.(\d+)f$/.exec(format);
  return fixed ? formatFixed(value, Number(fixed[1])) : String(value).replace("-", "−");
}

// relpos.text.numbers.number(value, N), as relpos.text.hover.format_cells uses it for
// ".Nf": Python's rounding (the exact binary value, ties to even: 0.125 -> "0.12", where
// toFixed says "0.13"), a true minus sign, and a
// value that rounds to zero prints unsigned ("0.00", never "−0.00").
export function formatFixed(value, decimals) {
  const scaled = Math.abs(value) * 10 ** decimals;
  const tie = Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6; // maybe exactly halfway
  const text = tie ? roundHalfEven(value, decimals) : value.toFixed(decimals);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace("-", "−");
}

// A possible tie: round the exact decimal expansion of the double (toFixed(100) is exact
// for the magnitudes shown here) half to even, as Python's format() does.
function roundHalfEven(value, decimals) {
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf(".");
  const kept = exact.slice(0, point) + exact.slice(point + 1, point + 1 + decimals); // digits kept
  const rest = exact.slice(point + 1 + decimals); // digits dropped
  const odd = Number(kept[kept.length - 1]) % 2 === 1;
  const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || odd));
  const digits = (BigInt(kept) + (up ? 1n : 0n)).toString().padStart(decimals + 1, "0");
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return value < 0 ? `-${text}` : text;
}
