// Softmax, temperature and saturation: s = softmax(t x), the largest weight,
// the rest ε = 1 − max s, and the Jacobian ds_j/du_l = s_j (δ_jl − s_l) with respect to
// the softmax's input u = t x (with respect to x it is t times larger).
// 1 − s_j is computed as the sum of the other weights, never as a difference:
// when s_j rounds to 1, 1 − s_j is 0 in floating point while ε, and the
// Jacobian's diagonal s_j (1 − s_j), are still positive (x = (0, 0, 5), t = 10:
// ε = 3.9 × 10^-22).
// A chart of the scores x_j as bars, each dragged up or down to set x_j (the
// keyboard: x_j's field). Two charts follow t from 0 to 10: the weights
// s_j(t), and, on a log-10 axis down to 10^−16, the Jacobian's largest entry
// max|J|(t) under ε(t), the bound |ds_j/du_l| ≤ ε the page proves for the
// softmax's own input (here u), each with a cursor at the current t that
// the reader drags.
import {
  announce, announceSettled, field, fill, fmt, frame, linkCells, matrix, message, numberCell, register,
  said, sci, show, showSci, softmax, speak, status, sub, templates, words,
} from "./core.js";
import { chartBox, dragBars, draw, follow, valueAt } from "./chart.js";

const T_MAX = 10;
// The log axis of max|J| stops at 10^−16 (about float64's epsilon): below,
// the curve leaves the plot, marked where it does.
const FLOOR = 1e-16;
const T_STEPS = 100; // the slider's steps of 0.1: the charts' samples
// The scores' axis while no x_j lies outside it: fixed, so that a bar being
// dragged stays under the pointer; a dragged x_j is rounded to the fields'
// step and kept within it.
const SCORES = { min: -2, max: 5 };
const STEP = 0.5;

// data: the page's scores x and factor t.
export function render(w, data) {
  const inputs = data.x.map((xj, j) => field(sub("x", j + 1),
    `<input type="number" step="${STEP}" value="${xj}" data-x="${j}" disabled inputmode="decimal">`)).join("");
  const scale =
    `<label class="explorable-field explorable-wide" for="explorable-softmax-t">${w.scale}</label>` +
    `<input type="range" id="explorable-softmax-t" min="0" max="${T_MAX}" step="0.1" ` +
    `value="${data.t}" data-t disabled>` +
    `<output for="explorable-softmax-t" data-t-shown>${fmt(data.t, 1)}</output>`;
  const error = '<p class="explorable-error" id="explorable-softmax-error" data-error hidden></p>';
  // A state to start from, set by one button each (data.presets): x and t.
  const presets = Object.entries(data.presets || {}).map(([name, { x, t }]) =>
    `<button type="button" data-preset="${name}" data-set-x="${x.join(" ")}" data-set-t="${t}" disabled>` +
    `${message(w[`preset_${name}`], { x: `(${x.join(", ")})`, t })}</button>`).join("");
  // s_j: a bar as long as the weight, and the weight, in a button that
  // links w_j's views (focus, pointer, tap; one Tab stop, arrows: linkCells).
  const bar = (i, j, attrs) =>
    `<td${attrs} class="explorable-bar-cell"><button type="button" data-w="${i}" ` +
    `tabindex="${i === 0 ? 0 : -1}" disabled><span class="explorable-bar" style="--w: 0%"></span>` +
    `<span data-value="0" data-s="${i}">0</span></button></td>`;
  // ∂w_j/∂u_l: a button that links w_j's and w_l's views (as w_j's).
  const entry = (i, j, attrs) =>
    `<td${attrs}><button type="button" data-value="0" tabindex="${i === 0 && j === 0 ? 0 : -1}" disabled>0</button></td>`;
  const labels = data.x.map((_, j) => sub("x", j + 1));
  const weights = matrix("weights", w.weights, labels,
    [sub("x", "j"), `${sub("u", "j")} = t${sub("x", "j")}`, sub("w", "j")],
    { cell: (i, j, attrs) => (j === 2 ? bar(i, j, attrs) : numberCell(attrs)) })
    .replace('class="explorable-matrix"', 'class="explorable-matrix explorable-cells"');
  // The Jacobian as a diverging heat map (explorables.css): --p and --n
  // its entry's positive and negative part over 1/4, the largest an entry
  // can be (s_j (1 − s_j) and s_j s_l are at most 1/4), so that the map
  // fades to the page's colour as the softmax saturates.
  const jacobian = matrix("jacobian", w.jacobian,
    labels.map((_, j) => sub("w", j + 1)), labels.map((_, j) => sub("u", j + 1)), { cell: entry })
    .replace('class="explorable-matrix"', 'class="explorable-matrix explorable-diverging explorable-cells"');
  const scaleNote = `<p class="explorable-range-note">${w.jacobian_colours}</p>`;
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results = `<dl class="explorable-results">${result("largest")}${result("rest")}${result("jmax")}</dl>`;
  const charts = `<div class="explorable-charts">${chartBox("weights", w.chart_weights)}` +
    `${chartBox("jmax", w.chart_jmax)}</div>`;
  return frame("softmax", w,
    `<div class="explorable-controls">${inputs}${error}<div class="explorable-range">${scale}</div>` +
    `<div class="explorable-controls explorable-presets">${presets}</div></div>` +
    // the two charts against t side by side; the bars of x beside x's table
    charts + `<div class="explorable-tables">${chartBox("scores", w.chart_x)}${weights}` +
    `<div>${jacobian}${scaleNote}</div></div>` +
    results + `<p class="explorable-note">${w.temperature}</p>` + status() +
    templates(w, "status", "empty", "overflow", "underflow", "underflow_negative"));
}

