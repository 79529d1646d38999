// Multi-head attention on one of two inputs (the heads that look at
// different tokens, shown first, or the running example): h heads of width
// d_k = d_model / h; head i takes columns (i−1)d_k+1 … i d_k of Q, K and V,
// has its own weights A_i = softmax(Q_i K_iᵀ / √d_k), and its output head_i =
// A_i V_i. The output Concat(head_1, …, head_h) W^O is Σ_i head_i W^O_i.
// Each head's weights are a heat map in that head's colour in the page's
// figures (diagrams.FILLS head1, head2, …), its rows the queries and its
// columns the keys in words; Q, K, V and Concat in the heads' colours by
// column. Pointing at (or focusing) head g's cell (i, j) lights up, in head
// g's columns, query i's row of Q and key j's row of K, and writes the score
// they make, term by term, (q_i · k_j) / √d_k; it lights the value v_j the
// weight multiplies and query i's row of Concat and of head_g W^O_g, which
// it goes into, and the output's row z_i; it marks the same query and key in every other head and
// says all their weights. Beside the heads, the weights of one head over all
// d_model columns (h = 1), A = softmax(Q Kᵀ / √d_model), in A's colour: what
// splitting into heads changes. Its score is the heads' scores summed over
// √h, Σ_g s_g / √h; pointing at its cell (i, j) writes both and marks the
// same cell in every head. A head's block of W^O is zeroed and kept again by
// its button or by pressing the block itself.
import {
  announce, cellAt, dataNode, esc, field, fill, fmt, frame, linkCells, matmul, matrix, message,
  optionList, register, show, softmax, speak, status, sub, templates, transpose, words,
} from "./core.js";

// The weights the maps' colour scale shows, in even steps (the ramp is
// linear in the weight up to 0.6, where it has done nine tenths of its way,
// so 0.8 and 1 lie close).
const SCALE = [0, 0.2, 0.4, 0.6, 0.8, 1];

