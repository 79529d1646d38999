// The trained language model's attention weights on a sentence: the reader
// picks the sentence, the layer and the head, and sees that head's weights
// A (rows: queries, columns: keys, one row per character) as a heat map.
// The weights were computed by attention_docs when the book was built; this
// script only shows them and sums them: the mean weight on the previous
// character, (1 / (n − 1)) Σ_{i ≥ 2} A_{i,i−1}, and the rows whose largest
// weight is on the previous character.
import {
  announce, dataNode, esc, field, fmt, frame, message, optionList, register, show, status,
  templates, words,
} from "./core.js";

const count = (n) => [...Array(n).keys()].map((i) => i + 1);

// data: {layers, heads, sentences: [{text, tokens, weights: [layer][head][i][j]}]};
// the longest sentence sets the table's size, shorter ones hide the rest.
export function render(w, data) {
  const n = Math.max(...data.sentences.map((s) => s.tokens.length));
  const controls =
    '<div class="explorable-controls">' +
    field(w.sentence, `<select data-sentence disabled>${data.sentences
      .map((s, k) => `<option value="${k}"${k === 0 ? " selected" : ""}>${esc(s.text)}</option>`)
      .join("")}</select>`) +
    field(w.layer, `<select data-layer disabled>${optionList(count(data.layers), 1)}</select>`) +
    field(w.head, `<select data-head disabled>${optionList(count(data.heads), 1)}</select>`) +
    "</div>";
  // Row i: the query at position i + 1; column j: the key at position j + 1.
  const head = count(n).map((j) => `<th scope="col" data-j="${j - 1}"></th>`).join("");
  const body = count(n).map((i) => {
    const cells = count(n).map((j) => `<td data-i="${i - 1}" data-j="${j - 1}" data-value="0">0</td>`);
    return `<tr data-i="${i - 1}"><th scope="row"></th>${cells.join("")}</tr>`;
  }).join("");
  const table =
    '<table class="explorable-matrix explorable-heat" data-matrix="weights">' +
    `<caption>${w.weights}</caption><thead><tr><td></td>${head}</tr></thead><tbody>${body}</tbody></table>`;
  const results =
    '<dl class="explorable-results">' +
    `<dt>${w.previous}</dt><dd data-result="previous" data-value="0">0</dd>` +
    `<dt>${w.rows}</dt><dd data-result="rows" data-value="0">0</dd></dl>`;
  return frame("attention_maps", w,
    dataNode(data) + controls +
    // Wider than a small phone's column: it scrolls in its own box, which a
    // keyboard can reach.
    `<div class="explorable-scroll" tabindex="0" role="region" aria-label="${esc(w.weights)}">${table}</div>` +
    results + status() + templates(w, "status", "label"));
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const [sentence, layer, head] = ["sentence", "layer", "head"].map((key) =>
    root.querySelector(`select[data-${key}]`));
  const table = root.querySelector('[data-matrix="weights"]');

  const update = () => {
    const s = data.sentences[Number(sentence.value)];
    const [l, h] = [Number(layer.value), Number(head.value)];
    const a = s.weights[l - 1][h - 1]; // (n, n): A_ij, row i the query, column j the key
    const n = s.tokens.length;
    for (const th of table.querySelectorAll("thead th[data-j]")) {
      const j = Number(th.dataset.j);
      th.hidden = j >= n;
      th.textContent = j < n ? s.tokens[j] : "";
    }
    for (const tr of table.querySelectorAll("tbody tr")) {
      const i = Number(tr.dataset.i);
      tr.hidden = i >= n;
      tr.querySelector("th").textContent = i < n ? `${i + 1} ${s.tokens[i]}` : "";
      for (const td of tr.querySelectorAll("td")) {
        const j = Number(td.dataset.j);
        td.hidden = j >= n;
        if (i >= n || j >= n) continue;
        show(td, a[i][j], 2);
        td.style.setProperty("--w", String(a[i][j]));
        td.classList.toggle("explorable-previous", j === i - 1); // framed, as in the page's figure
        if (j > i) td.textContent = ""; // the causal mask: weight 0, left blank as in the figures
        td.setAttribute("aria-label", message(words(root, "label"), {
          i: i + 1, query: s.tokens[i], j: j + 1, key: s.tokens[j], weight: fmt(a[i][j], 2),
        }));
      }
    }
    // The previous character: the mean of A_{i,i−1} over i ≥ 2, and the rows
    // i ≥ 2 whose largest weight is there.
    let total = 0;
    let rows = 0;
    for (let i = 1; i < n; i++) {
      total += a[i][i - 1];
      if (a[i][i - 1] === Math.max(...a[i])) rows += 1;
    }
    const previous = total / (n - 1);
    show(root.querySelector('[data-result="previous"]'), previous, 2);
    const shown = root.querySelector('[data-result="rows"]');
    shown.dataset.value = String(rows);
    shown.textContent = `${rows} / ${n - 1}`;
    announce(root, message(words(root, "status"), {
      layer: l, head: h, previous: fmt(previous, 2), rows, n: n - 1,
    }));
  };
  for (const select of [sentence, layer, head]) select.addEventListener("input", update);
  update();
}

register("attention_maps", mount);
