// Softmax, temperature and saturation: s = softmax(t x), the largest weight,
// the rest ε = 1 − max s, and the Jacobian ds_j/du_l = s_j (δ_jl − s_l) with respect to
// the softmax's input u = t x (with respect to x it is t times larger).
// 1 − s_j is computed as the sum of the other weights, never as a difference:
// when s_j rounds to 1, 1 − s_j is 0 in floating point while ε, and the
// Jacobian's diagonal s_j (1 − s_j), are still positive (x = (0, 0, 5), t = 10:
// ε = 3.9 × 10^-22).
import {
  announce, field, fill, fmt, frame, matrix, message, numberCell, register, sci, show, showSci,
  softmax, status, sub, templates, words,
} from "./core.js";

// data: the page's scores x and factor t.
export function render(w, data) {
  const inputs = data.x.map((xj, j) => field(sub("x", j + 1),
    `<input type="number" step="0.5" value="${xj}" data-x="${j}" disabled inputmode="decimal">`)).join("");
  const scale =
    `<label class="explorable-field explorable-wide" for="explorable-softmax-t">${w.scale}</label>` +
    '<input type="range" id="explorable-softmax-t" min="0" max="10" step="0.1" ' +
    `value="${data.t}" data-t disabled>` +
    `<output for="explorable-softmax-t" data-t-shown>${fmt(data.t, 1)}</output>`;
  // s_j: a bar as long as the weight, and the weight.
  const bar = (i, j, attrs) =>
    `<td${attrs} class="explorable-bar-cell"><span class="explorable-bar" style="--w: 0%"></span>` +
    `<span data-value="0" data-s="${i}">0</span></td>`;
  const labels = data.x.map((_, j) => sub("x", j + 1));
  const weights = matrix("weights", w.weights, labels,
    [sub("x", "j"), `${sub("u", "j")} = t${sub("x", "j")}`, sub("w", "j")],
    { cell: (i, j, attrs) => (j === 2 ? bar(i, j, attrs) : numberCell(attrs)) });
  const jacobian = matrix("jacobian", w.jacobian,
    labels.map((_, j) => sub("w", j + 1)), labels.map((_, j) => sub("u", j + 1)));
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results = `<dl class="explorable-results">${result("largest")}${result("rest")}${result("jmax")}</dl>`;
  return frame("softmax", w,
    `<div class="explorable-controls">${inputs}<div class="explorable-range">${scale}</div></div>` +
    `<div class="explorable-tables">${weights}${jacobian}</div>` +
    results + status() + templates(w, "status"));
}


export function mount(root) {
  const xs = [...root.querySelectorAll("input[data-x]")];
  const t = root.querySelector("input[data-t]");

  const update = () => {
    const x = xs.map((input) => Number(input.value) || 0);
    const scale = Number(t.value);
    const tx = x.map((xj) => scale * xj);
    const s = softmax(tx);
    // 1 − s_j, as the sum of the other weights.
    const others = s.map((_, j) => s.reduce((sum, sl, l) => (l === j ? sum : sum + sl), 0));
    const jacobian = s.map((sj, j) => s.map((sl, l) => (j === l ? sj * others[j] : -sj * sl)));
    const largest = Math.max(...s);
    const rest = others[s.indexOf(largest)];
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
}

register("softmax", mount);