// data: the inputs (each X, W_Q, W_K, W_V) and the one shown first (input);
// the page's W^O choices (w_o), the head counts to offer (counts) and the
// one shown first (h).
export function render(w, data) {
  const most = Math.max(...data.counts);
  const x = data.inputs[data.input].x;
  const dModel = x[0].length;
  const controls =
    '<div class="explorable-controls">' +
    field(w.input, `<select data-input disabled>${optionList(Object.keys(data.inputs), data.input, w)}</select>`) +
    field(`d<sub>model</sub> = ${dModel}、${w.h}`,
      `<select data-h disabled>${optionList(data.counts, data.h)}</select>`) +
    field(w.w_o, `<select data-w-o disabled>${optionList(Object.keys(data.w_o), data.w_o_name, w)}</select>`) +
    "</div>";
  // Rows by what they are: Q's rows the queries q_i, the output's rows z_i
  // (as the scaled-dot-product figure names them), the rows between them
  // (Concat, head_i W^O_i) by their query in words.
  const rowsOf = (symbol) => x.map((_, i) => sub(symbol, i + 1));
  const dims = x[0].map((_, j) => String(j + 1));
  const queries = x.map((_, i) => esc(message(w.query, { i: i + 1 })));
  const keys = x.map((_, j) => esc(message(w.key, { j: j + 1 })));
  // A head's weight: a button (named by mount()) that covers its cell; one
  // button a map is in the Tab order, the arrow keys move inside the map.
  const weight = (g) => (i, j, attrs) =>
    `<td${attrs}><button type="button" data-weight data-head="${g}" ` +
    `tabindex="${i === 0 && j === 0 ? 0 : -1}" data-value="0" disabled>0</button></td>`;
  const hide = (i) => (i < data.h ? "" : " hidden");
  // one head over every column (h = 1), first, in A's colour (data-head="a")
  const single = matrix("single", w.single, queries, keys, { cell: weight("a") })
    .replace('<table class="explorable-matrix"',
      '<table class="explorable-matrix explorable-head-map explorable-single-map" data-head="a"');
  const maps = [...Array(most).keys()].map((g) =>
    matrix(`weights${g}`, message(w.weights, { i: g + 1 }), queries, keys, { cell: weight(g) })
      .replace('<table class="explorable-matrix"',
        `<table${hide(g)} class="explorable-matrix explorable-head-map" data-head="${g}"`)).join("");
  const terms = [...Array(most).keys()].map((g) =>
    matrix(`term${g}`, message(w.term, { i: g + 1 }), queries, dims)
      .replace('<table class="explorable-matrix"',
        `<table${hide(g)} class="explorable-matrix explorable-head-fill" data-head="${g}"`)).join("");
  const legend = `<p class="explorable-note">${w.legend}</p>`;
  // The maps' colour scale: each shown head's tones at the weights of
  // SCALE, drawn by the maps' own rule (explorables.css), so that a cell's
  // colour can be read off and the heads compared (the same weight, the
  // same lightness). Seen only: every weight is written in its cell.
  const scaleRow = (name, head, hidden = "") =>
    `<div class="explorable-head-scale-row" data-head="${head}"${hidden}>` +
    `<span class="explorable-head-scale-name">${name}</span>` +
    SCALE.map((a) => `<span data-w style="--w: ${a}">${a}</span>`).join("") + "</div>";
  const scale = '<div class="explorable-head-scale" aria-hidden="true">' +
    `<p>${w.scale}</p>` + scaleRow(w.single_short, "a") + [...Array(most).keys()].map((g) =>
    scaleRow(message(w.use_head, { g: g + 1 }), g, hide(g))).join("") + "</div>";
  // W^O drawn, its rows in the colour of the head whose block W^O_i they
  // are; a button a head keeps or zeroes its block (aria-pressed: kept).
  const uses = [...Array(most).keys()].map((g) =>
    `<button type="button" data-use="${g}" data-head="${g}" aria-pressed="true"${hide(g)} disabled>` +
    `${message(w.use_head, { g: g + 1 })}</button>`).join("");
  const wO = '<div class="explorable-w-o">' +
    '<div class="explorable-controls explorable-uses" role="group" aria-labelledby="explorable-heads-use">' +
    `<span id="explorable-heads-use">${w.use}</span>${uses}</div>${matrix("w_o", w.w_o_matrix, dims, dims)}</div>`;
  return frame("heads", w,
    dataNode({ inputs: data.inputs, w_o: data.w_o }) + controls +
    `<div class="explorable-tables">${matrix("q", w.q, rowsOf("q"), dims)}` +
    `${matrix("k", w.k, rowsOf("k"), dims)}${matrix("v", w.v, rowsOf("v"), dims)}</div>` + legend + scale +
    `<div class="explorable-tables explorable-head-maps">${single}${maps}</div>` +
    `<p class="explorable-terms explorable-terms-tall" data-linked-said>${w.linked_hint}</p>` +
    `<div class="explorable-tables">${matrix("concat", w.concat, queries, dims)}${wO}` +
    `${terms}${matrix("output", w.output, rowsOf("z"), dims)}</div>` +
    status() + templates(w, "status", "cell", "linked", "linked_head", "linked_hint", "most", "most_tie", "score",
      "dropped", "kept", "single_cell", "single_score", "single_sum", "linked_single"));
}

