// Online softmax: the keys in blocks; after each block the running maximum
// m, the running sum l and the unnormalised output o, rescaled by e^(m − m')
// whenever the maximum rises. After the last block, o / l = softmax(s) V.
// Three panels share the axis t, the keys processed: the scores s_j as bars
// with m over them (one quantity, scores); l, where m rises first shrunk by
// e^(m − m') (the factor written at the drop), then grown by the block's
// terms; and o / l, settling on softmax(s) V (dashed rules). The reader drags
// a score's bar up or down (the keyboard: that score's field), and presses on
// the l or o / l panel to process the keys up to the one under the pointer
// (the keyboard: "next block" and "start again"). A cursor marks the block
// the reader has reached; pointing at a row of the table rings that step's
// l and o / l on the panels.
import {
  announce, announceSettled, dataNode, field, fill, fmt, frame, matrix, message, optionList, register,
  resize, softmax, speak, status, sub, templates, words,
} from "./core.js";
import { chartBox, dragBars, draw, follow, valueAt } from "./chart.js";

// The scores' axis while no score lies outside it: fixed, so that a bar
// being dragged stays under the pointer; a score the reader drags is rounded
// to STEP (the fields' step) and kept within it.
const SCORES = { min: -2, max: 6 };
const STEP = 0.5;
// The panels' heights (chart.js viewBox units; the width is 360).
const TALL = 170;
const SHORT = 140;

// data: the page's scores s of one query, its values v (one row per key)
// and the block sizes to offer (the first shown).
export function render(w, data) {
  const inputs = data.s.map((sj, j) => field(sub("s", j + 1),
    `<input type="number" step="${STEP}" value="${sj}" data-s="${j}" disabled inputmode="decimal">`)).join("");
  const controls =
    `<div class="explorable-controls">${inputs}` +
    field(w.block, `<select data-block disabled>${optionList(data.blocks, data.blocks[0])}</select>`) +
    `<button type="button" data-next disabled>${w.next}</button>` +
    `<button type="button" data-restart disabled>${w.restart}</button>` +
    '<p class="explorable-error" id="explorable-online-error" data-error hidden></p></div>';
  // Each step's row named by a button (its t): focusing it, or pointing at
  // its row, rings that step on the panels; one Tab stop, the arrows move.
  const stepButton = (j) =>
    `<button type="button" data-step="${j}" data-cell tabindex="${j === 0 ? 0 : -1}" disabled>${j + 1}</button>`;
  const steps = matrix("steps", w.steps, data.s.map((_, j) => stepButton(j)),
    ["m", "ℓ", sub("o", 1), sub("o", 2), `${sub("o", 1)}/ℓ`, `${sub("o", 2)}/ℓ`]);
  const plain = matrix("plain", w.plain, [w.plain_row], ["1", "2"]);
  // The values v_t the outputs o mix (the page's V, one row per key).
  const values = matrix("values", w.values, data.v.map((_, t) => sub("v", t + 1)), ["1", "2"]);
  const panels = '<div class="explorable-panels">' + chartBox("scores", w.chart_scores, TALL) +
    chartBox("sum", w.chart_sum, SHORT) + chartBox("output", w.chart_output, TALL) + "</div>";
  return frame("online", w,
    dataNode(data.v) + controls + `<p class="explorable-note">${w.hint}</p>` +
    `<div class="explorable-online">${panels}<div class="explorable-online-tables">` +
    `${steps}<div class="explorable-tables">${values}${plain}</div></div></div>` +
    status() + templates(w, "start", "step", "done", "empty", "moved", "chart_start", "rescale", "underflow"));
}

