// The running example step by step: X (entries the reader changes) through
// Q = X W_Q, K = X W_K, V = X W_V, the scores S = Q Kᵀ / √d_k, the weights
// A = softmax(S) row by row, and the output Z = A V. Choosing an entry z_ij
// shows the row of weights and the column of values that made it.
import {
  announce, dataNode, esc, fill, fmt, frame, matmul, matrix, message, register, show, softmax,
  status, sub, templates, transpose, words,
} from "./core.js";

// data: the running example's X (n × d_model) and W_Q, W_K, W_V.
export function render(w, data) {
  const n = data.x.length;
  const labels = (symbol) => data.x.map((_, i) => sub(symbol, i + 1));
  const dims = data.x[0].map((_, j) => String(j + 1));
  // X's entries, which the reader rewrites.
  const entry = (i, j, attrs) =>
    `<td${attrs}><input type="number" step="1" value="${data.x[i][j]}" ` +
    `aria-label="${esc(message(w.entry, { i: i + 1, j: j + 1 }))}" data-x disabled inputmode="decimal"></td>`;
  // Z's entries, buttons named by their number, in the table's row z_i and column j.
  const pick = (i, j, attrs) =>
    `<td${attrs}><button type="button" aria-pressed="false" data-value="0" disabled>0</button></td>`;
  const keys = labels("k").slice(0, n);
  const tables =
    '<div class="explorable-tables">' +
    matrix("x", w.x, labels("x"), dims, { cell: entry }) +
    matrix("q", w.q, labels("q"), dims) +
    matrix("k", w.k, labels("k"), dims) +
    matrix("v", w.v, labels("v"), dims) +
    matrix("scores", w.scores, labels("q"), keys) +
    matrix("weights", w.weights, labels("q"), keys) +
    matrix("output", w.output, labels("z"), dims, { cell: pick }) + "</div>";
  const weights = { w_q: data.w_q, w_k: data.w_k, w_v: data.w_v };
  return frame("example", w, dataNode(weights) + tables + status() + templates(w, "hint", "sum"));
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inputs = [...root.querySelectorAll("input[data-x]")];
  const picks = [...root.querySelectorAll('[data-matrix="output"] button')];
  const table = (key) => root.querySelector(`[data-matrix="${key}"]`);
  let state = null;
  let chosen = null;

  const highlight = () => {
    for (const cell of root.querySelectorAll(".explorable-on")) cell.classList.remove("explorable-on");
    for (const b of picks) b.setAttribute("aria-pressed", "false");
    if (!chosen) return announce(root, words(root, "hint"));
    const [i, j] = chosen;
    picks.find((b) => b.closest("td").dataset.i === String(i) && b.closest("td").dataset.j === String(j))
      .setAttribute("aria-pressed", "true");
    for (const cell of table("weights").querySelectorAll(`td[data-i="${i}"]`)) cell.classList.add("explorable-on");
    for (const cell of table("v").querySelectorAll(`td[data-j="${j}"]`)) cell.classList.add("explorable-on");
    // z_ij = sum_p A_ip V_pj
    const terms = state.weights[i].map((a, p) => `${fmt(a, 3)} × ${fmt(state.v[p][j], 2)}`);
    announce(root, message(words(root, "sum"), {
      i: i + 1, j: j + 1, terms: terms.join(" + "), value: fmt(state.output[i][j], 3),
    }));
  };

  const update = () => {
    const x = [];
    for (const input of inputs) {
      const td = input.closest("td");
      (x[td.dataset.i] ??= [])[td.dataset.j] = Number(input.value) || 0;
    }
    const q = matmul(x, data.w_q); // (n, d_model) @ (d_model, d_k) -> (n, d_k)
    const k = matmul(x, data.w_k);
    const v = matmul(x, data.w_v);
    const scale = 1 / Math.sqrt(q[0].length);
    const scores = matmul(q, transpose(k)).map((row) => row.map((s) => scale * s)); // Q Kᵀ / √d_k
    const weights = scores.map(softmax); // softmax of each row
    const output = matmul(weights, v); // (n, n) @ (n, d_v) -> (n, d_v)
    state = { q, k, v, scores, weights, output };
    for (const key of ["q", "k", "v"]) fill(root, key, state[key], 2);
    fill(root, "scores", scores, 3);
    fill(root, "weights", weights, 3);
    for (const b of picks) {
      const td = b.closest("td");
      show(b, output[td.dataset.i][td.dataset.j], 3);
    }
    highlight();
  };

  for (const input of inputs) input.addEventListener("input", update);
  for (const b of picks) {
    b.addEventListener("click", () => {
      const td = b.closest("td");
      const pick = [Number(td.dataset.i), Number(td.dataset.j)];
      chosen = chosen && chosen[0] === pick[0] && chosen[1] === pick[1] ? null : pick;
      highlight();
    });
  }
  update();
}

register("example", mount);