// Everything the figure shows at one t, or null when t x_j overflows (the
// package's softmax raises for such an input: it is not finite).
function state(x, t) {
  const tx = x.map((xj) => t * xj); // u = t x
  if (!tx.every(Number.isFinite)) return null;
  const s = softmax(tx);
  // 1 − s_j, as the sum of the other weights.
  const others = s.map((_, j) => s.reduce((sum, sl, l) => (l === j ? sum : sum + sl), 0));
  // ds_j/du_l = s_j (δ_jl − s_l)
  const jacobian = s.map((sj, j) => s.map((sl, l) => (j === l ? sj * others[j] : -sj * sl)));
  const largest = Math.max(...s);
  return {
    tx, s, others, jacobian, largest,
    rest: others[s.indexOf(largest)], // ε = Σ_{j ≠ argmax} s_j
    jmax: Math.max(...jacobian.flat().map(Math.abs)),
  };
}

// A number with 4 fixed decimals from 10^−3 up, in the form m × 10^e below.
const fixed = (v) => v === 0 || Math.abs(v) >= 1e-3;
const number = (el, v) => (fixed(v) ? show(el, v, 4) : showSci(el, v));

const SUBSCRIPT = (j) => String(j).replace(/\d/g, (d) => String.fromCharCode(0x2080 + Number(d)));

// No view linked.
const NONE = { js: [], cells: [] };

