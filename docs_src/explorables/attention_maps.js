// The trained language model's attention weights on a sentence. The
// weights were computed by attention_docs when the book was built; this
// script only shows them and sums them.
// - Every head's weights as a small heat map (a thumbnail, as the page's
//   figure draws them) over its mean weight on the previous character,
//   prev = (1 / (n − 1)) Σ_{i ≥ 2} A_{i,i−1}, laid out as the page's figure
//   lays out its maps (columns the layers, rows the heads); each is a button
//   that shows its head below (so do the layer and head menus), and the
//   pointer resting on one shows that head below until it leaves.
// - The chosen head's weights A (rows the queries, columns the keys, one per
//   character, positions from 1 as the page counts them) as a heat map in
//   A's pink, as the masks' grid and the page's figure draw weights; the
//   cell of the previous character framed; above the diagonal, masked by
//   the causal mask, blank. Each weight is a button (one Tab stop, the arrow
//   keys inside): pointing at it or focusing it marks its query's and key's
//   characters in the labels and says them with the weight (a tap on a
//   phone, where the cells show no numbers, too); with none pointed, the
//   line says the last query's largest weight.
import {
  announce, cellAt, dataNode, esc, field, fmt, frame, linkCells, message, optionList, register,
  status, templates, words,
} from "./core.js";

const count = (n) => [...Array(n).keys()].map((i) => i + 1);

// A weight (or a mean of weights) as the page writes it: 2 decimals; one
// below 0.005, which 2 decimals would write 0.00, as "< 0.01", and one that
// 2 decimals would write 1.00 as "> 0.99" (fmt's rule), unless it is the
// weight of its row's sole key, the first query's (the causal mask leaves
// it one), which is 1. A softmax weight over two or more keys is never 0
// nor 1; the build carries 4 decimals, so even a weight carried as 0 (below
// 0.00005) or as 1 (from 0.99995) is only known to be small, or near 1.
const weight = (x, sole = false) =>
  x < 0.005 ? "< 0.01" : fmt(x, 2, sole ? 0 : x - 1 || -Number.MIN_VALUE);
const showWeight = (el, x, sole = false) => {
  el.dataset.value = String(x);
  el.textContent = weight(x, sole);
};

