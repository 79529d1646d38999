// RoPE: the query at position m and the key at position r, each pair of
// components (2i, 2i+1) rotated by the angle m θ_i (r θ_i), θ_i = 10000^(−2i/d).
// The score q R_m (k R_r)ᵀ depends on m − r only.
import { announce, fill, fmt, message, register, show, words } from "./core.js";

const Q = [1, 2, 3, 4];
const K = [4, 3, 2, 1];
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

register("rope", (root) => {
  const m = root.querySelector("input[data-m]");
  const n = root.querySelector("input[data-n]");
  const position = (input) => Math.max(0, Math.round(Number(input.value) || 0));

  const update = () => {
    const [pm, pn] = [position(m), position(n)];
    const q = rotate(Q, pm);
    const k = rotate(K, pn);
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
});
