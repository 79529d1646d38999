// Window and sinks: the sliding-window mask M_ij = [p - W < j <= p] or
// [j < n_sink and j <= p] (p = i, n_q = n_k = n, positions from 0), and the
// rows a rolling cache keeps after n tokens: the first n_sink and the last W.
import { announce, field, frame, matrix, message, optionList, register, resize, status, templates, words } from "./core.js";

// data: the sizes the figure starts from, and the largest n it offers.
export function render(w, data) {
  const sizes = (from) => [...Array(data.max - from + 1).keys()].map((i) => i + from);
  const select = (key, values) =>
    field(w[key], `<select data-size="${key}" disabled>${optionList(values, data[key])}</select>`);
  const controls =
    '<div class="explorable-controls">' +
    select("n", sizes(1)) + select("window", sizes(1)) + select("n_sink", [0, 1, 2, 3, 4]) + "</div>";
  const labels = sizes(1).map((i) => String(i - 1));
  const shown = { shownRows: data.n, shownCols: data.n };
  const tables =
    '<div class="explorable-tables explorable-scroll">' +
    matrix("mask", w.mask, labels, labels, shown) +
    matrix("cache", w.cache, [w.position], labels, { shownCols: data.n }) + "</div>";
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results =
    '<dl class="explorable-results">' + ["rows", "capacity", "full"].map(result).join("") + "</dl>";
  return frame("window_sinks", w, controls + tables + results + status() + templates(w, "status"));
}

export function mount(root) {
  const size = (key) => Number(root.querySelector(`select[data-size="${key}"]`).value);
  const result = (key, n) => {
    const el = root.querySelector(`[data-result="${key}"]`);
    el.dataset.value = String(n);
    el.textContent = String(n);
  };

  const update = () => {
    const n = size("n");
    const w = size("window");
    const sinks = size("n_sink");
    // M_ij = [i - W < j <= i] or [j < n_sink and j <= i]
    const band = (i, j) => i - w < j && j <= i;
    const sink = (i, j) => j < sinks && j <= i;
    resize(root, "mask", n, n);
    for (const td of root.querySelectorAll('[data-matrix="mask"] td[data-i]')) {
      const i = Number(td.dataset.i);
      const j = Number(td.dataset.j);
      const kind = band(i, j) ? "window" : sink(i, j) ? "sink" : "masked";
      td.dataset.kind = kind;
      td.dataset.value = kind === "masked" ? "0" : "1";
      // A hidden cell (i or j >= n) shows no number: text without the page's
      // style (reader mode, a copy of the page) must not show a larger n.
      td.textContent = i < n && j < n ? td.dataset.value : "";
    }
    // Kept after n tokens: positions p < n_sink, and p >= n - W (the last W).
    const kept = [...Array(n).keys()].filter((p) => p < sinks || p >= n - w);
    resize(root, "cache", 1, n);
    for (const td of root.querySelectorAll('[data-matrix="cache"] td[data-i]')) {
      const p = Number(td.dataset.j);
      const on = kept.includes(p);
      td.dataset.kind = on ? (p < sinks && p < n - w ? "sink" : "window") : "masked";
      td.dataset.value = on ? "1" : "0";
      td.textContent = p < n ? td.dataset.value : "";
    }
    result("rows", kept.length); // min(n, n_sink + W)
    result("capacity", sinks + w); // the buffer's rows, fixed
    result("full", n); // a cache without a window
    announce(root, message(words(root, "status"), {
      rows: kept.length, n, positions: kept.join(", "),
    }));
  };
  for (const select of root.querySelectorAll("select[data-size]")) select.addEventListener("change", update);
  update();
}

register("window_sinks", mount);