// data: {layers, heads, sentences: [{text, tokens, weights: [layer][head][i][j]}]};
// the longest sentence sets the table's size, shorter ones hide the rest.
export function render(w, data) {
  const n = Math.max(...data.sentences.map((s) => s.tokens.length));
  const first = data.sentences[0].tokens.length;
  const controls =
    '<div class="explorable-controls">' +
    field(w.sentence, `<select data-sentence disabled>${data.sentences
      .map((s, k) => `<option value="${k}"${k === 0 ? " selected" : ""}>${esc(s.text)}</option>`)
      .join("")}</select>`) +
    field(w.layer, `<select data-layer disabled>${optionList(count(data.layers), 1)}</select>`) +
    field(w.head, `<select data-head disabled>${optionList(count(data.heads), 1)}</select>`) +
    "</div>";
  // Every head's thumbnail and prev: columns the layers, rows the heads. A
  // thumbnail has a square for each weight at or below the diagonal (row i
  // the query, column j the key), its viewBox the sentence's n × n.
  const layerHeads = count(data.layers)
    .map((l) => `<th scope="col">${esc(message(w.layer_n, { l }))}</th>`).join("");
  const squares = [...Array(n).keys()].flatMap((i) => [...Array(i + 1).keys()].map((j) =>
    `<rect x="${j}" y="${i}" width="1" height="1"></rect>`)).join("");
  // The orientation cue (r47): the previous character's cells (i, i − 1)
  // outlined thinly, as the big map frames them (those past a shorter
  // sentence's n lie outside the viewBox); and the mark of the weight
  // pointed at in the big map, drawn by mount().
  const previous = [...Array(n - 1).keys()].map((j) => `M${j} ${j + 1}h1v1h-1z`).join("");
  const thumb = `<svg class="explorable-thumb" viewBox="0 0 ${first} ${first}" aria-hidden="true" ` +
    `focusable="false">${squares}<path class="explorable-thumb-previous" d="${previous}"></path>` +
    '<path class="explorable-thumb-mark" d=""></path></svg>';
  const bars = count(data.heads).map((h) => {
    const cells = count(data.layers).map((l) =>
      `<td data-l="${l}" data-h="${h}" class="explorable-thumb-cell">` +
      `<button type="button" data-pick aria-pressed="false" disabled>${thumb}` +
      '<span data-value="0">0</span></button></td>').join("");
    return `<tr><th scope="row">${esc(message(w.head_n, { h }))}</th>${cells}</tr>`;
  }).join("");
  const summary =
    '<table class="explorable-matrix explorable-heads-prev" data-summary>' +
    `<caption>${w.summary}</caption><thead><tr><td></td>${layerHeads}</tr></thead>` +
    `<tbody>${bars}</tbody></table>`;
  // Row i: the query at position i + 1; column j: the key at position j + 1.
  // A weight at or below the diagonal is a button; above it, the causal
  // mask's 0, a blank cell.
  const hide = (k) => (k >= first ? " hidden" : "");
  const head = count(n).map((j) => `<th scope="col" data-j="${j - 1}"${hide(j - 1)}></th>`).join("");
  const body = count(n).map((i) => {
    const cells = count(n).map((j) => {
      const attrs = `data-i="${i - 1}" data-j="${j - 1}"${hide(j - 1)}`;
      return j <= i
        ? `<td ${attrs}><button type="button" data-weight tabindex="${i === 1 ? 0 : -1}" disabled>` +
          '<span data-value="0">0</span></button></td>'
        : `<td ${attrs} data-masked data-value="0"></td>`;
    });
    return `<tr data-i="${i - 1}"${hide(i - 1)}><th scope="row"></th>${cells.join("")}</tr>`;
  }).join("");
  const table =
    '<table class="explorable-matrix explorable-heat" data-matrix="weights">' +
    `<caption>${w.weights}</caption><thead><tr><td></td>${head}</tr></thead><tbody>${body}</tbody></table>`;
  const results =
    '<dl class="explorable-results">' +
    `<dt>${w.previous}</dt><dd data-result="previous" data-value="0">0</dd>` +
    `<dt>${w.rows}</dt><dd data-result="rows" data-value="0">0</dd></dl>`;
  return frame("attention_maps", w,
    dataNode(data) + controls + `<div class="explorable-tables">${summary}</div>` +
    // Wider than a small phone's column: it scrolls in its own box, which a
    // keyboard can reach.
    `<div class="explorable-scroll" tabindex="0" role="region" aria-label="${esc(w.weights_region)}">` +
    `${table}</div>` +
    // the colour's scale, 0 to 1, as the cells mix it (the caption says it in words)
    '<p class="explorable-ramp-legend" aria-hidden="true"><span>0</span>' +
    '<span class="explorable-ramp"></span><span>1</span></p>' +
    `<p class="explorable-terms explorable-terms-short" data-linked-said>${w.linked_hint}</p>` +
    results + status() + templates(w, "status", "label", "pick", "linked", "linked_hint", "largest", "largest_self"));
}

