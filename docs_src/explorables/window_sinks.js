// Window and sinks, positions from 0 as the sliding-window page counts them
// (n_q = n_k = n, so query i sits at position p_i = i):
// - the mask M_ij = [i − W < j ≤ i] or [j < n_sink and j ≤ i], drawn as the
//   masks explorable's grid: a cell in the window in the figure's teal, a
//   sink cell outside the window in its accent with a corner of the full
//   accent, a False cell hatched (three cues beyond colour), with a legend
//   in words;
// - the rolling cache of n_sink + W rows, RollingKVCache's rule
//   r(p) = p (p < n_sink), n_sink + (p − n_sink) mod W (p ≥ n_sink): which
//   position each row holds when the newest query is computed;
// - a chart of the cache's rows against the tokens written, min(t, n_sink + W),
//   beside a cache without a window (t rows), with a cursor at n that the
//   reader drags (pressing on the chart sets n, as the slider does).
// - what the window and the sinks do to the weights: the newest query's
//   weights over the keys (scores S from the page's artificial attention,
//   key 0 the sink), the softmax of S_{n−1, j} over every key up to it (no
//   window), over the keys the mask keeps with the chosen sinks, and over
//   the window alone (n_sink = 0). Keeping only the keys J' of all J
//   multiplies every weight left by 1/(1 − a_drop), a_drop the weight the
//   full attention put on the keys dropped (the page's a_drop): the window
//   alone drops the sink too (a_drop near 1 on the page's scores), the
//   window with the sinks drops little.
// Each cell of the grid is a button (one Tab stop, arrow keys inside):
// pointing at it or focusing it shows the cache as query i meets it, frames
// query i's row and the cache row holding key j, and says both in words;
// pointing at a cache row frames the grid's column of the key it holds.
// The weights (chart and table) are query i's, the newest's unless a cell
// is pointed at, key j's stems shaded; pointing at a stem (or a weight in
// the table) frames key j's column in the grid, its cache row and its
// weights.
import {
  announce, announceSettled, cellAt, dataNode, esc, field, frame, linkCells, matrix, message,
  optionList, register, resize, show, softmax, status, templates, words,
} from "./core.js";
import { chartBox, draw, follow, valueAt } from "./chart.js";

const SINKS = [0, 1, 2, 3, 4];

