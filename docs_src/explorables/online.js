// Online softmax: the keys in blocks; after each block the running maximum
// m, the running sum l and the unnormalised output o, rescaled by e^(m − m')
// whenever the maximum rises. After the last block, o / l = softmax(s) V.
// A chart draws m and l against t, the keys processed, with a cursor at the
// block the reader has reached; where m rises, l is rescaled by e^(m − m').
import {
  announce, dataNode, field, fill, fmt, frame, matrix, message, optionList, register, resize,
  softmax, speak, status, sub, templates, words,
} from "./core.js";
import { chartBox, draw } from "./chart.js";

// How far before a block's end (in keys) the chart draws l's drop.
const DROP = 0.25;

// data: the page's scores s of one query, its values v (one row per key)
// and the block sizes to offer (the first shown).
export function render(w, data) {
  const inputs = data.s.map((sj, j) => field(sub("s", j + 1),
    `<input type="number" step="0.5" value="${sj}" data-s="${j}" disabled inputmode="decimal">`)).join("");
  const controls =
    `<div class="explorable-controls">${inputs}` +
    field(w.block, `<select data-block disabled>${optionList(data.blocks, data.blocks[0])}</select>`) +
    `<button type="button" data-next disabled>${w.next}</button>` +
    `<button type="button" data-restart disabled>${w.restart}</button>` +
    '<p class="explorable-error" id="explorable-online-error" data-error hidden></p></div>';
  const steps = matrix("steps", w.steps, data.s.map((_, j) => String(j + 1)),
    ["m", "ℓ", sub("o", 1), sub("o", 2), `${sub("o", 1)}/ℓ`, `${sub("o", 2)}/ℓ`]);
  const plain = matrix("plain", w.plain, [w.plain_row], ["1", "2"]);
  // The values v_t the outputs o mix (the page's V, one row per key).
  const values = matrix("values", w.values, data.v.map((_, t) => sub("v", t + 1)), ["1", "2"]);
  return frame("online", w,
    dataNode(data.v) + controls +
    `<div class="explorable-tables">${values}${chartBox("running", w.chart)}</div>` + steps + plain +
    status() + templates(w, "start", "step", "done", "empty"));
}