const columns = (a, from, to) => a.map((row) => row.slice(from, to));

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inSelect = root.querySelector("select[data-input]");
  const hSelect = root.querySelector("select[data-h]");
  const wSelect = root.querySelector("select[data-w-o]");
  const table = (key) => root.querySelector(`[data-matrix="${key}"]`);
  const most = root.querySelectorAll('[data-matrix^="weights"]').length;
  const said = root.querySelector("[data-linked-said]");
  let state = null;
  let pointed = null; // [head, query, key] under the pointer or the focus; head −1: h = 1
  const off = new Set(); // the heads whose block of W^O the reader zeroed
  const useButtons = [...root.querySelectorAll("button[data-use]")];
  const useLabel = root.querySelector("#explorable-heads-use");
  speak(useLabel, useLabel.innerHTML); // "W<sup>O</sup>" said in words

  // Query i's weight on key j in every shown head, then with one head (h = 1).
  const weightsAt = (i, j) => [
    ...state.heads.map(({ weights }, g) =>
      message(words(root, "linked_head"), { g: g + 1, weight: fmt(weights[i][j], 3) })),
    message(words(root, "linked_single"), { weight: fmt(state.single.weights[i][j], 3) }),
  ].join("、");

  // The cell (i, j) marked in every shown head, and its weights said; in
  // the pointed head g, q_i's and k_j's entries in g's columns lit, and the
  // score s = Σ_p q_ip k_jp / √d_k over those columns written term by term.
  const link = () => {
    for (const cell of root.querySelectorAll(".explorable-linked")) cell.classList.remove("explorable-linked");
    if (!pointed) {
      // Nothing pointed at: the hint, the cell whose weight differs most
      // between the heads with that spread, or, when cells tie (the running
      // example's four at h = 2, six at h = 4, by symmetry), how many tie and
      // the first of them, by query then key (s21: "the one cell" was four);
      // then that cell's weights, said as a pointed cell's are (r45).
      const heads = state.heads.map(({ weights }) => weights);
      if (heads.length < 2) {
        said.textContent = words(root, "linked_hint");
        return;
      }
      const cells = [];
      heads[0].forEach((row, i) => row.forEach((_, j) => {
        const at = heads.map((weights) => weights[i][j]);
        cells.push({ i, j, spread: Math.max(...at) - Math.min(...at) });
      }));
      const top = Math.max(...cells.map((c) => c.spread));
      const best = cells.filter((c) => top - c.spread < 1e-9);
      const weights = weightsAt(best[0].i, best[0].j);
      said.textContent = `${words(root, "linked_hint")}${message(words(root, best.length > 1 ? "most_tie" : "most"), {
        n: best.length, i: best[0].i + 1, j: best[0].j + 1, spread: fmt(top, 3) })}${message(words(root, "linked"), {
        i: best[0].i + 1, j: best[0].j + 1, weights })}`;
      return;
    }
    const [g, i, j] = pointed;
    for (const key of ["single", ...state.heads.map((_, other) => `weights${other}`)]) {
      table(key).querySelector(`td[data-i="${i}"][data-j="${j}"]`).classList.add("explorable-linked");
    }
    const linked = message(words(root, "linked"), { i: i + 1, j: j + 1, weights: weightsAt(i, j) });
    if (g < 0) {
      // one head (h = 1): q_i's and k_j's every entry, the score they make
      // over √d_model, and the heads' scores summed over √h, which it equals
      for (const [key, row] of [["q", i], ["k", j]]) {
        for (const cell of table(key).querySelectorAll(`td[data-i="${row}"]`)) cell.classList.add("explorable-linked");
      }
      const h = state.heads.length;
      const sum = h < 2 ? "" : message(words(root, "single_sum"), {
        h, scores: state.heads.map(({ scores }) => fmt(scores[i][j], 3)).join(" + "),
      });
      speak(said, message(words(root, "single_score"), {
        i: i + 1, j: j + 1, d_model: state.q[0].length, score: fmt(state.single.scores[i][j], 3),
        weight: fmt(state.single.weights[i][j], 3),
      }) + sum + linked);
      return;
    }
    const columns = [...Array(state.dK).keys()].map((p) => g * state.dK + p);
    // the value v_j it weighs, and query i's row of the outputs it goes into
    for (const [key, row] of [["q", i], ["k", j], ["v", j], ["concat", i]]) {
      for (const c of columns) {
        table(key).querySelector(`td[data-i="${row}"][data-j="${c}"]`).classList.add("explorable-linked");
      }
    }
    // and the final output's row z_i, where head g's contribution lands (r47)
    for (const key of [`term${g}`, "output"]) {
      for (const cell of table(key).querySelectorAll(`td[data-i="${i}"]`)) cell.classList.add("explorable-linked");
    }
    const terms = columns.map((c) => `${fmt(state.q[i][c], 2)} × ${fmt(state.k[j][c], 2)}`).join(" + ");
    speak(said, message(words(root, "score"), {
      g: g + 1, i: i + 1, j: j + 1, terms, d_k: state.dK, score: fmt(state.heads[g].scores[i][j], 3),
      weight: fmt(state.heads[g].weights[i][j], 3),
    }) + linked);
  };

  const update = (say = true) => {
    const input = data.inputs[inSelect.value];
    const h = Number(hSelect.value);
    const dModel = input.x[0].length;
    const dK = dModel / h;
    // W^O with the zeroed heads' blocks (rows (i−1)d_k+1 … i d_k) set to 0
    const wO = data.w_o[wSelect.value].map((row, r) => (off.has(Math.floor(r / dK)) ? row.map(() => 0) : row));
    const q = matmul(input.x, input.w_q); // (n, d_model)
    const k = matmul(input.x, input.w_k);
    const v = matmul(input.x, input.w_v);
    const heads = [];
    for (let i = 0; i < h; i++) {
      const [from, to] = [i * dK, (i + 1) * dK];
      const scores = matmul(columns(q, from, to), transpose(columns(k, from, to)))
        .map((row) => row.map((s) => s / Math.sqrt(dK))); // Q_i K_iᵀ / √d_k
      const weights = scores.map(softmax); // A_i
      const head = matmul(weights, columns(v, from, to)); // head_i = A_i V_i: (n, d_k)
      const term = matmul(head, wO.slice(from, to)); // head_i W^O_i: (n, d_model)
      heads.push({ scores, weights, head, term });
    }
    const concat = q.map((_, r) => heads.flatMap(({ head }) => head[r])); // (n, d_model)
    const output = matmul(concat, wO);
    // one head over all d_model columns (h = 1): A = softmax(Q Kᵀ / √d_model)
    const singleScores = matmul(q, transpose(k)).map((row) => row.map((s) => s / Math.sqrt(dModel)));
    const single = { scores: singleScores, weights: singleScores.map(softmax) };
    state = { heads, q, k, dK, single };
    fill(root, "q", q, 2);
    fill(root, "k", k, 2);
    fill(root, "v", v, 2);
    // A head's block: its colour, and a rule before it (a cue beyond colour).
    const starts = (n) => n > 0 && n % dK === 0;
    for (const key of ["q", "k", "v", "concat"]) {
      for (const td of table(key).querySelectorAll("td[data-j]")) {
        td.dataset.head = String(Math.floor(Number(td.dataset.j) / dK)); // its head's colour
        td.classList.toggle("explorable-head-start", starts(Number(td.dataset.j)));
      }
    }
    for (let g = 0; g < most; g++) {
      table(`weights${g}`).hidden = g >= h;
      table(`term${g}`).hidden = g >= h;
      if (g >= h) continue;
      fill(root, `term${g}`, heads[g].term, 3);
      for (const b of table(`weights${g}`).querySelectorAll("button[data-weight]")) {
        const [i, j] = cellAt(b);
        const a = heads[g].weights[i][j];
        show(b, a, 3);
        b.closest("td").style.setProperty("--w", String(a)); // the heat map: the colour is the weight
        b.setAttribute("aria-label", message(words(root, "cell"), {
          g: g + 1, i: i + 1, j: j + 1, weight: fmt(a, 3),
        }));
      }
    }
    for (const b of table("single").querySelectorAll("button[data-weight]")) {
      const [i, j] = cellAt(b);
      const a = single.weights[i][j];
      show(b, a, 3);
      b.closest("td").style.setProperty("--w", String(a));
      b.setAttribute("aria-label", message(words(root, "single_cell"), { i: i + 1, j: j + 1, weight: fmt(a, 3) }));
    }
    fill(root, "concat", concat, 3);
    fill(root, "w_o", wO, 0);
    for (const td of table("w_o").querySelectorAll("td[data-i]")) {
      const g = Math.floor(Number(td.dataset.i) / dK);
      td.dataset.head = String(g); // its block's head's colour
      td.classList.toggle("explorable-off", off.has(g));
      td.classList.toggle("explorable-block-start", starts(Number(td.dataset.i)));
    }
    for (const row of root.querySelectorAll('.explorable-head-scale-row:not([data-head="a"])')) {
      row.hidden = Number(row.dataset.head) >= h;
    }
    useButtons.forEach((b, g) => {
      b.hidden = g >= h;
      b.setAttribute("aria-pressed", String(!off.has(g)));
    });
    fill(root, "output", output, 3);
    if (pointed && pointed[0] >= h) pointed = null;
    link();
    if (say) announce(root, message(words(root, "status"), { h, d_k: dK }));
  };

  // Each head's map is a grid of its own; a cell marks the same query and key in every head.
  const n = data.inputs[inSelect.value].x.length;
  linkCells(root.querySelectorAll("button[data-weight]"), (b) => {
    pointed = b && [b.dataset.head === "a" ? -1 : Number(b.dataset.head), ...cellAt(b)];
    link();
  }, { rows: () => n, last: () => n - 1 });
  inSelect.addEventListener("input", () => update());
  hSelect.addEventListener("input", () => {
    off.clear(); // another h: other blocks
    update();
  });
  wSelect.addEventListener("input", () => update());
  // A block of W^O drawn is pressed as its head's button is (the buttons
  // are the keyboard's way to it).
  for (const td of table("w_o").querySelectorAll("td[data-i]")) {
    td.addEventListener("click", () => useButtons[Math.floor(Number(td.dataset.i) / state.dK)].click());
  }
  useButtons.forEach((b, g) => b.addEventListener("click", () => {
    if (off.has(g)) off.delete(g);
    else off.add(g);
    update(false);
    announce(root, message(words(root, off.has(g) ? "dropped" : "kept"), { g: g + 1 }));
  }));
  update();
}

register("heads", mount);
