// Masks: one grid, the attention weights A drawn as a heat map in A's pink
// with the boolean mask M (True = may attend) on the same cells. Each cell
// is a checkbox, "query i may see key j", that covers the whole cell: a
// click, a tap or Space toggles M_ij. A masked cell is hatched (a cue that
// is not a colour) and its weight is 0. The causal (bottom-right aligned)
// and padding presets set the whole grid. Masked scores become −∞ before the
// softmax; a fully masked row gets zero weights and output. Each row's sum
// stands at its end: 1 once the row is normalised again, 0 for a row with
// no key. The grid is one Tab stop, moved through with the arrow keys
// (linkCells); a toggle says the row's new weights, and whether M is still
// the causal mask. The masked scores and the output stay beside the grid,
// in smaller tables, and the cell under the pointer or the focus marks its
// query's row of scores and its output row, and the row's sum; pointing at
// a row of S or Z marks the row of A and its sum. A chart draws one row's
// renormalisation (the row pointed at or just toggled): each key's weight
// with no key masked beside its weight under M, and the factor
// 1/(the kept keys' share) every weight left is multiplied by.
import {
  announce, dataNode, esc, field, fill, fmt, frame, linkCells, matmul, matrix, message, optionList,
  register, resize, show, softmax, status, sub, templates, transpose, words,
} from "./core.js";
import { chartBox, draw } from "./chart.js";