// data: the sizes the figure starts from (n, window, n_sink) and the largest n
// and W it offers (max).
export function render(w, data) {
  const sizes = [...Array(data.max).keys()].map((i) => i + 1);
  const positions = [...Array(data.max).keys()];
  const controls =
    '<div class="explorable-controls">' +
    '<div class="explorable-range"><label for="explorable-window_sinks-n">' + w.n + "</label>" +
    `<input type="range" id="explorable-window_sinks-n" min="1" max="${data.max}" step="1" ` +
    `value="${data.n}" data-size="n" disabled>` +
    `<output for="explorable-window_sinks-n" data-shown="n">${data.n}</output></div>` +
    field(w.window, `<select data-size="window" disabled>${optionList(sizes, data.window)}</select>`) +
    field(w.n_sink, `<select data-size="n_sink" disabled>${optionList(SINKS, data.n_sink)}</select>`) +
    "</div>";
  // The grid: rows the queries, columns the keys, by position (from 0).
  const hideCol = (j) => (j >= data.n ? " hidden" : "");
  // A key's heading that can be a sink (j < the most sinks offered) is a
  // toggle button: pressed, key j is a sink; pressing it sets n_sink to j + 1
  // (or to j, when it was the last sink), on the picture itself.
  const most = SINKS[SINKS.length - 1];
  const head = positions.map((j) => `<th scope="col" data-j="${j}"${hideCol(j)}>` +
    (j < most ? `<button type="button" data-sink-key="${j}" aria-pressed="${j < data.n_sink}" disabled>${j}</button>`
      : String(j)) + "</th>").join("");
  const body = positions.map((i) => {
    const cells = positions.map((j) =>
      `<td data-i="${i}" data-j="${j}"${hideCol(j)}><button type="button" data-cell ` +
      `tabindex="${i === data.n - 1 && j === 0 ? 0 : -1}" disabled>` +
      '<span data-value="0">0</span></button></td>');
    return `<tr data-i="${i}"${i >= data.n ? " hidden" : ""}><th scope="row">${i}</th>${cells.join("")}</tr>`;
  }).join("");
  const grid =
    '<div class="explorable-scroll" tabindex="0" role="region" ' +
    `aria-label="${esc(w.mask_region)}">` +
    '<table class="explorable-matrix explorable-grid explorable-band" data-matrix="mask">' +
    `<caption>${w.mask}</caption><thead>` +
    `<tr><td></td><th scope="colgroup" colspan="${data.max}" class="explorable-axis">${w.keys}</th></tr>` +
    // the corner: the words, or on a phone's narrow column "i↓ j→" (the
    // words stay for a screen reader, and in the row above, the keys')
    `<tr><th scope="col" class="explorable-corner"><span class="explorable-corner-words">${w.queries}</span>` +
    '<span class="explorable-corner-short" aria-hidden="true"><i>i</i>↓ <i>j</i>→</span></th>' +
    `${head}</tr></thead>` +
    `<tbody>${body}</tbody></table></div>`;
  const swatch = (kind) => `<span class="explorable-swatch" data-kind="${kind}" aria-hidden="true"></span>`;
  const legend =
    '<ul class="explorable-legend">' +
    `<li>${swatch("window")}${w.legend_window}</li>` +
    `<li>${swatch("sink")}${w.legend_sink}</li>` +
    `<li>${swatch("masked")}${w.legend_masked}</li></ul>`;
  // The cache: its rows r = 0 … n_sink + W − 1, each with the position it holds.
  const slotsMost = most + data.max;
  const capacity = data.n_sink + data.window;
  const rows = [...Array(slotsMost).keys()];
  const slotHidden = (r) => (r >= capacity ? " hidden" : "");
  const cache =
    '<div class="explorable-scroll">' +
    '<table class="explorable-matrix explorable-slots" data-matrix="cache">' +
    `<caption>${w.cache}</caption><thead><tr><th scope="col">${w.slot}</th>` +
    rows.map((r) => `<th scope="col" data-j="${r}"${slotHidden(r)}>${r}</th>`).join("") +
    `</tr></thead><tbody><tr data-i="0"><th scope="row">${w.position}</th>` +
    rows.map((r) => `<td data-i="0" data-j="${r}"${slotHidden(r)} data-value="-1">—</td>`).join("") +
    "</tr></tbody></table></div>" +
    // W changed on the cache itself: a row fewer or a row more
    '<div class="explorable-controls explorable-window-steps" role="group" aria-labelledby="explorable-window-steps">' +
    `<span id="explorable-window-steps">${w.window_steps}</span>` +
    `<button type="button" data-window-step="-1" disabled>${w.narrower}</button>` +
    `<button type="button" data-window-step="1" disabled>${w.wider}</button></div>`;
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results =
    '<dl class="explorable-results">' + ["rows", "capacity", "full"].map(result).join("") + "</dl>";
  // The newest query's weights: without a window, with the window and the
  // sinks (their number in the row's name), with the window alone.
  const withSinks = `<span data-with-sinks>${message(w.with_sinks, { n: data.n_sink })}</span>`;
  const weights =
    '<div class="explorable-scroll explorable-sink-weights" tabindex="0" role="region" ' +
    // one row a key j, one column a mask: three numbers a line fit any
    // width (review F5: sixteen keys across scrolled even at 1280 px)
    `aria-label="${esc(w.weights_region)}">` + matrix("weights", `<span class="explorable-caption-box">${w.weights}</span>`,
      positions.map(String), [w.full_row, withSinks, w.without_sinks], { shownRows: data.n }) + "</div>";
  const dropped =
    '<dl class="explorable-results explorable-results-labels-wrap">' +
    ["query", "drop_window", "ratio_window", "drop_sinks", "ratio_sinks"].map(result).join("") + "</dl>";
  // What the controls change first (the sizes, the chart), then the grid and
  // the cache, whose words under them change as the reader points at a cell:
  // nothing above them moves.
  return frame("window_sinks", w, dataNode({ scores: data.scores }) + controls +
    `<div class="explorable-tables">${results}${chartBox("rows", w.chart)}</div>` +
    `<div class="explorable-charts">${chartBox("sinks", w.sinks_chart)}</div>${dropped}${weights}` +
    `<div class="explorable-tables">${grid}${legend}</div>` +
    `<div class="explorable-tables">${cache}</div>` +
    '<p class="explorable-terms" data-linked-said></p>' +
    status() + templates(w, "status", "cell", "sink_key", "kind_window", "kind_sink", "kind_outside",
      "kind_future", "linked", "key_in", "key_out", "slot_item", "newest", "line_window",
      "line_full", "with_sinks"));
}

