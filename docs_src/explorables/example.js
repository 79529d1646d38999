// The running example step by step: X (entries the reader changes) through
// Q = X W_Q, K = X W_K, V = X W_V, the scores S = Q Kᵀ / √d_k, the weights
// A = softmax(S) row by row, and the output Z = A V, each matrix in its
// colour in the book's figures, S and A as heat maps. Pointing at a score
// s_ij (or focusing it) lights up q_i and k_j and writes the products that
// make it; choosing an entry z_ij marks the row of weights and the column
// of values that made it.
import {
  announce, dataNode, esc, fill, fmt, frame, linkCells, matmul, matrix, message, register, show, softmax,
  speak, status, sub, templates, transpose, words,
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
  // S's and Z's entries are buttons, named in words by mount(); each grid is
  // one Tab stop (its first entry), the arrow keys move within it (linkCells).
  const button = (kind) => (i, j, attrs) =>
    `<td${attrs}><button type="button" data-${kind} tabindex="${i === 0 && j === 0 ? 0 : -1}" ` +
    (kind === "pick" ? 'aria-pressed="false"' : 'aria-describedby="explorable-example-terms"') +
    ' data-value="0" disabled>0</button></td>';
  const keys = labels("k").slice(0, n);
  const shaded = (key, html) => html.replace('class="explorable-matrix"', `class="explorable-matrix explorable-fill-${key}"`);
  const tables =
    '<div class="explorable-tables">' +
    shaded("x", matrix("x", w.x, labels("x"), dims, { cell: entry })) +
    shaded("q", matrix("q", w.q, labels("q"), dims)) +
    shaded("k", matrix("k", w.k, labels("k"), dims)) +
    shaded("v", matrix("v", w.v, labels("v"), dims)) +
    shaded("s", matrix("scores", w.scores, labels("q"), keys, { cell: button("score") })) +
    shaded("a", matrix("weights", w.weights, labels("q"), keys)) +
    shaded("z", matrix("output", w.output, labels("z"), dims, { cell: button("pick") })) + "</div>";
  const weights = { w_q: data.w_q, w_k: data.w_k, w_v: data.w_v };
  const error = '<p class="explorable-error" id="explorable-example-error" data-error hidden></p>';
  return frame("example", w, dataNode(weights) + error + tables +
    `<p class="explorable-terms" id="explorable-example-terms">${w.terms_hint}</p>` + status() +
    templates(w, "hint", "sum", "pick", "score", "terms", "terms_hint", "empty", "too_large"));
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inputs = [...root.querySelectorAll("input[data-x]")];
  const picks = [...root.querySelectorAll("button[data-pick]")];
  const scoreButtons = [...root.querySelectorAll("button[data-score]")];
  const table = (key) => root.querySelector(`[data-matrix="${key}"]`);
  const terms = root.querySelector(".explorable-terms");
  const error = root.querySelector("[data-error]");
  const at = (b) => [Number(b.closest("td").dataset.i), Number(b.closest("td").dataset.j)];
  let state = null;
  let chosen = null;
  let pointed = null;
  let later = null;

  // Say `html` now, or after the reader has stopped typing for a moment
  // (one announcement, not one a keystroke).
  const say = (html, wait = false) => {
    clearTimeout(later);
    if (wait) later = setTimeout(() => announce(root, html), 600);
    else announce(root, html);
  };

  const highlight = (wait = false) => {
    for (const cell of root.querySelectorAll(".explorable-on")) cell.classList.remove("explorable-on");
    for (const b of picks) b.setAttribute("aria-pressed", "false");
    if (!state) return say(error.innerHTML, wait);
    if (!chosen) return say(words(root, "hint"), wait);
    const [i, j] = chosen;
    picks.find((b) => at(b)[0] === i && at(b)[1] === j).setAttribute("aria-pressed", "true");
    for (const cell of table("weights").querySelectorAll(`td[data-i="${i}"]`)) cell.classList.add("explorable-on");
    for (const cell of table("v").querySelectorAll(`td[data-j="${j}"]`)) cell.classList.add("explorable-on");
    // z_ij = sum_p A_ip V_pj
    const products = state.weights[i].map((a, p) => `${fmt(a, 3)} × ${fmt(state.v[p][j], 2)}`);
    say(message(words(root, "sum"), {
      i: i + 1, j: j + 1, terms: products.join(" + "), value: fmt(state.output[i][j], 3),
    }), wait);
  };

  // The score the reader points at: q_i's and k_j's rows lit, and
  // s_ij = (Σ_p q_ip k_jp) / √d_k written term by term.
  const point = () => {
    for (const cell of root.querySelectorAll(".explorable-linked")) cell.classList.remove("explorable-linked");
    if (!pointed || !state) {
      terms.textContent = words(root, "terms_hint");
      return;
    }
    const [i, j] = pointed;
    for (const cell of table("q").querySelectorAll(`td[data-i="${i}"]`)) cell.classList.add("explorable-linked");
    for (const cell of table("k").querySelectorAll(`td[data-i="${j}"]`)) cell.classList.add("explorable-linked");
    for (const cell of table("scores").querySelectorAll(`td[data-i="${i}"][data-j="${j}"]`)) {
      cell.classList.add("explorable-linked");
    }
    const products = state.q[i].map((x, p) => `${fmt(x, 2)} × ${fmt(state.k[j][p], 2)}`);
    speak(terms, message(words(root, "terms"), {
      i: i + 1, j: j + 1, terms: products.join(" + "),
      root: fmt(Math.sqrt(state.q[0].length), 2), value: fmt(state.scores[i][j], 3),
    }));
  };

  // The reader's X refused where it cannot be computed with: the entry is
  // named, marked invalid, and every matrix computed from X shows "—".
  const refuse = (input, template, wait) => {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", error.id);
    speak(error, message(template, { entry: input.getAttribute("aria-label") }));
    error.hidden = false;
    state = null;
    for (const cell of root.querySelectorAll('[data-matrix] td[data-i]')) {
      if (cell.closest('[data-matrix="x"]')) continue;
      const shown = cell.querySelector("button") || cell;
      shown.dataset.value = "";
      shown.textContent = "\u2014";
      cell.style.removeProperty("--w");
    }
    for (const b of [...scoreButtons, ...picks]) b.removeAttribute("aria-label");
    highlight(wait);
    point();
  };

  const update = (wait = false) => {
    const x = [];
    for (const input of inputs) {
      const td = input.closest("td");
      input.setAttribute("aria-invalid", "false");
      input.removeAttribute("aria-describedby");
      (x[td.dataset.i] ??= [])[td.dataset.j] = input.value.trim() === "" ? NaN : Number(input.value);
    }
    const bad = inputs.find((input) => !Number.isFinite(x[input.closest("td").dataset.i][input.closest("td").dataset.j]));
    if (bad) return refuse(bad, words(root, "empty"), wait);
    const q = matmul(x, data.w_q); // (n, d_model) @ (d_model, d_k) -> (n, d_k)
    const k = matmul(x, data.w_k);
    const v = matmul(x, data.w_v);
    const scale = 1 / Math.sqrt(q[0].length);
    const scores = matmul(q, transpose(k)).map((row) => row.map((s) => scale * s)); // Q Kᵀ / √d_k
    if (![...scores.flat(), ...v.flat()].every(Number.isFinite)) {
      // Past float64's largest number: the entry of largest magnitude is named.
      const size = (input) => Math.abs(Number(input.value));
      return refuse(inputs.reduce((a, b) => (size(b) > size(a) ? b : a)), words(root, "too_large"), wait);
    }
    error.hidden = true;
    error.innerHTML = "";
    const weights = scores.map(softmax); // softmax of each row
    const output = matmul(weights, v); // (n, n) @ (n, d_v) -> (n, d_v)
    state = { q, k, v, scores, weights, output };
    for (const key of ["q", "k", "v"]) fill(root, key, state[key], 2);
    fill(root, "weights", weights, 3);
    // The heat maps: A's colour is the weight; S's, the score's place
    // between the smallest and the largest score.
    const low = Math.min(...scores.flat());
    const span = Math.max(...scores.flat()) - low;
    for (const b of scoreButtons) {
      const [i, j] = at(b);
      show(b, scores[i][j], 3);
      b.closest("td").style.setProperty("--w", String(span > 0 ? (scores[i][j] - low) / span : 0.5));
      b.setAttribute("aria-label", message(words(root, "score"), { i: i + 1, j: j + 1, value: fmt(scores[i][j], 3) }));
    }
    for (const td of table("weights").querySelectorAll("td[data-i]")) {
      td.style.setProperty("--w", String(weights[td.dataset.i][td.dataset.j]));
    }
    for (const b of picks) {
      const [i, j] = at(b);
      show(b, output[i][j], 3);
      b.setAttribute("aria-label", message(words(root, "pick"), { i: i + 1, j: j + 1, value: fmt(output[i][j], 3) }));
    }
    highlight(wait);
    point();
  };

  for (const input of inputs) input.addEventListener("input", () => update(true));
  for (const b of picks) {
    b.addEventListener("click", () => {
      const pick = at(b);
      chosen = chosen && chosen[0] === pick[0] && chosen[1] === pick[1] ? null : pick;
      highlight();
    });
  }
  // Pointing at a score or focusing it lights up its q and k; the arrow
  // keys, Home and End move through each grid (one Tab stop a grid).
  const n = table("scores").querySelectorAll("tbody tr").length; // queries (and keys)
  linkCells(scoreButtons, (b) => { pointed = b ? at(b) : null; point(); }, { rows: () => n, last: () => n - 1 });
  const width = table("output").querySelectorAll("tbody tr:first-child td").length;
  linkCells(picks, () => {}, { rows: () => n, last: () => width - 1 });
  update();
}

register("example", mount);