// prev of one head's weights a (n, n): the mean of A_{i,i−1} over i ≥ 2
// (positions from 1; rows 1 … n − 1 from 0).
const previousMean = (a) => {
  let total = 0;
  for (let i = 1; i < a.length; i++) total += a[i][i - 1];
  return total / (a.length - 1);
};

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const [sentence, layer, head] = ["sentence", "layer", "head"].map((key) =>
    root.querySelector(`select[data-${key}]`));
  const table = root.querySelector('[data-matrix="weights"]');
  const said = root.querySelector("[data-linked-said]");
  const picks = [...root.querySelectorAll("button[data-pick]")];
  const weights = [...table.querySelectorAll("button[data-weight]")];
  let pointed = null; // [i, j] under the pointer or the focus

  let preview = null; // [l, h] of the thumbnail under the pointer
  const current = () => {
    const s = data.sentences[Number(sentence.value)];
    const [l, h] = preview ?? [Number(layer.value), Number(head.value)];
    return { s, l, h, a: s.weights[l - 1][h - 1] }; // A_ij: row i the query, column j the key
  };

  // The pointed weight: its query's and key's labels marked, and said; the
  // same (i, j) marked in every head's thumbnail (r47).
  const link = () => {
    for (const th of table.querySelectorAll(".explorable-linked")) th.classList.remove("explorable-linked");
    const square = pointed ? `M${pointed[1]} ${pointed[0]}h1v1h-1z` : "";
    for (const mark of root.querySelectorAll(".explorable-thumb-mark")) mark.setAttribute("d", square);
    const { s, a } = current();
    if (!pointed) {
      // by default, the last query's largest weight, then how to point at others
      const i = s.tokens.length - 1;
      const j = a[i].slice(0, i + 1).indexOf(Math.max(...a[i].slice(0, i + 1)));
      said.textContent = `${message(words(root, i === j ? "largest_self" : "largest"), {
        i: i + 1, query: s.tokens[i], j: j + 1, key: s.tokens[j], weight: weight(a[i][j], i === 0),
      })}${words(root, "linked_hint")}`;
      return;
    }
    const [i, j] = pointed;
    table.querySelector(`tbody tr[data-i="${i}"] th`).classList.add("explorable-linked");
    table.querySelector(`thead th[data-j="${j}"]`).classList.add("explorable-linked");
    said.textContent = message(words(root, "linked"), {
      i: i + 1, query: s.tokens[i], j: j + 1, key: s.tokens[j], weight: weight(a[i][j], i === 0),
    });
  };

  // say: false while the pointer previews a head (nothing is chosen yet)
  const update = (say = true) => {
    const { s, l, h, a } = current();
    const n = s.tokens.length;
    // Every head's thumbnail, prev and button; the chosen one pressed.
    for (const b of picks) {
      const td = b.closest("td");
      const [bl, bh] = [Number(td.dataset.l), Number(td.dataset.h)];
      const weightsOf = s.weights[bl - 1][bh - 1];
      const prev = previousMean(weightsOf);
      showWeight(b.querySelector("span"), prev);
      const svg = b.querySelector("svg");
      svg.setAttribute("viewBox", `0 0 ${n} ${n}`);
      for (const rect of svg.querySelectorAll("rect")) {
        const [i, j] = [Number(rect.getAttribute("y")), Number(rect.getAttribute("x"))];
        if (i < n) rect.style.setProperty("--w", String(weightsOf[i][j]));
      }
      b.setAttribute("aria-pressed", String(bl === Number(layer.value) && bh === Number(head.value)));
      b.setAttribute("aria-label", message(words(root, "pick"), { l: bl, h: bh, prev: weight(prev) }));
    }
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
        if (i >= n || j >= n || j > i) continue; // above the diagonal: the causal mask's 0, blank
        const b = td.querySelector("button");
        showWeight(b.querySelector("span"), a[i][j], i === 0);
        td.style.setProperty("--w", String(a[i][j])); // the heat map: the colour is the weight
        td.classList.toggle("explorable-previous", j === i - 1); // framed, as in the page's figure
        b.setAttribute("aria-label", message(words(root, "label"), {
          i: i + 1, query: s.tokens[i], j: j + 1, key: s.tokens[j], weight: weight(a[i][j], i === 0),
        }));
      }
    }
    // One Tab stop among the weights, on a shown cell.
    const stop = weights.find((b) => b.tabIndex === 0);
    if (!stop || cellAt(stop)[0] >= n) {
      for (const b of weights) b.tabIndex = -1;
      weights[0].tabIndex = 0;
    }
    if (pointed && pointed[0] >= n) pointed = null;
    link();
    // The previous character: prev, and the rows i ≥ 2 whose largest weight is there.
    const previous = previousMean(a);
    let rows = 0;
    for (let i = 1; i < n; i++) if (a[i][i - 1] === Math.max(...a[i])) rows += 1;
    showWeight(root.querySelector('[data-result="previous"]'), previous);
    const shown = root.querySelector('[data-result="rows"]');
    shown.dataset.value = String(rows);
    shown.textContent = `${rows} / ${n - 1}`;
    root.toggleAttribute("data-preview", preview !== null);
    if (!say) return;
    announce(root, message(words(root, "status"), {
      layer: l, head: h, previous: weight(previous), rows, n: n - 1,
    }));
  };

  for (const select of [sentence, layer, head]) select.addEventListener("input", () => update());
  // A head's thumbnail: that head below, its layer and head in the menus;
  // under the pointer, that head below until the pointer leaves (not said:
  // a click or the keyboard chooses).
  for (const b of picks) {
    const td = b.closest("td");
    b.addEventListener("click", () => {
      preview = null;
      layer.value = td.dataset.l;
      head.value = td.dataset.h;
      update();
    });
    b.addEventListener("pointerenter", (event) => {
      if (event.pointerType !== "mouse") return; // a touch is a click
      preview = [Number(td.dataset.l), Number(td.dataset.h)];
      update(false);
    });
    b.addEventListener("pointerleave", () => {
      if (preview === null) return;
      preview = null;
      update(false);
    });
  }
  // The weights at or below the diagonal: End goes to the query's own key.
  linkCells(weights, (b) => {
    pointed = b && cellAt(b);
    link();
  }, { rows: () => current().s.tokens.length, last: (i) => i });
  update();
}

register("attention_maps", mount);
