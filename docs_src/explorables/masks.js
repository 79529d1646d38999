// Masks: a boolean mask (True = may attend) toggled cell by cell, with the
// causal (bottom-right aligned) and padding presets. Masked scores become
// −∞ before the softmax; a fully masked row gets zero weights and output.
import {
  announce, dataNode, esc, field, fill, frame, matmul, matrix, message, optionList, register,
  resize, softmax, status, sub, templates, transpose, words,
} from "./core.js";

// data: the running example's q, k, v (n rows each); every cell may attend.
export function render(w, data) {
  const n = data.q.length;
  const sizes = [...Array(n).keys()].map((i) => i + 1);
  const select = (key, label, options) =>
    field(label, `<select data-${key} disabled>${optionList(options, n)}</select>`);
  const preset = (key) => `<button type="button" data-preset="${key}" disabled>${w[key]}</button>`;
  const controls =
    '<div class="explorable-controls">' +
    select("nq", w.n_q, sizes) + select("nk", w.n_k, sizes) + preset("causal") + preset("all") +
    select("length", w.length, [0, ...sizes]) + preset("padding") + "</div>";
  const rows = sizes.map((i) => sub("q", i));
  const cols = sizes.map((j) => sub("k", j));
  // The causal mask (n_q = n_k = n): query i sees key j when j <= i.
  const checkbox = (i, j, attrs) =>
    `<td${attrs}><input type="checkbox" aria-label="${esc(message(w.cell, { i: i + 1, j: j + 1 }))}" ` +
    `data-cell data-i="${i}" data-j="${j}"${j <= i ? " checked" : ""} disabled></td>`;
  const dims = data.v[0].map((_, j) => String(j + 1));
  const tables =
    '<div class="explorable-tables">' +
    matrix("mask", w.mask, rows, cols, { cell: checkbox }) +
    matrix("scores", w.scores, rows, cols) +
    matrix("weights", w.weights, rows, cols) +
    matrix("output", w.output, sizes.map((i) => sub("z", i)), dims) + "</div>";
  return frame("masks", w, dataNode(data) + controls + tables + status() +
    templates(w, "status_ok", "status_empty"));
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

  const update = () => {
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
    const output = matmul(weights, V); // z_i = sum_j A_ij v_j (0 if none)
    for (const key of ["mask", "scores", "weights"]) resize(root, key, q, k);
    resize(root, "output", q, V[0].length);
    fill(root, "scores", scores, 2);
    fill(root, "weights", weights, 3);
    fill(root, "output", output, 3);
    const empty = mask.flatMap((row, i) => (row.some(Boolean) ? [] : [i + 1]));
    announce(root, empty.length
      ? message(words(root, "status_empty"), { rows: empty.join(", ") })
      : words(root, "status_ok"));
  };

  for (const c of cells) c.addEventListener("change", update);
  nq.addEventListener("change", () => apply("causal"));
  nk.addEventListener("change", () => apply("causal"));
  for (const button of root.querySelectorAll("button[data-preset]")) {
    button.addEventListener("click", () => apply(button.dataset.preset));
  }
  update();
}

register("masks", mount);
