// Multi-head attention on the running example: h heads of width
// d_k = d_model / h; head i takes columns (i−1)d_k+1 … i d_k of Q, K and V,
// has its own weights A_i = softmax(Q_i K_iᵀ / √d_k), and its output head_i =
// A_i V_i. The output Concat(head_1, …, head_h) W^O is Σ_i head_i W^O_i.
import {
  announce, dataNode, field, fill, frame, matmul, matrix, message, optionList, register, softmax,
  status, sub, templates, transpose, words,
} from "./core.js";

// data: the running example's X, W_Q, W_K, W_V; the page's W^O choices
// (w_o), the head counts to offer (counts) and the one shown first (h).
export function render(w, data) {
  const most = Math.max(...data.counts);
  const dModel = data.x[0].length;
  const controls =
    '<div class="explorable-controls">' +
    field(`d<sub>model</sub> = ${dModel}、${w.h}`,
      `<select data-h disabled>${optionList(data.counts, data.h)}</select>`) +
    field(w.w_o, `<select data-w-o disabled>${optionList(Object.keys(data.w_o), data.w_o_name, w)}</select>`) +
    "</div>";
  const tokens = data.x.map((_, i) => sub("x", i + 1));
  const dims = data.x[0].map((_, j) => String(j + 1));
  const keys = data.x.map((_, j) => sub("k", j + 1));
  // One table per head; those past the h shown are hidden.
  const perHead = (key, word, cols) =>
    [...Array(most).keys()].map((i) =>
      matrix(`${key}${i}`, message(word, { i: i + 1 }), tokens, cols)
        .replace("<table ", `<table${i < data.h ? "" : " hidden"} `)).join("");
  return frame("heads", w,
    dataNode({ x: data.x, w_q: data.w_q, w_k: data.w_k, w_v: data.w_v, w_o: data.w_o }) + controls +
    `<div class="explorable-tables">${matrix("q", w.q, tokens, dims)}${perHead("weights", w.weights, keys)}</div>` +
    `<div class="explorable-tables">${matrix("concat", w.concat, tokens, dims)}` +
    `${perHead("term", w.term, dims)}${matrix("output", w.output, tokens, dims)}</div>` +
    status() + templates(w, "status"));
}

const columns = (a, from, to) => a.map((row) => row.slice(from, to));

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const hSelect = root.querySelector("select[data-h]");
  const wSelect = root.querySelector("select[data-w-o]");
  const table = (key) => root.querySelector(`[data-matrix="${key}"]`);
  const most = root.querySelectorAll('[data-matrix^="weights"]').length;

  const update = () => {
    const h = Number(hSelect.value);
    const wO = data.w_o[wSelect.value];
    const dModel = data.x[0].length;
    const dK = dModel / h;
    const q = matmul(data.x, data.w_q); // (n, d_model)
    const k = matmul(data.x, data.w_k);
    const v = matmul(data.x, data.w_v);
    const heads = [];
    for (let i = 0; i < h; i++) {
      const [from, to] = [i * dK, (i + 1) * dK];
      const scores = matmul(columns(q, from, to), transpose(columns(k, from, to)))
        .map((row) => row.map((s) => s / Math.sqrt(dK))); // Q_i K_iᵀ / √d_k
      const weights = scores.map(softmax); // A_i
      const head = matmul(weights, columns(v, from, to)); // head_i = A_i V_i: (n, d_k)
      const term = matmul(head, wO.slice(from, to)); // head_i W^O_i: (n, d_model)
      heads.push({ weights, head, term });
    }
    const concat = q.map((_, r) => heads.flatMap(({ head }) => head[r])); // (n, d_model)
    const output = matmul(concat, wO);
    fill(root, "q", q, 2);
    for (const td of table("q").querySelectorAll("td[data-j]")) {
      td.dataset.head = String(Math.floor(Number(td.dataset.j) / dK));
    }
    for (let i = 0; i < most; i++) {
      table(`weights${i}`).hidden = i >= h;
      table(`term${i}`).hidden = i >= h;
      if (i < h) {
        fill(root, `weights${i}`, heads[i].weights, 3);
        fill(root, `term${i}`, heads[i].term, 3);
      }
    }
    fill(root, "concat", concat, 3);
    fill(root, "output", output, 3);
    announce(root, message(words(root, "status"), { h, d_k: dK }));
  };
  for (const select of [hSelect, wSelect]) select.addEventListener("input", update);
  update();
}

register("heads", mount);
