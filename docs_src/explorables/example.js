// The running example step by step: X (entries the reader changes) through
// Q = X W_Q, K = X W_K, V = X W_V, the scores S = Q Kᵀ / √d_k, the weights
// A = softmax(S) row by row, and the output Z = A V, each matrix in its
// colour in the book's figures, S and A as heat maps. Pointing at a score
// s_ij or a weight a_ij (or focusing it) lights up q_i and k_j, marks s_ij
// and a_ij and their query's rows of S and A (the softmax is taken over the
// row), draws the products q_ip k_jp as bars beside the score they sum to
// (the strip, under the tables) and writes s_ij and a_ij term by term;
// choosing an entry z_ij marks the rows of scores and weights and the
// column of values that made it. W_Q, W_K, W_V are shown beside X, and
// pointing at an entry of Q, K or V marks the row of X and the column of W
// it is made of. A's colours are fixed (the weight, 0 to 1), with a legend.
import {
  announce, dataNode, esc, fill, fmt, frame, linkCells, matmul, matrix, message, register, said, show, softmax,
  speak, status, sub, templates, transpose, words,
} from "./core.js";

// The strip's drawing: one bar a product q_ip k_jp, then (past a rule) the
// score s_ij they make, (Σ_p q_ip k_jp) / √d_k, on one scale from a zero
// line: near the foot when no value is negative, near the top when none is
// positive, in the middle otherwise. A fixed viewBox: nothing moves.
const STRIP = { width: 300, height: 124, slot: 48, bar: 28 };