export function mount(root) {
  const size = (key) => Number(root.querySelector(`[data-size="${key}"]`).value);
  const grid = root.querySelector('[data-matrix="mask"]');
  const slots = root.querySelector('[data-matrix="cache"]');
  const said = root.querySelector("[data-linked-said]");
  const chart = root.querySelector('svg[data-chart="rows"]');
  const sinkChart = root.querySelector('svg[data-chart="sinks"]');
  const { scores } = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const buttons = [...grid.querySelectorAll("button[data-cell]")];
  const sinkKeys = [...grid.querySelectorAll("button[data-sink-key]")];
  const steps = [...root.querySelectorAll("button[data-window-step]")];
  const windowSelect = root.querySelector('select[data-size="window"]');
  let pointed = null; // [i, j] under the pointer or the focus

  const result = (key, n) => {
    const el = root.querySelector(`[data-result="${key}"]`);
    el.dataset.value = String(n);
    el.textContent = String(n);
  };

  // What query i (at position i) may see of key j: the window, a sink, or
  // nothing (outside the window, or a later position).
  const kindOf = (i, j, w, sinks) => {
    if (j > i) return "future";
    if (i - w < j) return "window"; // i − W < j ≤ i
    if (j < sinks) return "sink"; // j < n_sink and j ≤ i
    return "outside";
  };
  // The cache's row of position p: r(p) = p (p < n_sink), n_sink + (p − n_sink) mod W.
  const row = (p, w, sinks) => (p < sinks ? p : sinks + ((p - sinks) % w));
  // The positions the cache keeps after positions 0 … t − 1 were written:
  // p < n_sink and p ≥ t − W (the last W), each in its row r(p).
  const cacheAfter = (t, w, sinks) => {
    const held = new Array(sinks + w).fill(null);
    for (let p = 0; p < t; p++) if (p < sinks || p >= t - w) held[row(p, w, sinks)] = p;
    return held;
  };

  // The cache as query i meets it (i + 1 tokens written), its rows marked:
  // a sink's row, the window's rows, the row holding key j framed.
  const link = () => {
    const [n, w, sinks] = [size("n"), size("window"), size("n_sink")];
    const [i, j] = pointed ?? [n - 1, null];
    const held = cacheAfter(i + 1, w, sinks);
    for (const td of slots.querySelectorAll("td[data-j]")) {
      const r = Number(td.dataset.j);
      const p = r < held.length ? held[r] : null;
      td.dataset.value = p === null ? "-1" : String(p); // −1: a row not written yet
      td.textContent = p === null ? "—" : String(p);
      td.dataset.kind = p === null ? "empty" : p < sinks ? "sink" : "window";
      td.classList.toggle("explorable-linked", j !== null && p === j);
    }
    for (const tr of grid.querySelectorAll("tbody tr")) {
      tr.classList.toggle("explorable-linked", Number(tr.dataset.i) === i);
    }
    const keys = [...Array(i + 1).keys()].filter((k) => kindOf(i, k, w, sinks) !== "outside");
    const list = held.flatMap((p, r) => (p === null ? [] : [message(words(root, "slot_item"), { r, p })]));
    let text = message(words(root, "linked"), {
      i, keys: keys.join(", "), count: keys.length, slots: list.join("、"),
    });
    if (!pointed) text = `${words(root, "newest")}${text}`;
    if (j !== null) {
      const r = held.indexOf(j);
      text += message(words(root, r >= 0 ? "key_in" : "key_out"), {
        j, r, kind: words(root, `kind_${kindOf(i, j, w, sinks)}`),
      });
    }
    said.innerHTML = text;
    weigh();
  };

  // Query i's weights (i = n − 1 unless a cell is pointed at): the softmax
  // of its scores over the keys its mask keeps, with the chosen sinks and
  // with none; key j's stems shaded (a cell's key, or the key pointed at).
  let keyPointed = null; // a key pointed at on the chart or in the table
  const weigh = () => {
    const [n, w, sinks] = [size("n"), size("window"), size("n_sink")];
    const [i, cellKey] = pointed ?? [n - 1, null];
    const key = keyPointed ?? cellKey;
    const seen = (j, k) => ["window", "sink"].includes(kindOf(i, j, w, k));
    const full = softmax(scores[i].slice(0, n).map((v, j) => (j <= i ? v : -Infinity))); // no window
    const weightsOf = (k) => softmax(scores[i].slice(0, n).map((v, j) => (seen(j, k) ? v : -Infinity)));
    const [withSinks, without] = [weightsOf(sinks), weightsOf(0)];
    root.querySelector("[data-with-sinks]").textContent = message(words(root, "with_sinks"), { n: sinks });
    resize(root, "weights", n, 3);
    // a key the mask leaves out (or a later one): exactly 0, written "0"
    [full, withSinks, without].forEach((ws, c) => ws.forEach((v, j) => show(
      root.querySelector(`[data-matrix="weights"] td[data-i="${j}"][data-j="${c}"]`), v, v === 0 ? 0 : 3)));
    for (const tr of root.querySelectorAll('[data-matrix="weights"] tr[data-i]')) {
      for (const cell of tr.children) {
        cell.classList.toggle("explorable-column", key !== null && Number(tr.dataset.i) === key);
      }
    }
    result("query", i);
    // a_drop: the full attention's weight on the keys a mask drops (k
    // sinks); the weights left are multiplied by 1/(1 − a_drop), the
    // inverse of the share of the keys kept
    const dropped = (k) => full.reduce((x, v, j) => x + (j <= i && !seen(j, k) ? v : 0), 0);
    const kept = (k) => full.reduce((x, v, j) => x + (seen(j, k) ? v : 0), 0);
    for (const [name, k] of [["window", 0], ["sinks", sinks]]) {
      show(root.querySelector(`[data-result="drop_${name}"]`), dropped(k), 3);
      // 1/(1 − a) − 1 = a/(1 − a): 0 when nothing is dropped, where the
      // share kept is 1 up to float64's rounding of its sum (fmt's gap)
      // (four decimals under 10, so that keeping the sinks reads 1.0004,
      // not "< 1.1"; one above, 1980.9; "1.0" when nothing is dropped)
      const r = 1 / kept(k);
      const gap = dropped(k) / kept(k);
      show(root.querySelector(`[data-result="ratio_${name}"]`), r, gap === 0 || r >= 10 ? 1 : 4, gap);
    }
    const shown = (ws, dx) => ws.flatMap((v, j) => (ws === without ? kindOf(i, j, w, 0) === "window"
      : ["window", "sink"].includes(kindOf(i, j, w, sinks))) ? [[j + dx, v]] : []);
    const most = Number(root.querySelector('[data-size="n"]').max);
    draw(sinkChart, {
      x: { min: -0.5, max: most - 0.5, label: "j" },
      y: { min: 0, max: 1 },
      lines: [{ points: shown(withSinks, -0.18), dots: true }, { points: shown(without, 0.18), dots: true }],
      bands: key !== null && key <= i ? [{ from: key - 0.5, to: key + 0.5 }] : [],
    });
  };

  const update = (settled) => {
    const [n, w, sinks] = [size("n"), size("window"), size("n_sink")];
    root.querySelector('[data-shown="n"]').textContent = String(n);
    resize(root, "mask", n, n);
    grid.querySelector(".explorable-axis").colSpan = n;
    for (const b of buttons) {
      const [i, j] = cellAt(b);
      const td = b.closest("td");
      const kind = kindOf(i, j, w, sinks);
      const m = kind === "window" || kind === "sink" ? 1 : 0; // M_ij
      td.dataset.kind = kind;
      td.toggleAttribute("data-masked", m === 0);
      const span = b.querySelector("span");
      span.dataset.value = String(m);
      // A hidden cell (i or j ≥ n) shows no number: text without the page's
      // style (reader mode, a copy of the page) must not show a larger n.
      span.textContent = i < n && j < n ? String(m) : "";
      // Named in words; a hidden cell needs no name until it is shown.
      if (i < n && j < n) {
        b.setAttribute("aria-label", message(words(root, "cell"), {
          i, j, m, kind: words(root, `kind_${kind}`),
        }));
      } else b.removeAttribute("aria-label");
    }
    // One Tab stop in the grid: where it was if still shown, else the newest query's first key.
    const stop = buttons.find((b) => b.tabIndex === 0);
    const [si, sj] = stop ? cellAt(stop) : [n, n];
    if (si >= n || sj >= n) {
      for (const b of buttons) b.tabIndex = -1;
      grid.querySelector(`td[data-i="${n - 1}"][data-j="0"] button`).tabIndex = 0;
    }
    resize(root, "cache", 1, sinks + w);
    for (const b of sinkKeys) {
      const j = Number(b.dataset.sinkKey);
      b.setAttribute("aria-pressed", String(j < sinks));
      b.closest("th").toggleAttribute("data-sink", j < sinks); // the sink cells' corner, on its key
      b.setAttribute("aria-label", message(words(root, "sink_key"), { j }));
    }
    for (const b of steps) {
      const to = w + Number(b.dataset.windowStep);
      // (disabled as the select is: in the page without its script, too)
      b.disabled = windowSelect.disabled || to < 1 || to > windowSelect.options.length;
    }
    if (pointed && (pointed[0] >= n || pointed[1] >= n)) pointed = null;
    link();
    // The rows after n tokens: min(n, n_sink + W); without a window, n.
    const held = cacheAfter(n, w, sinks).filter((p) => p !== null);
    result("rows", held.length);
    result("capacity", sinks + w); // the buffer's rows, fixed
    result("full", n); // a cache without a window
    const most = Number(root.querySelector('[data-size="n"]').max);
    const ts = [...Array(most + 1).keys()]; // t = 0 … the largest n
    draw(chart, {
      x: { min: 0, max: most + 3, label: "n" }, // room for the lines' labels
      y: { min: 0, max: most },
      lines: [
        { points: ts.map((t) => [t, Math.min(t, sinks + w)]), label: words(root, "line_window") },
        { points: ts.map((t) => [t, t]), label: words(root, "line_full") },
      ],
      cursor: n,
      notes: [{ x: n, y: held.length, text: String(held.length) }], // the rows at the cursor
    });
    const kept = [...held].sort((a, b) => a - b);
    (settled ? announce : (r, html) => announceSettled(r, html, 600))(root,
      message(words(root, "status"), { rows: held.length, n, positions: kept.join(", ") }));
  };

  // Pressing or dragging on the chart sets n (a whole number from 1 to the
  // slider's largest), said once the reader stops, as the slider's drag.
  const slider = root.querySelector('[data-size="n"]');
  follow(chart, (v) => {
    const n = Math.min(Number(slider.max), Math.max(1, Math.round(v)));
    if (String(n) === slider.value) return;
    slider.value = String(n);
    update(false);
  });
  // A cache row under the pointer frames the grid's column of the key it
  // holds (the keyboard reaches the same link from the grid's cells).
  const frameColumn = (p) => {
    for (const cell of grid.querySelectorAll("[data-j]")) {
      cell.classList.toggle("explorable-column", p !== null && Number(cell.dataset.j) === p);
    }
  };
  for (const td of slots.querySelectorAll("td[data-j]")) {
    td.addEventListener("pointerenter", () => frameColumn(td.dataset.value === "-1" ? null : Number(td.dataset.value)));
    td.addEventListener("pointerleave", () => frameColumn(null));
  }
  // A stem pointed at (the key nearest the pointer, up to the query's
  // position), or a weight in the table: its key's column in the grid, its
  // cache row and its weights framed, its stems shaded.
  const pointKey = (j) => {
    if (j === keyPointed) return;
    keyPointed = j;
    frameColumn(j);
    for (const td of slots.querySelectorAll("td[data-j]")) {
      td.classList.toggle("explorable-linked", j !== null && td.dataset.value === String(j));
    }
    weigh();
  };
  sinkChart.addEventListener("pointermove", (event) => {
    const j = Math.round(valueAt(sinkChart, event)[0]);
    const i = pointed ? pointed[0] : size("n") - 1;
    pointKey(j >= 0 && j <= i ? j : null);
  });
  sinkChart.addEventListener("pointerleave", () => pointKey(null));
  for (const td of root.querySelectorAll('[data-matrix="weights"] td[data-i]')) {
    td.addEventListener("pointerenter", () => pointKey(Number(td.dataset.i)));
    td.addEventListener("pointerleave", () => pointKey(null));
  }
  linkCells(buttons, (b) => {
    pointed = b && cellAt(b);
    link();
  }, { rows: () => size("n"), last: () => size("n") - 1, control: "button[data-cell]" });
  // The picture's own controls: a key's heading makes it the last sink (or
  // drops it), a step on the cache changes W by one row; the selects follow,
  // and the status says the cache at once, as a select's change does.
  for (const b of sinkKeys) {
    b.addEventListener("click", () => {
      const j = Number(b.dataset.sinkKey);
      const select = root.querySelector('select[data-size="n_sink"]');
      select.value = String(Number(select.value) === j + 1 ? j : j + 1);
      update(true);
    });
  }
  for (const b of steps) {
    b.addEventListener("click", () => {
      windowSelect.value = String(size("window") + Number(b.dataset.windowStep));
      update(true);
      // a step that reached the end leaves the focus on the step that remains
      if (b.disabled) steps.find((other) => !other.disabled)?.focus();
    });
  }
  // A drag of the slider is said once it settles; a step from the keyboard,
  // or the end of a drag (the slider's change), at once.
  root.querySelector('[data-size="n"]').addEventListener("input", () => update(false));
  root.querySelector('[data-size="n"]').addEventListener("change", () => update(true));
  for (const select of root.querySelectorAll("select[data-size]")) {
    select.addEventListener("input", () => update(true));
  }
  update(true);
}

register("window_sinks", mount);