export function mount(root) {
  const V = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const inputs = [...root.querySelectorAll("input[data-s]")];
  const block = root.querySelector("select[data-block]");
  const rows = [...root.querySelectorAll('[data-matrix="steps"] tbody tr')];
  const error = root.querySelector("[data-error]");
  let shown = 0; // blocks processed so far
  let steps = [];
  let scores = []; // the reader's s
  let plain = []; // softmax(s) V
  let pointed = null; // the table's row under the pointer: its step

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
    scores = s;
    plain = V[0].map((_, c) => w.reduce((sum, wj, j) => sum + wj * V[j][c], 0));
    fill(root, "steps", steps.map((step) => step.row), 3);
    fill(root, "plain", [plain], 4);
    fill(root, "values", V, 1);
    // Each row is named by t, the number of keys processed so far.
    rows.forEach((tr, t) => {
      if (t < steps.length) tr.querySelector("th button").textContent = String(steps[t].keys);
    });
    resize(root, "steps", steps.length, 6);
    return plain;
  };

  // The three panels, as steps against the keys processed t: each value
  // holds until the block ending at t changes it. Where m rises to m', l
  // first drops to e^(m − m') l and then the block's terms are added, both
  // at t, the t of the block (a drop drawn between two t, as it was, has no
  // meaning on an axis of keys processed: issue 40): down to a triangle,
  // the factor written beside it, then up; l = 0 at t = 0. o / l after
  // each block against softmax(s) V. The cursor at the last block processed.
  const chart = (s) => {
    const ms = [];
    const ls = [[0, 0]];
    const zs = V[0].map(() => []);
    const notes = [];
    const dips = [];
    let prev = null; // the step before
    for (const step of steps) {
      const [m, l] = step.row;
      const t = step.keys;
      if (prev) ms.push([t, prev.m]); // m holds until the block ends
      ms.push([t, m]);
      const before = prev ? prev.l : 0;
      if (prev && m > prev.m) {
        // the drop: l rescaled by e^(m − m') before the block's terms are added
        const factor = Math.exp(prev.m - m);
        ls.push([t, before], [t, factor * before]);
        dips.push({ x: t, y: factor * before });
        // the first drop named (r45): "rescale ×0.135"
        const name = notes.length ? "" : `${words(root, "rescale")} `;
        // A factor float64 rounds to 0 (e^(−999)) is said to be below
        // 10^−308, as the softmax figure says it (on two lines), never "×0.000".
        notes.push({
          x: t, y: (1 + factor) * before / 2,
          text: `${name}×${factor === 0 ? words(root, "underflow") : fmt(factor, 3)}`,
        });
      } else ls.push([t, before]);
      ls.push([t, l]); // the add: + Σ e^(s_j − m')
      step.row.slice(2 + V[0].length).forEach((z, c) => {
        if (prev) zs[c].push([t, prev.z[c]]); // o/ℓ holds until the block ends
        zs[c].push([t, z]);
      });
      prev = { m, l, z: step.row.slice(2 + V[0].length) };
    }
    const n = inputs.length;
    // In the browser, before the first block: the cursor at t = 0, and on
    // the l panel what to press (r45); the page as built shows no cursor.
    const live = typeof window !== "undefined";
    const cursor = shown > 0 ? steps[shown - 1].keys : live ? 0 : undefined;
    const hint = live && shown === 0 ? words(root, "chart_start") : undefined;
    const x = { min: 0, max: n, label: "t" };
    // In the browser, l and o/l are veiled beyond the keys processed (all of
    // them before the first block), revealed as the reader steps; the page
    // as built (without JavaScript, in print, in a notebook) shows them whole.
    const later = live ? cursor : undefined;
    const panel = (key) => root.querySelector(`[data-chart="${key}"]`);
    // every other block of keys shaded: key j's bar at t = j, its block
    // from t = start + 0.5 to end + 0.5
    const bands = steps
      .map((step, b) => ({ from: (b ? steps[b - 1].keys : 0) + 0.5, to: Math.min(step.keys + 0.5, n) }))
      .filter((_, b) => b % 2 === 1);
    draw(panel("scores"), {
      bands, x, y: { min: Math.min(SCORES.min, ...s), max: Math.max(SCORES.max, ...s) },
      lines: [{ points: s.map((sj, j) => [j + 1, sj]), dots: true }, { points: ms, label: "m" }],
      cursor,
    });
    // the step of the row pointed at in the table, ringed on l and o / l
    const at = pointed !== null && pointed < shown ? steps[pointed] : null;
    draw(panel("sum"), {
      x, y: { min: 0, max: Math.max(1, ...ls.map(([, l]) => l)) },
      lines: [{ points: ls, label: "ℓ" }], notes, dips, cursor, later, hint,
      marks: at ? [{ x: at.keys, y: at.row[1] }] : [],
    });
    const columns = V[0].map((_, c) => V.map((row) => row[c]));
    draw(panel("output"), {
      x, y: { min: Math.min(0, ...columns.flat()), max: Math.max(1, ...columns.flat()) },
      lines: zs.map((points, c) => ({ points, label: `o${"₁₂₃₄"[c]}/ℓ` })),
      rules: plain.map((z, c) => ({ y: z, label: `softmax(s)V${"₁₂₃₄"[c]}` })),
      cursor, later,
      marks: at ? at.row.slice(2 + V[0].length).map((z) => ({ x: at.keys, y: z })) : [],
    });
  };

  const next = root.querySelector("button[data-next]");
  // `settle`: the reader is dragging, and only the last state is said.
  const showUpTo = (count, settle = false) => {
    shown = Math.min(count, steps.length);
    // After the last block there is none to process: the button is disabled,
    // and the focus it had moves to "start again".
    const end = shown === steps.length;
    if (end && next.ownerDocument.activeElement === next) root.querySelector("button[data-restart]").focus();
    if (typeof window !== "undefined") next.disabled = end; // the build leaves every control disabled
    rows.forEach((tr, t) => tr.classList.toggle("explorable-later", t >= shown));
    rows.forEach((tr, t) => tr.classList.toggle("explorable-on", t === shown - 1));
    chart(scores);
    if (shown === 0) return (settle ? announceSettled : announce)(root, words(root, "start"));
    const [m, l, , , z1, z2] = steps[shown - 1].row;
    const values = { keys: steps[shown - 1].keys, m: fmt(m, 4), l: fmt(l, 4), z: `(${fmt(z1, 4)}, ${fmt(z2, 4)})` };
    (settle ? announceSettled : announce)(root, message(words(root, shown === steps.length ? "done" : "step"), values));
  };

  // A score changed (typed, or its bar dragged): the blocks processed stay
  // processed, with the new numbers; said once the reader stops.
  const rescore = (j) => {
    if (compute() === null) return refuse();
    showUpTo(shown, true);
    announceSettled(root, message(words(root, "moved"), {
      s: sub("s", j + 1), value: fmt(scores[j], 1),
      z: `(${plain.map((z) => fmt(z, 4)).join(", ")})`,
    }));
  };
  const refuse = () => {
    next.disabled = true;
    rows.forEach((tr) => tr.classList.remove("explorable-on", "explorable-later"));
    for (const key of ["scores", "sum", "output"]) {
      draw(root.querySelector(`[data-chart="${key}"]`), {
        x: { min: 0, max: inputs.length, label: "t" }, y: { min: 0, max: 1 }, lines: [],
      });
    }
    return announce(root, error.innerHTML);
  };
  const restart = () => {
    if (compute() === null) return refuse();
    showUpTo(0);
  };
  // Linked both ways, by pointer, focus and tap (r47): pointing at a step's
  // row or focusing its button, or pointing at key t on a panel (a bar, or
  // l and o/l at t), marks that step's row and rings its l and o / l on the
  // panels. The focused row's link holds while the pointer is elsewhere.
  const stepButtons = rows.map((tr) => tr.querySelector("button[data-step]"));
  const focusedStep = () => {
    const t = stepButtons.indexOf(root.ownerDocument.activeElement);
    return t >= 0 ? t : null;
  };
  const point = (t) => {
    if (t === pointed) return;
    pointed = t;
    rows.forEach((tr, k) => tr.classList.toggle("explorable-linked", k === t));
    if (steps.length) chart(scores);
  };
  rows.forEach((tr, t) => {
    tr.addEventListener("pointerenter", () => point(t));
    tr.addEventListener("pointerleave", () => point(focusedStep()));
  });
  stepButtons.forEach((b, t) => {
    b.addEventListener("focus", () => {
      stepButtons.forEach((other) => (other.tabIndex = other === b ? 0 : -1));
      point(t);
    });
    b.addEventListener("blur", () => point(focusedStep()));
    b.addEventListener("click", () => b !== b.ownerDocument.activeElement && b.focus());
    b.addEventListener("keydown", (event) => {
      const shownRows = rows.filter((tr) => !tr.hidden).length;
      const to = { ArrowUp: t - 1, ArrowDown: t + 1, Home: 0, End: shownRows - 1 }[event.key];
      if (to === undefined || to < 0 || to >= shownRows) return;
      event.preventDefault();
      stepButtons[to].focus();
    });
  });
  // key t under the pointer on a panel: the step whose block holds it
  const stepOf = (t) => {
    const k = steps.findIndex((step) => step.keys >= Math.round(t));
    return Math.round(t) >= 1 && k >= 0 ? k : null;
  };
  for (const key of ["scores", "sum", "output"]) {
    const svg = root.querySelector(`[data-chart="${key}"]`);
    svg.addEventListener("pointermove", (event) => {
      if (svg.chartX) point(stepOf(valueAt(svg, event)[0]));
    });
    svg.addEventListener("pointerleave", () => point(focusedStep()));
  }
  inputs.forEach((input, j) => input.addEventListener("input", () => rescore(j)));
  block.addEventListener("input", restart);
  next.addEventListener("click", () => showUpTo(shown + 1));
  root.querySelector("button[data-restart]").addEventListener("click", restart);

  // Pressing a bar (the key nearest the pointer) and dragging sets its score.
  dragBars(root.querySelector('[data-chart="scores"]'), inputs, STEP, rescore);
  // Pressing the l or o/l panel at t processes the blocks up to key t.
  for (const key of ["sum", "output"]) {
    follow(root.querySelector(`[data-chart="${key}"]`), (t) => {
      if (!steps.length) return;
      const keys = Math.round(t);
      const count = keys === 0 ? 0 : steps.findIndex((step) => step.keys >= keys) + 1;
      if (count !== shown) showUpTo(count, true);
    });
  }
  restart();
}

register("online", mount);