function drawStrip(svg, products, score) {
  const values = [...products, score];
  const [up, down] = [values.some((v) => v > 0), values.some((v) => v < 0)];
  const zero = up && down ? 62 : down ? 20 : 100;
  const reach = up && down ? 38 : 78;
  const unit = reach / Math.max(1e-300, ...values.map(Math.abs));
  const num = (v) => v.toFixed(2);
  const rule = 10 + products.length * STRIP.slot + 4;
  const parts = [
    `<line class="explorable-zero" x1="4" x2="${STRIP.width - 4}" y1="${zero}" y2="${zero}"></line>`,
    `<line class="explorable-zero" x1="${rule}" x2="${rule}" y1="4" y2="${STRIP.height - 16}" stroke-dasharray="3 3"></line>`,
  ];
  values.forEach((v, p) => {
    const last = p === products.length;
    const x = 10 + p * STRIP.slot + (last ? 12 : 0);
    const h = Math.abs(v) * unit;
    const top = v >= 0 ? zero - h : zero;
    const label = v >= 0 ? top - 4 : top + h + 12;
    const half = STRIP.bar / 2;
    const bar = last
      ? `<rect class="explorable-strip-s" x="${x}" y="${num(top)}" width="${STRIP.bar}" height="${num(h)}"></rect>`
      : `<rect class="explorable-strip-q" x="${x}" y="${num(top)}" width="${half}" height="${num(h)}"></rect>` +
        `<rect class="explorable-strip-k" x="${x + half}" y="${num(top)}" width="${half}" height="${num(h)}"></rect>`;
    // the value over (under) its bar, moved in from the drawing's edges so
    // that a long one ("1.00 × 10⁸") is never cut (r47); 7 units a character
    const text = fmt(v, last ? 3 : 2);
    const room = (text.length * 7) / 2 + 2;
    const centre = Math.min(STRIP.width - room, Math.max(room, x + half));
    parts.push(`<g ${last ? "data-score-bar" : `data-product="${p}"`} data-value="${v}">${bar}` +
      `<text x="${num(centre)}" y="${num(label)}" text-anchor="middle">${text}</text>` +
      `<text class="explorable-strip-name" x="${x + half}" y="${STRIP.height - 2}" text-anchor="middle">` +
      `${last ? "s" : `p = ${p + 1}`}</text></g>`);
  });
  svg.innerHTML = parts.join("");
}

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
  // S with the range its colours span, under it.
  const range = `<p class="explorable-range-note" data-s-range>${w.s_range}</p>`;
  const keys = labels("k").slice(0, n);
  const shaded = (key, html) => html.replace('class="explorable-matrix"', `class="explorable-matrix explorable-fill-${key}"`);
  // W_Q, W_K, W_V, small, between X and what they make of it.
  const projections = '<div class="explorable-tables explorable-projections">' +
    ["w_q", "w_k", "w_v"].map((key) => matrix(key, w[key], dims, dims)).join("") + "</div>";
  // A with its fixed legend: the colour is the weight, 0 to 1, whatever X.
  const legend = `<p class="explorable-range-note" data-a-range>${message(w.a_range, {
    ramp: '<span class="explorable-ramp" aria-hidden="true"></span>' })}</p>`;
  const tables =
    '<div class="explorable-tables">' +
    shaded("x", matrix("x", w.x, labels("x"), dims, { cell: entry })) + projections +
    shaded("q", matrix("q", w.q, labels("q"), dims)) +
    shaded("k", matrix("k", w.k, labels("k"), dims)) +
    shaded("v", matrix("v", w.v, labels("v"), dims)) +
    `<div>${shaded("s", matrix("scores", w.scores, labels("q"), keys, { cell: button("score") }))}${range}</div>` +
    `<div>${shaded("a", matrix("weights", w.weights, labels("q"), keys, { cell: button("weight") }))}${legend}</div>` +
    shaded("z", matrix("output", w.output, labels("z"), dims, { cell: button("pick") })) + "</div>";
  const weights = { w_q: data.w_q, w_k: data.w_k, w_v: data.w_v };
  const error = '<p class="explorable-error" id="explorable-example-error" data-error hidden></p>';
  // The products of the score in view, drawn (aria-hidden: the terms say them).
  const strip =
    `<div class="explorable-strip" aria-hidden="true"><p class="explorable-chart-title">${w.strip}</p>` +
    `<svg data-strip viewBox="0 0 ${STRIP.width} ${STRIP.height}" focusable="false"></svg></div>`;
  return frame("example", w, dataNode(weights) + error + tables +
    `<div class="explorable-detail">${strip}<p class="explorable-terms" id="explorable-example-terms"></p></div>` +
    `<p class="explorable-note">${w.terms_hint}</p>` + status() +
    templates(w, "hint", "sum", "pick", "score", "weight", "terms", "weight_terms", "s_range", "empty",
      "too_large", "underflow"));
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inputs = [...root.querySelectorAll("input[data-x]")];
  const picks = [...root.querySelectorAll("button[data-pick]")];
  const scoreButtons = [...root.querySelectorAll("button[data-score]")];
  const weightButtons = [...root.querySelectorAll("button[data-weight]")];
  const strip = root.querySelector("[data-strip]");
  const range = root.querySelector("[data-s-range]");
  const table = (key) => root.querySelector(`[data-matrix="${key}"]`);
  const terms = root.querySelector(".explorable-terms");
  const error = root.querySelector("[data-error]");
  const at = (b) => [Number(b.closest("td").dataset.i), Number(b.closest("td").dataset.j)];
  let state = null;
  let chosen = null;
  let pointed = null; // the score or weight under the pointer or the focus
  let shown = [0, 0]; // the score the strip and the terms show: the last pointed
  let later = null;
  // A weight in words for a label: below 10^−308 said as the live region says it.
  const weight = (a) => (a === 0 ? said(root, words(root, "underflow")) : fmt(a, 3));

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
    for (const key of ["scores", "weights"]) {
      for (const cell of table(key).querySelectorAll(`td[data-i="${i}"]`)) cell.classList.add("explorable-on");
    }
    for (const cell of table("v").querySelectorAll(`td[data-j="${j}"]`)) cell.classList.add("explorable-on");
    // z_ij = sum_p A_ip V_pj
    const products = state.weights[i].map((a, p) => `${fmt(a, 3)} × ${fmt(state.v[p][j], 2)}`);
    say(message(words(root, "sum"), {
      i: i + 1, j: j + 1, terms: products.join(" + "), value: fmt(state.output[i][j], 3),
    }), wait);
  };

  // The score or weight the reader points at: q_i's and k_j's rows lit,
  // s_ij and a_ij marked, and their query's rows of S and A framed. The
  // strip and the terms show the last one pointed at (s_11 at first):
  // s_ij = (Σ_p q_ip k_jp) / √d_k, and a_ij = e^{s_ij} / Σ_l e^{s_il}.
  const point = () => {
    for (const cell of root.querySelectorAll(".explorable-linked, .explorable-row")) {
      cell.classList.remove("explorable-linked", "explorable-row");
    }
    if (!state) {
      terms.textContent = "";
      strip.innerHTML = "";
      return;
    }
    if (pointed) {
      shown = pointed;
      const [i, j] = pointed;
      const mark = (key, selector, name) => {
        for (const cell of table(key).querySelectorAll(selector)) cell.classList.add(name);
      };
      mark("q", `td[data-i="${i}"]`, "explorable-linked");
      mark("k", `td[data-i="${j}"]`, "explorable-linked");
      for (const key of ["scores", "weights"]) {
        mark(key, `td[data-i="${i}"]:not([data-j="${j}"])`, "explorable-row");
        mark(key, `td[data-i="${i}"][data-j="${j}"]`, "explorable-linked");
      }
    }
    const [i, j] = shown;
    const products = state.q[i].map((x, p) => x * state.k[j][p]); // q_ip k_jp
    drawStrip(strip, products, state.scores[i][j]);
    const written = state.q[i].map((x, p) => `${fmt(x, 2)} × ${fmt(state.k[j][p], 2)}`);
    const e = (s) => `e<sup>${fmt(s, 3)}</sup>`;
    speak(terms, message(words(root, "terms"), {
      i: i + 1, j: j + 1, terms: written.join(" + "),
      root: fmt(Math.sqrt(state.q[0].length), 2), value: fmt(state.scores[i][j], 3),
    }) + "<br>" + message(words(root, "weight_terms"), {
      i: i + 1, j: j + 1, value: state.weights[i][j] === 0 ? words(root, "underflow") : fmt(state.weights[i][j], 3),
      terms: `${e(state.scores[i][j])} / (${state.scores[i].map(e).join(" + ")})`,
    }));
  };

  // The reader's X refused where it cannot be computed with: the entry is
  // named, marked invalid, and every matrix computed from X shows "—" (X
  // itself and W_Q, W_K, W_V, which do not depend on it, keep their numbers).
  const refuse = (input, template, wait) => {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", error.id);
    speak(error, message(template, { entry: input.getAttribute("aria-label") }));
    error.hidden = false;
    state = null;
    for (const cell of root.querySelectorAll('[data-matrix] td[data-i]')) {
      if (cell.closest('[data-matrix="x"], [data-matrix^="w_"]')) continue;
      const shown = cell.querySelector("button") || cell;
      shown.dataset.value = "";
      shown.textContent = "\u2014";
      cell.style.removeProperty("--w");
    }
    for (const b of [...scoreButtons, ...weightButtons, ...picks]) b.removeAttribute("aria-label");
    range.textContent = "\u2014";
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
    // The heat maps: A's colour is the weight; S's, the score's place
    // between the smallest and the largest score, said under S.
    const low = Math.min(...scores.flat());
    const high = Math.max(...scores.flat());
    const span = high - low;
    range.textContent = message(words(root, "s_range"), { low: fmt(low, 3), high: fmt(high, 3) });
    for (const b of weightButtons) {
      const [i, j] = at(b);
      // A weight float64 rounds to 0 is said to be below 10^−308, as the
      // softmax figure says it, not "0.000".
      if (weights[i][j] === 0) {
        b.dataset.value = "0";
        speak(b, words(root, "underflow"));
      } else show(b, weights[i][j], 3);
      b.setAttribute("aria-label", message(words(root, "weight"), { i: i + 1, j: j + 1, value: weight(weights[i][j]) }));
    }
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

  // W_Q, W_K, W_V as the page gives them (whole numbers in the example).
  for (const key of ["w_q", "w_k", "w_v"]) {
    fill(root, key, data[key], data[key].flat().every(Number.isInteger) ? 0 : 2);
  }
  // Pointing at an entry of Q (K, V) marks what it is made of: row i of X
  // and column j of W_Q (W_K, W_V), q_ij = Σ_p x_ip (W_Q)_pj.
  for (const key of ["q", "k", "v"]) {
    for (const td of table(key).querySelectorAll("td[data-i]")) {
      td.addEventListener("pointerenter", () => {
        for (const [other, selector] of [[key, `td[data-i="${td.dataset.i}"][data-j="${td.dataset.j}"]`],
          ["x", `td[data-i="${td.dataset.i}"]`], [`w_${key}`, `td[data-j="${td.dataset.j}"]`]]) {
          for (const cell of table(other).querySelectorAll(selector)) cell.classList.add("explorable-source");
        }
      });
      td.addEventListener("pointerleave", () => {
        for (const cell of root.querySelectorAll(".explorable-source")) cell.classList.remove("explorable-source");
      });
    }
  }
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
  for (const buttons of [scoreButtons, weightButtons]) {
    linkCells(buttons, (b) => { pointed = b ? at(b) : null; point(); }, { rows: () => n, last: () => n - 1 });
  }
  const width = table("output").querySelectorAll("tbody tr:first-child td").length;
  linkCells(picks, () => {}, { rows: () => n, last: () => width - 1 });
  update();
}

register("example", mount);
