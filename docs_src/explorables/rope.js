// RoPE: the query at position m and the key at position r, each pair of
// components (2i, 2i+1) rotated by the angle m θ_i (r θ_i), θ_i = 10000^(−2i/d).
// The score q R_m (k R_r)ᵀ depends on m − r only.
import {
  announce, dataNode, field, fill, fmt, frame, matrix, message, register, show, status, templates,
  words,
} from "./core.js";

// data: the page's query q and key k, their positions m and r, and the
// radius of each pair's drawing (in the vectors' units).
export function render(w, data) {
  const position = (key, p) => field(w[key],
    `<input type="number" min="0" max="100000" step="1" value="${p}" data-${key} disabled inputmode="numeric">`);
  const r = data.radius;
  const axes =
    `<line class="explorable-axis" x1="${-r}" x2="${r}" y1="0" y2="0"></line>` +
    `<line class="explorable-axis" y1="${-r}" y2="${r}" x1="0" x2="0"></line>`;
  const arrow = (name, i) =>
    `<line class="explorable-${name}" data-arrow="${name}${i}" x1="0" y1="0" x2="0" y2="0"></line>`;
  const pairs = [...Array(data.q.length / 2).keys()].map((i) =>
    `<div class="explorable-plane"><svg viewBox="${-r} ${-r} ${2 * r} ${2 * r}" aria-hidden="true" ` +
    `focusable="false"><circle r="${r - 0.5}"></circle>${axes}${arrow("q", i)}${arrow("k", i)}</svg>` +
    `<p>${message(w.pair, { i })}</p></div>`).join("");
  // Pairs and components counted from 0, as the page counts them.
  const dims = data.q.map((_, j) => String(j));
  const table = matrix("rotated", w.rotated, [w.q_row, w.k_row], dims);
  const results =
    '<dl class="explorable-results">' +
    '<dt>m − r</dt><dd data-result="shift" data-value="0">0</dd>' +
    `<dt>${w.score}</dt><dd data-result="score" data-value="0">0</dd></dl>`;
  const controls =
    `<div class="explorable-controls">${position("m", data.m)}${position("n", data.r)}` +
    `<button type="button" data-shift disabled>${w.shift}</button></div>`;
  return frame("rope", w,
    dataNode({ q: data.q, k: data.k }) + controls + `<div class="explorable-tables">${pairs}</div>` +
    table + results + status() + templates(w, "status"));
}

const BASE = 10000;

// x R_p: the pair (x_2i, x_2i+1) becomes
// (x_2i cos pθ_i − x_2i+1 sin pθ_i, x_2i sin pθ_i + x_2i+1 cos pθ_i)
function rotate(x, p) {
  const d = x.length;
  const out = [];
  for (let i = 0; 2 * i < d; i++) {
    const angle = p * BASE ** (-(2 * i) / d);
    const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
    out.push(x[2 * i] * cos - x[2 * i + 1] * sin, x[2 * i] * sin + x[2 * i + 1] * cos);
  }
  return out;
}

export function mount(root) {
  const data = JSON.parse(root.querySelector("[data-data]").dataset.data);
  const m = root.querySelector("input[data-m]");
  const n = root.querySelector("input[data-n]");
  const position = (input) => Math.max(0, Math.round(Number(input.value) || 0));

  const update = () => {
    const [pm, pn] = [position(m), position(n)];
    const q = rotate(data.q, pm);
    const k = rotate(data.k, pn);
    const score = q.reduce((sum, qj, j) => sum + qj * k[j], 0); // q̃ · k̃
    fill(root, "rotated", [q, k], 4);
    for (const [name, v] of [["q", q], ["k", k]]) {
      for (let i = 0; 2 * i < v.length; i++) {
        const line = root.querySelector(`[data-arrow="${name}${i}"]`);
        line.setAttribute("x2", v[2 * i].toFixed(4));
        line.setAttribute("y2", (-v[2 * i + 1]).toFixed(4));
      }
    }
    show(root.querySelector("[data-result=shift]"), pm - pn, 0);
    show(root.querySelector("[data-result=score]"), score, 4);
    announce(root, message(words(root, "status"), { shift: fmt(pm - pn, 0), score: fmt(score, 4) }));
  };
  for (const input of [m, n]) input.addEventListener("input", update);
  root.querySelector("button[data-shift]").addEventListener("click", () => {
    m.value = String(position(m) + 1);
    n.value = String(position(n) + 1);
    update();
  });
  update();
}

register("rope", mount);