// data: the running example's q, k, v (n rows each); every cell may attend.
export function render(w, data) {
  const n = data.q.length;
  const sizes = [...Array(n).keys()].map((i) => i + 1);
  const select = (key, label, options, chosen = n) =>
    field(label, `<select data-${key} disabled>${optionList(options, chosen)}</select>`);
  const preset = (key) => `<button type="button" data-preset="${key}" disabled>${w[key]}</button>`;
  // Each preset beside the sizes it reads, wrapped as one group.
  const group = (html) => `<span class="explorable-group">${html}</span>`;
  const controls =
    '<div class="explorable-controls">' +
    group(select("nq", w.n_q, sizes) + select("nk", w.n_k, sizes) + preset("causal")) +
    // The length one short of n_k, so that the padding mask masks a key
    // (at n_k it would equal "all True").
    group(select("length", w.length, [0, ...sizes], n - 1) + preset("padding")) + preset("all") + "</div>";
  // The grid: rows the queries, columns the keys, in words. The causal mask
  // (n_q = n_k = n) is the default: query i sees key j when j <= i.
  const query = (i) => esc(message(w.query, { i }));
  const key = (j) => esc(message(w.key, { j }));
  const head = sizes.map((j) => `<th scope="col" data-j="${j - 1}">${key(j)}</th>`).join("");
  const body = sizes.map((i) => {
    const cells = sizes.map((j) => {
      const on = j <= i;
      const attrs = `data-i="${i - 1}" data-j="${j - 1}"`;
      // one Tab stop for the grid (its first cell); the arrow keys move
      return `<td ${attrs}${on ? "" : " data-masked"}>` +
        `<input type="checkbox" aria-label="${esc(message(w.cell, { i, j }))}" data-cell ${attrs}` +
        ` tabindex="${i === 1 && j === 1 ? 0 : -1}"${on ? " checked" : ""} disabled>` +
        '<span data-value="0">0</span></td>';
    });
    const total = `<td class="explorable-sum" data-sum="${i - 1}" data-value="0">0</td>`;
    return `<tr data-i="${i - 1}"><th scope="row">${query(i)}</th>${cells.join("")}${total}</tr>`;
  }).join("");
  const grid =
    '<table class="explorable-matrix explorable-grid" data-matrix="weights">' +
    `<caption>${w.weights}</caption><thead>` +
    `<tr><td></td><th scope="colgroup" colspan="${n}" class="explorable-axis">${w.keys}</th><td></td></tr>` +
    `<tr><td></td>${head}<th scope="col" class="explorable-sum">${w.sum}</th></tr></thead>` +
    `<tbody>${body}</tbody></table>`;
  // The legend: the ramp of the weights, and the hatch of a masked cell.
  const legend =
    '<ul class="explorable-legend">' +
    `<li><span class="explorable-swatch explorable-ramp" aria-hidden="true"></span>${w.legend_weight}</li>` +
    `<li><span class="explorable-swatch explorable-hatch" aria-hidden="true"></span>${w.legend_masked}</li>` +
    `<li>${w.legend_sum}</li></ul>`;
  const rows = sizes.map((i) => sub("q", i));
  const cols = sizes.map((j) => sub("k", j));
  const dims = data.v[0].map((_, j) => String(j + 1));
  const tables =
    '<div class="explorable-tables explorable-small">' +
    matrix("scores", w.scores, rows, cols) +
    matrix("output", w.output, sizes.map((i) => sub("z", i)), dims)
      .replace('class="explorable-matrix"', 'class="explorable-matrix explorable-fill-z"') + "</div>";
  // One row's weights before and after the mask, and the factor between;
  // the labels wrap, never the numbers (review F1: 1.824 a digit a line).
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const renorm = `<div class="explorable-charts">${chartBox("renorm", w.renorm_chart)}` +
    `<dl class="explorable-results explorable-results-labels-wrap">${["renorm_row", "renorm_factor"].map(result).join("")}</dl></div>`;
  return frame("masks", w, dataNode(data) + controls +
    `<div class="explorable-tables">${grid}${legend}</div>` + renorm + tables + status() +
    templates(w, "status_ok", "status_empty", "status_row", "causal_yes", "causal_inside", "causal_no"));
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const n = data.q.length;
  const nq = root.querySelector("select[data-nq]");
  const nk = root.querySelector("select[data-nk]");
  const length = root.querySelector("select[data-length]");
  const cells = [...root.querySelectorAll("input[data-cell]")];
  const cell = (i, j) => cells.find((c) => c.dataset.i === String(i) && c.dataset.j === String(j));
  const sizes = () => [Number(nq.value), Number(nk.value)];
  const chart = root.querySelector('svg[data-chart="renorm"]');
  let focusRow = null; // the row drawn: pointed at, or just toggled
  let last = null; // update()'s scores and mask, for the chart

  const presets = {
    // causal_mask(n_q, n_k): query i sees key j when j <= i + (n_k - n_q)
    causal: (i, j, q, k) => j <= i + (k - q),
    // padding_mask([L], n_k): key j is real when j < L, for every query
    padding: (i, j) => j < Number(length.value),
    all: () => true,
  };
  const apply = (name) => {
    const [q, k] = sizes();
    for (const c of cells) c.checked = presets[name](Number(c.dataset.i), Number(c.dataset.j), q, k);
    update();
  };

  // toggled: the cell the reader just toggled, whose row is said.
  const update = (toggled = null) => {
    const [q, k] = sizes();
    // The last n_q queries, the first n_k keys and values of the example.
    const Q = data.q.slice(n - q);
    const K = data.k.slice(0, k);
    const V = data.v.slice(0, k);
    const scale = 1 / Math.sqrt(Q[0].length);
    const mask = Q.map((_, i) => K.map((_, j) => cell(i, j).checked));
    // S_ij = q_i · k_j / sqrt(d_k), or −∞ where the mask is False
    const scores = matmul(Q, transpose(K)).map((row, i) =>
      row.map((s, j) => (mask[i][j] ? s * scale : -Infinity))
    );
    const weights = scores.map(softmax); // a fully masked row: all zeros
    if (toggled) focusRow = Number(toggled.dataset.i);
    last = { scores: matmul(Q, transpose(K)).map((row) => row.map((s) => s * scale)), weights, mask };
    renormalise();
    const output = matmul(weights, V); // z_i = sum_j A_ij v_j (0 if none)
    for (const key of ["weights", "scores"]) resize(root, key, q, k);
    resize(root, "output", q, V[0].length);
    fill(root, "scores", scores, 2);
    fill(root, "output", output, 3);
    // The weights in the grid, a heat map: the colour's strength is the weight (--w, 0 to 1); a
    // masked cell is hatched, in the grid and in the scores.
    weights.forEach((row, i) => row.forEach((a, j) => {
      const td = root.querySelector(`[data-matrix="weights"] td[data-i="${i}"][data-j="${j}"]`);
      show(td.querySelector("span"), a, 3);
      td.style.setProperty("--w", String(a));
      td.toggleAttribute("data-masked", !mask[i][j]);
      root.querySelector(`[data-matrix="scores"] td[data-i="${i}"][data-j="${j}"]`)
        .toggleAttribute("data-masked", !mask[i][j]);
    }));
    // Each row's sum: 1 once normalised again (to float64's rounding of the
    // sum, which is not a weight short of 1: gap 0), 0 with no key.
    weights.forEach((row, i) => {
      const kept = mask[i].some(Boolean);
      show(root.querySelector(`[data-sum="${i}"]`), row.reduce((a, b) => a + b, 0), 3, kept ? 0 : undefined);
    });
    const empty = mask.flatMap((row, i) => (row.some(Boolean) ? [] : [i + 1]));
    for (const tr of root.querySelectorAll('[data-matrix="weights"] tbody tr')) {
      tr.toggleAttribute("data-empty", empty.includes(Number(tr.dataset.i) + 1));
    }
    // The grid's Tab stop stays on a shown cell when the grid shrinks.
    const stop = cells.find((c) => c.tabIndex === 0);
    if (!stop || Number(stop.dataset.i) >= q || Number(stop.dataset.j) >= k) {
      for (const c of cells) c.tabIndex = c === cell(0, 0) ? 0 : -1;
    }
    // M against causal_mask(n_q, n_k): the same, inside it (no query sees
    // a later key), or allowing `count` cells that it forbids.
    const future = mask.flatMap((row, i) => row.filter((m, j) => m && !presets.causal(i, j, q, k)));
    const same = mask.every((row, i) => row.every((m, j) => m === presets.causal(i, j, q, k)));
    const causal = future.length
      ? message(words(root, "causal_no"), { count: future.length })
      : words(root, same ? "causal_yes" : "causal_inside");
    let said;
    if (toggled && mask[Number(toggled.dataset.i)].some(Boolean)) {
      // The toggled row, normalised again: its weights and their sum.
      const i = Number(toggled.dataset.i);
      said = message(words(root, "status_row"), {
        i: i + 1, weights: weights[i].map((a) => fmt(a, 3)).join(", "),
      });
      const tr = toggled.closest("tr");
      tr.removeAttribute("data-changed");
      void tr.offsetWidth; // the row's flash starts again
      tr.setAttribute("data-changed", "");
    } else {
      said = empty.length ? message(words(root, "status_empty"), { rows: empty.join(", ") }) : words(root, "status_ok");
    }
    announce(root, `${said}${causal}`);
  };

  // Row i's weights with every key kept (hollow dots) and under M (filled,
  // the kept keys only): softmax over fewer keys divides each kept weight
  // by the kept keys' share of the unmasked row, so it is multiplied by
  // 1/share. Row i: the one pointed at or toggled last, else the last row
  // with a masked key (else the last row).
  function renormalise() {
    const { scores, weights, mask } = last;
    const [q, k] = sizes();
    let i = focusRow !== null && focusRow < q ? focusRow : null;
    if (i === null) {
      const masked = mask.flatMap((row, r) => (row.every(Boolean) ? [] : [r]));
      i = masked.length ? masked[masked.length - 1] : q - 1;
    }
    const free = softmax(scores[i]);
    const share = free.reduce((a, b, j) => a + (mask[i][j] ? b : 0), 0);
    const row = root.querySelector('[data-result="renorm_row"]');
    row.dataset.value = String(i + 1);
    row.textContent = String(i + 1);
    const factor = root.querySelector('[data-result="renorm_factor"]');
    // 1/share − 1 = (the masked keys' share)/share: 0 with every key kept,
    // where share is 1 up to float64's rounding of its sum (fmt's gap)
    const dropped = free.reduce((a, b, j) => a + (mask[i][j] ? 0 : b), 0);
    if (share > 0) show(factor, 1 / share, 3, dropped / share);
    else {
      factor.dataset.value = "";
      factor.textContent = "—";
    }
    draw(chart, {
      x: { min: 0.5, max: Math.max(k, 2) + 0.5, label: "j" },
      y: { min: 0, max: 1 },
      lines: [
        { points: free.map((a, j) => [j + 1 - 0.15, a]), dots: true },
        { points: weights[i].flatMap((a, j) => (mask[i][j] ? [[j + 1 + 0.15, a]] : [])), dots: true },
      ],
    });
  }

  // The cell under the pointer or the focus marks its query's row of
  // scores (the softmax is taken over that row) and its output row z_i in
  // the smaller tables, s_ij in bold.
  const point = (c) => {
    for (const td of root.querySelectorAll(".explorable-linked, .explorable-pointed")) {
      td.classList.remove("explorable-linked", "explorable-pointed");
    }
    if (!c) return;
    const [i, j] = [c.dataset.i, c.dataset.j];
    markRow(i);
    root.querySelector(`[data-matrix="scores"] td[data-i="${i}"][data-j="${j}"]`).classList.add("explorable-pointed");
    focusRow = Number(i);
    renormalise();
  };
  // Row i of S, of Z and of A (its sum too) marked together.
  const markRow = (i) => {
    for (const td of root.querySelectorAll(
      `[data-matrix="scores"] td[data-i="${i}"], [data-matrix="output"] td[data-i="${i}"], ` +
      `[data-matrix="weights"] tr[data-i="${i}"] > *, [data-sum="${i}"]`
    )) td.classList.add("explorable-linked");
  };
  // Pointing at a row of S or Z marks the row of A (and its sum) and draws
  // its renormalisation; leaving it, the focused cell's row again.
  for (const tr of root.querySelectorAll('[data-matrix="scores"] tbody tr, [data-matrix="output"] tbody tr')) {
    tr.addEventListener("pointerenter", () => {
      point(null);
      markRow(tr.dataset.i);
      focusRow = Number(tr.dataset.i);
      renormalise();
    });
    tr.addEventListener("pointerleave", () => {
      const focused = cells.find((c) => c === root.ownerDocument.activeElement);
      point(focused ?? null);
    });
  }
  for (const c of cells) c.addEventListener("change", () => update(c));
  // One Tab stop; the arrow keys, Home and End move among the shown cells.
  linkCells(cells, point, { rows: () => sizes()[0], last: () => sizes()[1] - 1, control: "input[data-cell]" });
  nq.addEventListener("change", () => apply("causal"));
  nk.addEventListener("change", () => apply("causal"));
  for (const button of root.querySelectorAll("button[data-preset]")) {
    button.addEventListener("click", () => apply(button.dataset.preset));
  }
  update();
}

register("masks", mount);