export function mount(root) {
  const V = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inputs = [...root.querySelectorAll("input[data-s]")];
  const block = root.querySelector("select[data-block]");
  const rows = [...root.querySelectorAll('[data-matrix="steps"] tbody tr')];
  const error = root.querySelector("[data-error]");
  let shown = 0; // blocks processed so far
  let steps = [];

  // The reader's scores, or null when one is blank or not a finite number:
  // that input is named, marked invalid, and the tables show "—".
  const read = () => {
    const s = inputs.map((input) => (input.value.trim() === "" ? NaN : Number(input.value)));
    for (const input of inputs) {
      input.setAttribute("aria-invalid", "false");
      input.removeAttribute("aria-describedby");
    }
    const j = s.findIndex((sj) => !Number.isFinite(sj));
    error.hidden = j < 0;
    speak(error, j < 0 ? "" : message(words(root, "empty"), { s: sub("s", j + 1) }));
    if (j < 0) return s;
    inputs[j].setAttribute("aria-invalid", "true");
    inputs[j].setAttribute("aria-describedby", error.id);
    for (const key of ["steps", "plain"]) {
      for (const cell of root.querySelectorAll(`[data-matrix="${key}"] td[data-i]`)) {
        cell.dataset.value = "";
        cell.textContent = "\u2014";
      }
    }
    return null;
  };

  const compute = () => {
    const s = read();
    if (!s) {
      steps = [];
      return null;
    }
    const size = Number(block.value);
    let [m, l, o] = [-Infinity, 0, V[0].map(() => 0)];
    steps = [];
    for (let start = 0; start < s.length; start += size) {
      const sb = s.slice(start, start + size);
      const vb = V.slice(start, start + size);
      const mNew = Math.max(m, ...sb); // m' = max(m, max_j s_j)
      const rescale = Math.exp(m - mNew); // e^(m − m'), 0 for the first block
      const e = sb.map((sj) => Math.exp(sj - mNew)); // e^(s_j − m')
      l = rescale * l + e.reduce((a, b) => a + b, 0); // l' = e^(m − m') l + Σ e^(s_j − m')
      o = o.map((oc, c) => rescale * oc + e.reduce((sum, ej, j) => sum + ej * vb[j][c], 0));
      m = mNew;
      steps.push({ keys: start + sb.length, row: [m, l, ...o, ...o.map((oc) => oc / l)] });
    }
    // All scores at once: softmax(s) V.
    const w = softmax(s);
    const plain = V[0].map((_, c) => w.reduce((sum, wj, j) => sum + wj * V[j][c], 0));
    fill(root, "steps", steps.map((step) => step.row), 3);
    fill(root, "plain", [plain], 4);
    fill(root, "values", V, 1);
    // Each row is named by t, the number of keys processed so far.
    rows.forEach((tr, t) => {
      if (t < steps.length) tr.querySelector("th").textContent = String(steps[t].keys);
    });
    resize(root, "steps", steps.length, 6);
    return plain;
  };

  // m and l against the keys processed t, as steps: each holds its value
  // until the block ending at t changes it. Where m rises to m', l first
  // drops to e^(m − m') l (drawn DROP keys before t) and then the block's
  // terms are added at t; l = 0 at t = 0. The cursor at the last block shown.
  const chart = () => {
    const ms = [];
    const ls = [[0, 0]];
    let prev = null; // the step before
    for (const step of steps) {
      const [m, l] = step.row;
      const t = step.keys;
      if (prev) ms.push([t, prev.m]); // m holds until the block ends
      ms.push([t, m]);
      const before = prev ? prev.l : 0;
      if (prev && m > prev.m) {
        // the drop: l rescaled by e^(m − m') before the block's terms are added
        ls.push([t - DROP, before], [t - DROP, Math.exp(prev.m - m) * before], [t, Math.exp(prev.m - m) * before]);
      } else ls.push([t, before]);
      ls.push([t, l]); // the add: + Σ e^(s_j − m')
      prev = { m, l };
    }
    const values = [...ms, ...ls].map(([, v]) => v);
    const [low, high] = [Math.min(...values), Math.max(...values)];
    draw(root.querySelector('[data-chart="running"]'), {
      x: { min: 0, max: inputs.length, label: "t" },
      y: { min: low, max: high > low ? high : low + 1 },
      lines: [{ points: ms, label: "m" }, { points: ls, label: "ℓ" }],
      cursor: shown > 0 ? steps[shown - 1].keys : undefined,
    });
  };

  const next = root.querySelector("button[data-next]");
  const showUpTo = (count) => {
    shown = Math.min(count, steps.length);
    // After the last block there is none to process: the button is disabled,
    // and the focus it had moves to "start again".
    const end = shown === steps.length;
    if (end && next.ownerDocument.activeElement === next) root.querySelector("button[data-restart]").focus();
    if (typeof window !== "undefined") next.disabled = end; // the build leaves every control disabled
    rows.forEach((tr, t) => tr.classList.toggle("explorable-later", t >= shown));
    rows.forEach((tr, t) => tr.classList.toggle("explorable-on", t === shown - 1));
    chart();
    if (shown === 0) return announce(root, words(root, "start"));
    const [m, l, o1, o2, z1, z2] = steps[shown - 1].row;
    const values = { keys: steps[shown - 1].keys, m: fmt(m, 4), l: fmt(l, 4), z: `(${fmt(z1, 4)}, ${fmt(z2, 4)})` };
    announce(root, message(words(root, shown === steps.length ? "done" : "step"), values));
  };

  const restart = () => {
    if (compute() === null) {
      next.disabled = true;
      rows.forEach((tr) => tr.classList.remove("explorable-on", "explorable-later"));
      draw(root.querySelector('[data-chart="running"]'), {
        x: { min: 0, max: inputs.length, label: "t" }, y: { min: 0, max: 1 }, lines: [],
      });
      return announce(root, error.innerHTML);
    }
    showUpTo(0);
  };
  for (const control of [...inputs, block]) control.addEventListener("input", restart);
  next.addEventListener("click", () => showUpTo(shown + 1));
  root.querySelector("button[data-restart]").addEventListener("click", restart);
  restart();
}

register("online", mount);
