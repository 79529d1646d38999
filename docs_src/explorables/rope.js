// RoPE: the query at position m and the key at position r, each pair of
// components (2i, 2i+1) rotated by the angle m θ_i (r θ_i), θ_i = 10000^(−2i/d).
// The score q R_m (k R_r)ᵀ depends on m − r only: each pair's term is its
// two vectors' product after the pair has turned by (m − r) θ_i relative to
// the other. The reader sets m and r with sliders and d (4, 8 or 16; above 4
// the page's q and k repeated); each pair is drawn as a plane, its arc the
// angle between the rotated query and key, whose query arrow the reader
// turns to move m; a chart draws the score at every offset m − r the
// sliders reach (dots on stems from 0: whole offsets only; behind them,
// faint, the score at real offsets), with a cursor at the current
// m − r: moving m and r together leaves the cursor where it is. Pressing or
// dragging on the chart sets m − r there: m moves, r stays (r moves too only
// where m alone cannot reach the offset).
import {
  announce, announceSettled, dataNode, esc, field, fill, fmt, frame, matrix, message, optionList,
  register, show, showSci, status, templates, words,
} from "./core.js";
import { chartBox, draw, follow } from "./chart.js";

const BASE = 10000;
// The page's vectors: bold q and k (mathematical bold, in the book's maths font).
const BOLD = { q: "\u{1D42A}", k: "\u{1D424}" };

// The query and key of width d: the page's (d = 4) repeated d / 4 times.
const widen = (x, d) => Array.from({ length: d }, (_, j) => x[j % x.length]);

// data: the page's query q and key k (d = 4), the widths offered (dims) and
// the one shown first (d), the positions m and r, the sliders' largest
// position, and the radius of each pair's drawing (in the vectors' units).
export function render(w, data) {
  const most = Math.max(...data.dims);
  const slider = (key, p) =>
    `<div class="explorable-range"><label for="explorable-rope-${key}">${w[key]}</label>` +
    `<input type="range" id="explorable-rope-${key}" min="0" max="${data.max}" step="1" ` +
    `value="${p}" data-${key} disabled>` +
    `<output for="explorable-rope-${key}" data-shown="${key}">${p}</output></div>`;
  const controls =
    '<div class="explorable-controls">' +
    field(w.d, `<select data-d disabled>${optionList(data.dims, data.d)}</select>`) +
    `<button type="button" data-shift disabled aria-describedby="explorable-rope-shift-why">${w.shift}</button>` +
    // why the button is disabled, beside it, while m or r is at the largest position
    `<span class="explorable-why" id="explorable-rope-shift-why" data-shift-why hidden></span>` +
    slider("m", data.m) + slider("n", data.r) + "</div>";
  const r = data.radius;
  const axes =
    `<line class="explorable-axis" x1="${-r}" x2="${r}" y1="0" y2="0"></line>` +
    `<line class="explorable-axis" y1="${-r}" y2="${r}" x1="0" x2="0"></line>`;
  // An arrow, and its name at its tip (the page's bold q and k).
  const arrow = (name, i) =>
    `<line class="explorable-${name}" data-arrow="${name}${i}" x1="0" y1="0" x2="0" y2="0"></line>` +
    `<text class="explorable-${name}-name" data-name="${name}${i}" x="0" y="0" font-size="1.1" ` +
    `text-anchor="middle" dominant-baseline="central">${BOLD[name]}</text>`;
  // One plane a pair, at least 160 px; those past d / 2 are hidden. Its
  // drawing is a slider of m: dragging the query's arrow around (or the
  // arrow keys on it) turns the query, and so moves its position m;
  // dragging the key's arrow turns the key and moves r.
  const planes = [...Array(most / 2).keys()].map((i) =>
    `<div class="explorable-plane" data-pair="${i}"${2 * i < data.d ? "" : " hidden"}>` +
    `<div class="explorable-plane-turn" role="slider" tabindex="0" data-turn="${i}" ` +
    `aria-label="${esc(message(w.turn, { i }))}" aria-valuemin="0" aria-valuemax="${data.max}" ` +
    `aria-valuenow="${data.m}" aria-valuetext="m = ${data.m}">` +
    `<svg viewBox="${-r} ${-r} ${2 * r} ${2 * r}" aria-hidden="true" focusable="false">` +
    `<circle r="${r - 0.5}"></circle>${axes}<path class="explorable-arc" data-arc="${i}" d=""></path>` +
    `${arrow("k", i)}${arrow("q", i)}</svg></div>` +
    `<p>${message(w.pair, { i })}</p></div>`).join("");
  const legend = `<p class="explorable-note">${w.legend}</p>`;
  // Pairs and components counted from 0, as the page counts them.
  const pairs = matrix("pairs", w.pairs, [...Array(most / 2).keys()].map((i) => message(w.pair_row, { i })),
    [w.theta, w.angle, w.term], { shownRows: data.d / 2 });
  // One row a component (a column of d would leave a phone's page: review F8).
  const rotated = matrix("rotated", w.rotated, [...Array(most).keys()].map(String),
    [w.q_row, w.k_row], { shownRows: data.d });
  const results =
    '<dl class="explorable-results">' +
    '<dt>m − r</dt><dd data-result="shift" data-value="0">0</dd>' +
    `<dt>${w.score}</dt><dd data-result="score" data-value="0">0</dd></dl>`;
  return frame("rope", w,
    dataNode({ q: data.q, k: data.k, max: data.max, radius: data.radius }) + controls +
    `<div class="explorable-tables explorable-planes">${planes}</div>` + legend +
    `<div class="explorable-charts">${chartBox("score", w.chart)}</div>` +
    `<p class="explorable-note">${w.same}</p>` + results +
    `<div class="explorable-tables">${pairs}` +
    `<div class="explorable-scroll" tabindex="0" role="region" aria-label="${esc(w.rotated)}">` +
    `${rotated}</div></div>` + status() + templates(w, "status", "shift_max"));
}

