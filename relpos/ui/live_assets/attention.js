// The Explorer's numbers in the browser: a mirror of relpos.core, not a second truth.
//
// Every function below names the Python function it mirrors; tests/test_live_panel.py
// checks what the browser draws against relpos.relative_attention and
// relpos.scalar_bias_attention on random states (max abs difference <= 1e-12).
// Index letters as in the core: i query, j key, c feature, r table row; offset = j - i.
// Arrays are plain row-major Arrays of float64 numbers: queries (n, d), keys (n, d),
// table (2k+1, d).

// relpos.core.attention.relative_offsets + clip_offsets:
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

// relpos.text.hover.format_cells for ".Nf": Python's rounding (the exact binary value,
// ties to even: 0.125 -> "0.12", where toFixed says "0.13"), a true minus sign, and a
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