export function mount(root) {
  const xs = [...root.querySelectorAll("input[data-x]")];
  const weightButtons = [...root.querySelectorAll("button[data-w]")];
  const jacobianButtons = [...root.querySelectorAll('[data-matrix="jacobian"] button')];
  let linked = NONE; // the views linked: weights j (strings) and Jacobian cells
  let scores = []; // the reader's x, as last read
  let weightCurves = null; // the states of the curves w_j(t), as last drawn
  const t = root.querySelector("input[data-t]");
  const error = root.querySelector("[data-error]");
  const blank = (el) => {
    el.dataset.value = "";
    el.textContent = "\u2014";
  };

  // The reader's x, or a message naming the input that cannot be used.
  const read = (scale) => {
    const x = xs.map((input) => (input.value.trim() === "" ? NaN : Number(input.value)));
    for (const input of xs) input.setAttribute("aria-invalid", "false");
    const name = (j) => sub("x", j + 1);
    let problem = null;
    const j = x.findIndex((xj) => !Number.isFinite(xj));
    if (j >= 0) problem = [j, message(words(root, "empty"), { x: name(j) })];
    else {
      const k = x.findIndex((xj) => !Number.isFinite(scale * xj));
      if (k >= 0) problem = [k, message(words(root, "overflow"), { x: name(k), t: fmt(scale, 1) })];
    }
    if (problem) {
      xs[problem[0]].setAttribute("aria-invalid", "true");
      xs[problem[0]].setAttribute("aria-describedby", error.id);
    }
    error.hidden = !problem;
    speak(error, problem ? problem[1] : "");
    return { x, problem };
  };

  // The charts: every weight, and max|J| on a log axis, for t = 0, 0.1, …, 10.
  const chart = (x, scale) => {
    const ts = [...Array(T_STEPS + 1).keys()].map((k) => (k * T_MAX) / T_STEPS);
    const states = x.every(Number.isFinite) ? ts.map((tk) => state(x, tk)) : ts.map(() => null);
    const axis = { min: 0, max: T_MAX, label: "t" };
    draw(root.querySelector('[data-chart="weights"]'), {
      x: axis,
      y: { min: 0, max: 1 },
      lines: x.map((_, j) => ({
        label: `w${SUBSCRIPT(j + 1)}`,
        points: ts.map((tk, k) => [tk, states[k] ? states[k].s[j] : NaN]),
      })),
      cursor: scale,
    });
    // max|J| (solid) under ε (dashed): |ds_j/du_l| ≤ ε for every t
    const jmax = ts.map((tk, k) => [tk, states[k] ? states[k].jmax : NaN]);
    const rest = ts.map((tk, k) => [tk, states[k] ? states[k].rest : NaN]);
    const positive = [...jmax, ...rest].map(([, v]) => v).filter((v) => v > 0 && Number.isFinite(v));
    draw(root.querySelector('[data-chart="jmax"]'), {
      x: axis,
      y: positive.length
        ? { min: Math.min(...positive), max: Math.max(...positive), log: true, floor: FLOOR }
        : { min: 0.1, max: 1, log: true, floor: FLOOR },
      lines: [{ points: jmax, label: "max|J|" }, { points: rest, label: "ε" }],
      cursor: scale,
    });
    weightCurves = states;
    drawScores(x);
  };
  // the scores x_j as bars (stems from 0), j = 1 … n; the linked ones ringed
  const drawScores = (x) => {
    const finite = x.filter(Number.isFinite);
    draw(root.querySelector('[data-chart="scores"]'), {
      x: { min: 0.5, max: x.length + 0.5, label: "j" },
      y: { min: Math.min(SCORES.min, ...finite), max: Math.max(SCORES.max, ...finite) },
      // one series a score: bar j in the colour of its curve w_j
      lines: x.map((xj, j) => ({ points: [[j + 1, xj]], dots: true })),
      marks: linked.js.map((j) => ({ x: Number(j) + 1, y: x[j] })),
    });
  };

  const update = (settled) => {
    const scale = Number(t.value);
    root.querySelector("[data-t-shown]").textContent = fmt(scale, 1);
    const { x, problem } = read(scale);
    scores = x;
    chart(x, scale);
    mark();
    const now = problem ? null : state(x, scale);
    if (!now) {
      for (const cell of root.querySelectorAll("[data-matrix] td[data-i]")) {
        blank(cell.querySelector("[data-value]") || cell);
      }
      for (const bar of root.querySelectorAll(".explorable-bar")) bar.style.setProperty("--w", "0%");
      for (const b of [...weightButtons, ...jacobianButtons]) b.removeAttribute("aria-label");
      for (const td of root.querySelectorAll('[data-matrix="jacobian"] td[data-i]')) {
        td.style.removeProperty("--p");
        td.style.removeProperty("--n");
      }
      for (const dd of root.querySelectorAll("[data-result]")) blank(dd);
      return (settled ? announce : announceSettled)(root, problem[1]);
    }
    fill(root, "weights", x.map((xj, j) => [xj, now.tx[j]]), 2);
    now.s.forEach((sj, j) => {
      const el = root.querySelector(`[data-s="${j}"]`);
      // A weight that float64 rounds to 0 is said to be below 10^−308, as ε is.
      if (sj === 0) {
        el.dataset.value = "0";
        speak(el, words(root, "underflow"));
      } else show(el, sj, 4, -now.others[j]); // 1 − w_j is the others' sum, not 0 when w_j is the float 1
      weightButtons[j].setAttribute("aria-label",
        `w${SUBSCRIPT(j + 1)} = ${sj === 0 ? said(root, words(root, "underflow")) : fmt(sj, 4, -now.others[j])}`);
      root.querySelectorAll(".explorable-bar")[j].style.setProperty("--w", `${(100 * sj).toFixed(2)}%`);
    });
    // fixed decimals down to 10^−3, m × 10^e below (0.0067, not 6.7 × 10^−3)
    // Every weight is positive, so no entry is 0 but by float64's
    // underflow: s_j (1 − s_j) > 0 on the diagonal, −s_j s_l < 0 off it.
    // Such an entry says so, with its sign, as the results do (never 0.0000
    // beside 7.1 × 10^−218).
    now.jacobian.forEach((row, i) => row.forEach((v, j) => {
      const b = root.querySelector(`[data-matrix="jacobian"] td[data-i="${i}"][data-j="${j}"] button`);
      if (v === 0) {
        b.dataset.value = "0";
        speak(b, words(root, i === j ? "underflow" : "underflow_negative"));
      } else number(b, v);
      b.setAttribute("aria-label", `∂w${SUBSCRIPT(i + 1)}/∂u${SUBSCRIPT(j + 1)} = ${said(root, b.innerHTML)}`);
    }));
    for (const td of root.querySelectorAll('[data-matrix="jacobian"] td[data-i]')) {
      const v = now.jacobian[td.dataset.i][td.dataset.j];
      td.style.setProperty("--p", String(Math.max(0, v) * 4));
      td.style.setProperty("--n", String(Math.max(0, -v) * 4));
    }
    show(root.querySelector("[data-result=largest]"), now.largest, 4, -now.rest); // 1 − ε: never "1.0000" beside ε
    // A value that float64 rounds to 0 (below its least, 4.9 × 10^−324) is
    // said to be less than 10^−308, not "0.0 × 10^0".
    const small = (v) => (v === 0 ? words(root, "underflow") : fixed(v) ? fmt(v, 4) : sci(v));
    for (const key of ["rest", "jmax"]) {
      const el = root.querySelector(`[data-result=${key}]`);
      if (now[key] === 0) {
        el.dataset.value = "0";
        el.innerHTML = small(0);
      } else number(el, now[key]);
    }
    (settled ? announce : announceSettled)(root, message(words(root, "status"), {
      t: fmt(scale, 1), largest: fmt(now.largest, 4, -now.rest), rest: small(now.rest), jmax: small(now.jmax),
    }));
  };
  // Views linked, both ways, by pointer, focus and tap: w_j's row (its
  // button), bar x_j (pointed at or dragged) and curve w_j (the one nearest
  // the pointer) mark one another and the Jacobian's row and column j; a
  // Jacobian entry ∂w_j/∂u_l marks itself and w_j's and w_l's row, bar and
  // curve. The focused button's link holds while the pointer is elsewhere.
  const jacobianCells = [...root.querySelectorAll('[data-matrix="jacobian"] td[data-i]')];
  const ofWeight = (j) => ({
    js: [String(j)], cells: jacobianCells.filter((td) => td.dataset.i === String(j) || td.dataset.j === String(j)),
  });
  const ofEntry = (td) => ({ js: [...new Set([td.dataset.i, td.dataset.j])], cells: [td] });
  const focused = () => {
    const b = root.ownerDocument.activeElement;
    if (weightButtons.includes(b)) return ofWeight(b.dataset.w);
    if (jacobianButtons.includes(b)) return ofEntry(b.closest("td"));
    return NONE;
  };
  const mark = () => {
    for (const el of root.querySelectorAll(".explorable-linked")) el.classList.remove("explorable-linked");
    for (const j of linked.js) {
      for (const td of root.querySelectorAll(`[data-matrix="weights"] td[data-i="${j}"]`)) td.classList.add("explorable-linked");
      root.querySelector(`[data-chart="weights"] [data-line="${j}"]`)?.classList.add("explorable-linked");
    }
    for (const td of linked.cells) td.classList.add("explorable-linked");
  };
  const link = (next) => {
    const same = next.js.join() === linked.js.join() && next.cells.length === linked.cells.length &&
      next.cells.every((td, k) => td === linked.cells[k]);
    if (same) return;
    linked = next;
    mark();
    drawScores(scores);
  };
  for (const tr of root.querySelectorAll('[data-matrix="weights"] tbody tr')) {
    tr.addEventListener("pointerenter", () => link(ofWeight(tr.dataset.i)));
    tr.addEventListener("pointerleave", () => link(focused()));
  }
  for (const td of jacobianCells) {
    td.addEventListener("pointerenter", () => link(ofEntry(td)));
    td.addEventListener("pointerleave", () => link(focused()));
  }
  const n = xs.length;
  linkCells(weightButtons, (b) => link(b ? ofWeight(b.dataset.w) : focused()), { rows: () => n, last: () => 2 });
  linkCells(jacobianButtons, (b) => link(b ? ofEntry(b.closest("td")) : focused()), { rows: () => n, last: () => n - 1 });
  // The bar nearest the pointer, and the curve nearest it at the pointer's t.
  const bars = root.querySelector('[data-chart="scores"]');
  bars.addEventListener("pointermove", (event) => {
    if (bars.hasPointerCapture(event.pointerId)) return; // a drag: its bar stays linked
    link(ofWeight(Math.min(n, Math.max(1, Math.round(valueAt(bars, event)[0]))) - 1));
  });
  bars.addEventListener("pointerleave", () => link(focused()));
  const curves = root.querySelector('[data-chart="weights"]');
  curves.addEventListener("pointermove", (event) => {
    const [at, y] = valueAt(curves, event);
    const now = weightCurves?.[Math.round((at / T_MAX) * T_STEPS)];
    if (!now) return;
    const distance = now.s.map((sj) => Math.abs(sj - y));
    link(ofWeight(distance.indexOf(Math.min(...distance))));
  });
  curves.addEventListener("pointerleave", () => link(focused()));
  for (const input of [...xs, t]) input.addEventListener("input", () => update(false));
  // A preset: its x and t into the fields and the slider, said at once.
  for (const button of root.querySelectorAll("button[data-preset]")) {
    button.addEventListener("click", () => {
      button.dataset.setX.split(" ").forEach((xj, j) => {
        xs[j].value = xj;
      });
      t.value = button.dataset.setT;
      update(true);
    });
  }
  // Pressing or dragging on a chart sets t there (to the slider's step) and
  // hands the slider the focus, so that the arrow keys go on from there.
  for (const svg of root.querySelectorAll('svg[data-chart="weights"], svg[data-chart="jmax"]')) {
    follow(svg, (v) => {
      const next = (Math.round(v * 10) / 10).toFixed(1);
      if (t.ownerDocument.activeElement !== t) t.focus({ preventScroll: true });
      if (Number(t.value) === Number(next)) return;
      t.value = next;
      update(false);
    });
  }
  // Pressing a bar (the score nearest the pointer) and dragging sets x_j;
  // the bar dragged stays linked.
  dragBars(bars, xs, STEP, (j) => {
    linked = ofWeight(j);
    update(false);
  });
  update(true);
}

register("softmax", mount);