// θ_i = 10000^(−2i/d), i = 0, …, d/2 − 1
const frequencies = (d) => Array.from({ length: d / 2 }, (_, i) => BASE ** (-(2 * i) / d));

// x R_p: the pair (x_2i, x_2i+1) becomes
// (x_2i cos pθ_i − x_2i+1 sin pθ_i, x_2i sin pθ_i + x_2i+1 cos pθ_i)
function rotate(x, p, theta) {
  const out = [];
  theta.forEach((t, i) => {
    const [cos, sin] = [Math.cos(p * t), Math.sin(p * t)];
    out.push(x[2 * i] * cos - x[2 * i + 1] * sin, x[2 * i] * sin + x[2 * i + 1] * cos);
  });
  return out;
}

// Each pair's term q̃_2i k̃_2i + q̃_2i+1 k̃_2i+1; the score is their sum.
const terms = (q, k) => q.filter((_, j) => j % 2 === 0).map((_, i) =>
  q[2 * i] * k[2 * i] + q[2 * i + 1] * k[2 * i + 1]);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

// The arc from direction a to direction b (radians, counter-clockwise
// positive) at radius rho, in the drawing's coordinates (y down).
function arc(a, b, rho) {
  let turn = b - a;
  turn -= 2 * Math.PI * Math.round(turn / (2 * Math.PI)); // into [−π, π]
  const at = (t) => `${(rho * Math.cos(t)).toFixed(4)} ${(-rho * Math.sin(t)).toFixed(4)}`;
  return `M${at(a)}A${rho} ${rho} 0 0 ${turn > 0 ? 0 : 1} ${at(a + turn)}`;
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const [m, n] = ["m", "n"].map((key) => root.querySelector(`input[data-${key}]`));
  const dSelect = root.querySelector("select[data-d]");
  const shift = root.querySelector("button[data-shift]");
  const svg = root.querySelector('[data-chart="score"]');

  const update = (settled) => {
    const d = Number(dSelect.value);
    const [pm, pn] = [Number(m.value), Number(n.value)];
    root.querySelector('[data-shown="m"]').textContent = String(pm);
    root.querySelector('[data-shown="n"]').textContent = String(pn);
    const theta = frequencies(d);
    const [q0, k0] = [widen(data.q, d), widen(data.k, d)];
    const q = rotate(q0, pm, theta); // q R_m
    const k = rotate(k0, pn, theta); // k R_r
    const perPair = terms(q, k);
    const score = sum(perPair); // q̃ · k̃
    // The rows and columns of the shown d.
    for (const plane of root.querySelectorAll("[data-pair]")) plane.hidden = 2 * Number(plane.dataset.pair) >= d;
    for (const tr of root.querySelectorAll('[data-matrix="pairs"] tr[data-i]')) tr.hidden = 2 * Number(tr.dataset.i) >= d;
    for (const tr of root.querySelectorAll('[data-matrix="rotated"] tr[data-i]')) tr.hidden = Number(tr.dataset.i) >= d;
    fill(root, "rotated", q.map((qj, j) => [qj, k[j]]), 4);
    theta.forEach((t, i) => {
      const row = `[data-matrix="pairs"] td[data-i="${i}"]`;
      const cell = root.querySelector(`${row}[data-j="0"]`);
      if (t < 0.01) showSci(cell, t); // the slowest pairs: 3.2 × 10^−4 rad a position
      else show(cell, t, 4);
      show(root.querySelector(`${row}[data-j="1"]`), (pm - pn) * t, 4); // (m − r) θ_i
      show(root.querySelector(`${row}[data-j="2"]`), perPair[i], 4);
    });
    for (const [name, v] of [["q", q], ["k", k]]) {
      theta.forEach((_, i) => {
        const line = root.querySelector(`[data-arrow="${name}${i}"]`);
        line.setAttribute("x2", v[2 * i].toFixed(4));
        line.setAttribute("y2", (-v[2 * i + 1]).toFixed(4));
        // the name just past the tip, inside the plane
        const length = Math.hypot(v[2 * i], v[2 * i + 1]) || 1;
        const out = Math.min(length + 0.8, data.radius - 0.7) / length;
        const label = root.querySelector(`[data-name="${name}${i}"]`);
        label.setAttribute("x", (out * v[2 * i]).toFixed(4));
        label.setAttribute("y", (-out * v[2 * i + 1]).toFixed(4));
      });
    }
    for (const turn of root.querySelectorAll("[data-turn]")) {
      turn.setAttribute("aria-valuenow", String(pm));
      turn.setAttribute("aria-valuetext", `m = ${pm}`);
    }
    // The angle from the key to the query of each pair: the page's angle
    // between the two before the rotation, plus (m − r) θ_i.
    theta.forEach((_, i) => {
      const [a, b] = [Math.atan2(k[2 * i + 1], k[2 * i]), Math.atan2(q[2 * i + 1], q[2 * i])];
      root.querySelector(`[data-arc="${i}"]`).setAttribute("d", arc(a, b, 1.6));
    });
    // The chart: the score at every offset t = m − r the sliders reach,
    // q R_t kᵀ (the key at 0, the query at t).
    // The dots at whole offsets stand on stems from 0, the axis holding 0;
    // behind them, faint, the same score at every real offset (a quarter of
    // a position apart), the function the dots sample.
    const scoreAt = (t) => sum(terms(rotate(q0, t, theta), k0));
    const offsets = Array.from({ length: 2 * data.max + 1 }, (_, j) => j - data.max);
    const curve = offsets.map((t) => [t, scoreAt(t)]);
    const between = Array.from({ length: 8 * data.max + 1 }, (_, j) => -data.max + j / 4)
      .map((t) => [t, scoreAt(t)]);
    const values = between.map(([, v]) => v);
    draw(svg, {
      x: { min: -data.max, max: data.max, label: "m − r" },
      y: { min: Math.min(0, ...values), max: Math.max(0, ...values) },
      lines: [{ points: curve, dots: true }, { points: between, faint: true }], // m − r is a whole number
      cursor: pm - pn,
    });
    show(root.querySelector("[data-result=shift]"), pm - pn, 0);
    show(root.querySelector("[data-result=score]"), score, 4);
    shift.disabled = pm >= data.max || pn >= data.max;
    const why = root.querySelector("[data-shift-why]");
    why.hidden = !shift.disabled;
    why.textContent = shift.disabled ? message(words(root, "shift_max"), { max: data.max }) : "";
    (settled ? announce : announceSettled)(root, message(words(root, "status"), {
      m: pm, r: pn, shift: fmt(pm - pn, 0), score: fmt(score, 4),
    }));
  };
  // A drag of a slider is said once it settles; a step from the keyboard, or
  // the end of a drag (the slider's change), at once.
  for (const input of [m, n]) {
    input.addEventListener("input", () => update(false));
    input.addEventListener("change", () => update(true));
  }
  // Turning the query's arrow of pair i sets m: the pointer's turn since it
  // was pressed, over θ_i, added to m then (whole positions, within the
  // slider's range); the arrow keys step m by one. Pressed nearer the key's
  // arrow, the turn sets r the same way (the r slider is its keyboard's way).
  const setPosition = (input, value, settled) => {
    const next = Math.min(data.max, Math.max(0, value));
    if (next === Number(input.value) && !settled) return;
    input.value = String(next);
    update(settled);
  };
  const setM = (value, settled) => setPosition(m, value, settled);
  // the angle of pair i's arrow of `name` on the screen (y up)
  const arrowAngle = (name, i) => {
    const line = root.querySelector(`[data-arrow="${name}${i}"]`);
    return Math.atan2(-Number(line.getAttribute("y2")), Number(line.getAttribute("x2")));
  };
  const apart = (a, b) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));
  for (const turn of root.querySelectorAll("[data-turn]")) {
    const i = Number(turn.dataset.turn);
    const angleOf = (event) => {
      const box = turn.querySelector("svg").getBoundingClientRect();
      return Math.atan2(box.top + box.height / 2 - event.clientY, event.clientX - box.left - box.width / 2);
    };
    let drag = null; // {input, p0, last, turned}: the slider turned, its value then
    turn.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      turn.setPointerCapture(event.pointerId);
      turn.focus({ preventScroll: true });
      const a = angleOf(event);
      const input = apart(a, arrowAngle("k", i)) < apart(a, arrowAngle("q", i)) ? n : m;
      drag = { input, p0: Number(input.value), last: a, turned: 0 };
    });
    turn.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const a = angleOf(event);
      let step = a - drag.last;
      step -= 2 * Math.PI * Math.round(step / (2 * Math.PI)); // into [−π, π]
      drag.turned += step;
      drag.last = a;
      const theta = frequencies(Number(dSelect.value))[i];
      setPosition(drag.input, drag.p0 + Math.round(drag.turned / theta), false);
    });
    const end = () => {
      if (!drag) return;
      drag = null;
      update(true); // said once, now
    };
    turn.addEventListener("pointerup", end);
    turn.addEventListener("pointercancel", end);
    turn.addEventListener("keydown", (event) => {
      const pm = Number(m.value);
      const to = { ArrowRight: pm + 1, ArrowUp: pm + 1, ArrowLeft: pm - 1, ArrowDown: pm - 1,
        PageUp: pm + 10, PageDown: pm - 10, Home: 0, End: data.max }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      setM(to, true);
    });
  }
  follow(svg, (v) => {
    const t = Math.round(v);
    const next = Math.min(data.max, Math.max(0, Number(n.value) + t));
    const r = Math.min(data.max, Math.max(0, next - t));
    if (next === Number(m.value) && r === Number(n.value)) return;
    [m.value, n.value] = [String(next), String(r)];
    update(false); // said once the reader stops
  });
  // Pair i's plane, its row of angles and terms and its two components
  // (2i, 2i + 1) of qR_m and kR_r are one: pointing at the plane or the
  // row, or focusing the plane (the keyboard's way), frames all three.
  const linkPair = (i) => {
    for (const plane of root.querySelectorAll(".explorable-plane[data-pair]")) {
      plane.classList.toggle("explorable-linked", Number(plane.dataset.pair) === i);
    }
    for (const tr of root.querySelectorAll('[data-matrix="pairs"] tr[data-i]')) {
      tr.classList.toggle("explorable-linked", Number(tr.dataset.i) === i);
    }
    for (const cell of root.querySelectorAll('[data-matrix="rotated"] td[data-i]')) {
      cell.classList.toggle("explorable-linked", i !== null && Math.floor(Number(cell.dataset.i) / 2) === i);
    }
  };
  const focusedPair = () => {
    const turn = root.ownerDocument.activeElement?.closest?.("[data-turn]");
    return turn && root.contains(turn) ? Number(turn.dataset.turn) : null;
  };
  const pairOf = (el) => {
    const at = el.closest('.explorable-plane[data-pair], [data-matrix="pairs"] tr[data-i]');
    return at ? Number(at.dataset.pair ?? at.dataset.i) : null;
  };
  for (const el of root.querySelectorAll('.explorable-plane[data-pair], [data-matrix="pairs"] tr[data-i]')) {
    el.addEventListener("pointerenter", () => linkPair(pairOf(el)));
    el.addEventListener("pointerleave", () => linkPair(focusedPair()));
  }
  for (const turn of root.querySelectorAll("[data-turn]")) {
    turn.addEventListener("focus", () => linkPair(Number(turn.dataset.turn)));
    turn.addEventListener("blur", () => linkPair(null));
  }
  dSelect.addEventListener("input", () => update(true));
  shift.addEventListener("click", () => {
    m.value = String(Number(m.value) + 1);
    n.value = String(Number(n.value) + 1);
    update(true);
  });
  update(true);
}

register("rope", mount);
