// What every explorable shares: small matrices, the softmax, the numbers'
// format (the same as hooks/explorables.py writes at build time), and the
// mounting of a figure on each page Material shows.

export const MINUS = "\u2212";

// x with `digits` decimals, a true minus sign, and no "−0".
export function fmt(x, digits) {
  let text = x.toFixed(digits);
  if (/^-[0.]*$/.test(text)) text = text.slice(1);
  return text.replace("-", MINUS);
}

// x as "m × 10^e" (HTML), m with `digits` decimals.
export function sci(x, digits = 1) {
  const [mantissa, exponent] = x.toExponential(digits).split("e");
  return `${fmt(Number(mantissa), digits)} × 10<sup>${fmt(Number(exponent), 0)}</sup>`;
}

// Show a number in `el`: its rounded text, and its full value in data-value.
export function show(el, x, digits) {
  el.dataset.value = String(x);
  el.textContent = x === -Infinity ? `${MINUS}∞` : fmt(x, digits);
}

// The same in the form m × 10^e.
export function showSci(el, x) {
  el.dataset.value = String(x);
  el.innerHTML = sci(x);
}

// The softmax of one row; -Infinity entries (masked) get weight 0, and a row
// with no finite entry (fully masked) is all zeros.
export function softmax(row) {
  const m = Math.max(...row); // m = max_j x_j
  if (m === -Infinity) return row.map(() => 0);
  const e = row.map((x) => (x === -Infinity ? 0 : Math.exp(x - m))); // e^{x_j - m}
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / total); // e^{x_j - m} / sum_p e^{x_p - m}
}

// (n, p) @ (p, m) -> (n, m)
export function matmul(a, b) {
  return a.map((row) =>
    b[0].map((_, j) => row.reduce((sum, x, p) => sum + x * b[p][j], 0))
  );
}

export function transpose(a) {
  return a[0].map((_, j) => a.map((row) => row[j]));
}

// "{key}" replaced by values[key], as hooks/explorables.py's message().
export function message(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => values[key]);
}

// The template of a message the hook wrote into the figure.
export function words(root, key) {
  return root.querySelector(".explorable-messages").getAttribute(`data-msg-${key}`);
}

// Say `html` in the figure's live region (screen readers announce it).
export function announce(root, html) {
  root.querySelector(".explorable-status").innerHTML = html;
}

// Write `values` into the cells of the figure's table data-matrix=key.
export function fill(root, key, values, digits) {
  const table = root.querySelector(`[data-matrix="${key}"]`);
  values.forEach((row, i) =>
    row.forEach((x, j) => {
      const cell = table.querySelector(`td[data-i="${i}"][data-j="${j}"]`);
      if (cell) show(cell, x, digits);
    })
  );
}

// Show the first n_rows rows and n_cols columns of a table, hide the rest.
export function resize(root, key, nRows, nCols) {
  const table = root.querySelector(`[data-matrix="${key}"]`);
  for (const tr of table.querySelectorAll("tr[data-i]")) tr.hidden = Number(tr.dataset.i) >= nRows;
  for (const cell of table.querySelectorAll("[data-j]")) cell.hidden = Number(cell.dataset.j) >= nCols;
}

// Mount `mount(root)` on every figure named `name` of each page Material
// shows (instant navigation swaps pages without running a module twice).
export function register(name, mount) {
  const run = () => {
    for (const root of document.querySelectorAll(
      `.explorable[data-explorable="${name}"]:not([data-ready])`
    )) {
      for (const control of root.querySelectorAll("input, select, button")) control.disabled = false;
      mount(root);
      root.dataset.ready = "";
    }
  };
  if (window.document$) window.document$.subscribe(run);
  else run();
}
