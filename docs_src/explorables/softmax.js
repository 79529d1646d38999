// Softmax, temperature and saturation: s = softmax(t x), the largest weight,
// the rest ε = 1 − max s, and the Jacobian ds_j/du_l = s_j (δ_jl − s_l) with respect to
// the softmax's input u = t x (with respect to x it is t times larger).
import { announce, fill, fmt, message, register, sci, show, showSci, softmax, words } from "./core.js";

register("softmax", (root) => {
  const xs = [...root.querySelectorAll("input[data-x]")];
  const t = root.querySelector("input[data-t]");

  const update = () => {
    const x = xs.map((input) => Number(input.value) || 0);
    const scale = Number(t.value);
    const tx = x.map((xj) => scale * xj);
    const s = softmax(tx);
    const jacobian = s.map((sj, j) => s.map((sl, l) => (j === l ? sj - sj * sl : -sj * sl)));
    const largest = Math.max(...s);
    const rest = 1 - largest;
    const jmax = Math.max(...jacobian.flat().map(Math.abs));

    fill(root, "weights", x.map((xj, j) => [xj, tx[j]]), 2);
    s.forEach((sj, j) => {
      show(root.querySelector(`[data-s="${j}"]`), sj, 4);
      root.querySelectorAll(".explorable-bar")[j].style.setProperty("--w", `${(100 * sj).toFixed(2)}%`);
    });
    fill(root, "jacobian", jacobian, 4);
    show(root.querySelector("[data-result=largest]"), largest, 4);
    showSci(root.querySelector("[data-result=rest]"), rest);
    showSci(root.querySelector("[data-result=jmax]"), jmax);
    root.querySelector("[data-t-shown]").textContent = fmt(scale, 1);
    announce(root, message(words(root, "status"), {
      t: fmt(scale, 1), largest: fmt(largest, 4), rest: sci(rest), jmax: sci(jmax),
    }));
  };
  for (const input of [...xs, t]) input.addEventListener("input", update);
  update();
});
