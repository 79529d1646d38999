// The running example step by step: X (entries the reader changes) through
// Q = X W_Q, K = X W_K, V = X W_V, the scores S = Q Kᵀ / √d_k, the weights
// A = softmax(S) row by row, and the output Z = A V. Choosing an entry z_ij
// shows the row of weights and the column of values that made it.
import { announce, fill, fmt, matmul, message, register, show, softmax, transpose, words } from "./core.js";

register("example", (root) => {
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
});
