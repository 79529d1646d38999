// What every explorable shares: small matrices, the softmax, the numbers'
// format, the pieces of the figure's HTML, and the mounting of a figure on
// each page Material shows.
//
// Each explorable is one module, written once, with two exports:
// - render(words, data): the figure's HTML, controls disabled. The build
//   (stages/explorables.py, through stages/explorables_render.mjs under Node)
//   calls it, then runs mount() on it in a DOM without a screen, so that the
//   page carries the default state that the script itself computes.
// - mount(root): reads the controls, computes, fills the numbers in, and
//   listens to the reader. In the browser, register() enables the controls
//   and mounts every figure of the page.

export const MINUS = "\u2212";

const SUPERSCRIPTS = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3", 4: "\u2074", 5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };

// x with `digits` decimals, a true minus sign, and no "−0"; from a million
// on, as plain text "m × 10ⁿ" (as sci writes it in HTML), never "5e+199".
// The rounding rule of every number the figures show: a value that is not 0
// but would round to all zeros at `digits` decimals is written the same way
// with one decimal, "2.1 × 10⁻⁹", never "0.0000" or "−0.000", so that a
// weight of 2 × 10⁻⁹ is not read as 0 (0 itself stays "0.0000"). Likewise a
// value that is not ±1 but would round to ±1 is written as the bound one
// last decimal beyond it, away from 1, after a no-break space: 0.99992 at 3
// decimals "> 0.999" (not all of the attention), 1.0004 "< 1.001",
// −0.99992 "< −0.999", never "1.000" (±1 itself stays "1.000"). `gap`,
// the distance |x| − 1 when the caller knows it better than x does (a
// saturated softmax's largest weight is the float 1 while 1 − w, the other
// weights' sum, is 3.9 × 10⁻²²; a sum of weights that is 1 is the float
// 1 ± 2.2 × 10⁻¹⁶: gap 0), says which; without it, x's own distance from ±1.
export function fmt(x, digits, gap = Math.abs(x) - 1) {
  const fixed = Number.isFinite(x) ? x.toFixed(digits) : "";
  const vanishes = digits > 0 && x !== 0 && /^-?[0.]*$/.test(fixed);
  if (Number.isFinite(x) && (Math.abs(x) >= 1e6 || vanishes)) {
    const [mantissa, exponent] = x.toExponential(vanishes ? 1 : digits).split("e");
    const power = [...String(Number(exponent))].map((c) => SUPERSCRIPTS[c]).join("");
    return `${fmt(Number(mantissa), vanishes ? 1 : digits)} × 10${power}`;
  }
  if (digits > 0 && gap !== 0 && /^-?1\.0*$/.test(fixed)) {
    // the last decimal stepped once away from 1: 0.999 below, 1.001 above
    const bound = (1 + Math.sign(gap) * 10 ** -digits).toFixed(digits);
    const above = (x > 0) === (gap < 0); // x lies above the bound
    return `${above ? ">" : "<"}\u00a0${x < 0 ? MINUS : ""}${bound}`; // one line, never wrapped
  }
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
// A number written m × 10ⁿ is also written in words for a listener (speak()).
// `gap`: fmt's, |x| − 1 when the caller knows it better than x does.
export function show(el, x, digits, gap = undefined) {
  el.dataset.value = String(x);
  const text = x === -Infinity ? `${MINUS}∞` : fmt(x, digits, gap);
  if (/[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]/.test(text)) speak(el, text);
  else el.textContent = text;
}

// The same in the form m × 10^e, said in words too (speak()).
export function showSci(el, x) {
  el.dataset.value = String(x);
  speak(el, sci(x));
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

// "{key}" replaced by values[key], as stages/explorables.py's message(); a
// brace that names no value is left (the TeX of a typeset formula: {d_k}).
export function message(template, values) {
  return template.replace(/\{(\w+)\}/g, (all, key) => (key in values ? values[key] : all));
}

// The template of a message the hook wrote into the figure.
export function words(root, key) {
  return root.querySelector(".explorable-messages").getAttribute(`data-msg-${key}`);
}

// Say `html` in the figure's live region (screen readers announce it), in
// place of what announceSettled() was about to say.
export function announce(root, html) {
  clearTimeout(root.explorableAnnounce);
  speak(root.querySelector(".explorable-status"), html);
}

// --- What a screen reader says -------------------------------------------------
// A live region, and a message an input or a button is described by, reach a
// listener as flat text: 3.9 × 10<sup>−22</sup> would be heard "10−22", and
// head<sub>i</sub>W<sup>O</sup><sub>i</sub> "headiWOi". speak() writes such
// HTML twice: as shown, hidden from the accessibility tree (aria-hidden), and
// in words, in a visually hidden span ("10 の −22 乗", "10 的 −22 次方"), as
// a page gives a screen reader text of its own. The words are the edition's
// (core.yml: said_power, said_sup, said_sub, said_sqrt, in every figure's
// messages). A typeset formula's MathML is said the same way, and so is a
// number fmt() writes with superscript digits (5.00 × 10¹⁹⁹).

const SAID = ["said_power", "said_sup", "said_sub", "said_sqrt"];
const SUPERSCRIPT_DIGITS = Object.fromEntries(Object.entries(SUPERSCRIPTS).map(([c, s]) => [s, c]));
// A base that a superscript raises to a power: a number, or e.
const BASE = /(\d+(?:\.\d+)?|(?<![\w\u00c0-\uffff])e)\s*$/u;
const SUPERSCRIPT_RUN = /(\d+(?:\.\d+)?|(?<!\w)e)\s?([\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)/gu;

// The words a listener hears for `html` in the figure `root`.
export function said(root, html) {
  const say = (key, values) => message(words(root, key), values);
  const power = (base, exponent) => ` ${say("said_power", { base, exponent })} `;
  const raise = (out, exponent) => {
    const base = out.match(BASE);
    return base ? out.slice(0, base.index) + power(base[1], exponent) : `${out} ${say("said_sup", { x: exponent })} `;
  };
  const walk = (node) => {
    if (node.nodeType === 3) {
      return node.data.replace(SUPERSCRIPT_RUN, (all, base, digits) =>
        power(base, [...digits].map((c) => (c === "\u207b" ? MINUS : SUPERSCRIPT_DIGITS[c])).join("")));
    }
    if (node.nodeType !== 1 || node.getAttribute("aria-hidden") === "true") return "";
    if (node.classList.contains("explorable-said")) return node.textContent;
    const tag = node.localName;
    if (tag === "annotation") return "";
    const kids = [...node.children];
    const inner = () => node.getAttribute("data-said") ?? [...node.childNodes].map(walk).join("");
    if (tag === "msup" || tag === "msub" || tag === "msubsup") {
      const [base, first, second] = kids.map(walk);
      const raised = (b, x) => (kids[0].localName === "mn" || b.trim() === "e" ? power(b, x) : `${b} ${say("said_sup", { x })} `);
      if (tag === "msup") return raised(base, first);
      const lowered = `${base} ${say("said_sub", { x: first })} `;
      return tag === "msub" ? lowered : `${lowered} ${say("said_sup", { x: second })} `;
    }
    if (tag === "msqrt") return ` ${say("said_sqrt", { x: inner().trim() })} `;
    if (tag === "mfrac") return ` ${kids.map(walk).join(" / ")} `;
    let out = "";
    for (const child of node.childNodes) {
      if (child.nodeType === 1 && child.localName === "sup" && child.getAttribute("aria-hidden") !== "true") {
        out = raise(out, walk(child).trim());
      } else if (child.nodeType === 1 && child.localName === "sub" && child.getAttribute("aria-hidden") !== "true") {
        out = `${out} ${say("said_sub", { x: walk(child).trim() })} `;
      } else out += walk(child);
    }
    return node.hasAttribute("data-said") ? inner() : out;
  };
  const box = root.ownerDocument.createElement("div");
  box.innerHTML = html;
  return walk(box).replace(/\s+/g, " ").replace(/ ([、。，；：（）])/g, "$1").replace(/([（]) /g, "$1").trim();
}

// Write `html` into `el`; where a listener would hear it flattened, as shown
// (aria-hidden) and in words (said()).
export function speak(el, html) {
  const root = el.closest(".explorable");
  if (!/<(sup|sub|math)\b|[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]/.test(html) || /explorable-said/.test(html)) {
    el.innerHTML = html;
    return;
  }
  el.innerHTML = `<span aria-hidden="true">${html}</span><span class="explorable-said">${esc(said(root, html))}</span>`;
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
  if (typeof window === "undefined") return; // the build: render() and mount() only
  const run = () => {
    for (const root of document.querySelectorAll(
      `.explorable[data-explorable="${name}"]:not([data-ready])`
    )) {
      for (const control of root.querySelectorAll("input, select, button")) control.disabled = false;
      mount(root);
      sayLabels(root);
      root.dataset.ready = "";
    }
  };
  if (window.document$) window.document$.subscribe(run);
  else run();
}

// --- The figure's HTML (render) ----------------------------------------------

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

// Text made safe inside HTML and inside an attribute's quotes.
export const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);

export const sub = (symbol, index) => `${symbol}<sub>${index}</sub>`;

// A number's cell; mount() writes its text and data-value.
export const numberCell = (attrs, tag = "td") => `<${tag} data-value="0"${attrs}>0</${tag}>`;

// A matrix as a table, data-matrix=key, with cells data-i / data-j under the
// row labels `rows` and the column labels `cols`. Rows and columns past
// shownRows / shownCols are hidden (the script shows them when the reader
// asks for a larger matrix). `cell(i, j, attrs)` makes a cell's HTML instead
// of a number's.
export function matrix(key, caption, rows, cols, { shownRows, shownCols, cell } = {}) {
  const nRows = shownRows ?? rows.length;
  const nCols = shownCols ?? cols.length;
  const hideCol = (j) => (j >= nCols ? " hidden" : "");
  const head = cols.map((c, j) => `<th scope="col" data-j="${j}"${hideCol(j)}>${c}</th>`).join("");
  const body = rows.map((label, i) => {
    const cells = cols.map((_, j) => {
      const attrs = ` data-i="${i}" data-j="${j}"${hideCol(j)}`;
      return cell ? cell(i, j, attrs) : numberCell(attrs);
    });
    const hidden = i >= nRows ? " hidden" : "";
    return `<tr data-i="${i}"${hidden}><th scope="row">${label}</th>${cells.join("")}</tr>`;
  });
  return (
    `<table class="explorable-matrix" data-matrix="${key}"><caption>${caption}</caption>` +
    `<thead><tr><td></td>${head}</tr></thead><tbody>${body.join("")}</tbody></table>`
  );
}

// The explorable's box: title, content, live status, and the sentence for a
// reader without JavaScript. A <section> (a group, not a landmark) holding no
// other <section>: the search leaves out an element by its tag, up to the
// first end tag of that name, so the figure's own <div>s must not end it.
export function frame(name, words, inner) {
  return (
    `<section class="explorable" data-explorable="${name}" id="explorable-${name}" ` +
    `role="group" aria-labelledby="explorable-${name}-title" data-search-exclude>` +
    `<p class="explorable-title" id="explorable-${name}-title">${words.title}</p>` +
    `${inner}<noscript><p>${words.static}</p></noscript></section>`
  );
}

// The live region that announce() writes to.
export const status = () => '<p class="explorable-status" role="status" aria-live="polite"></p>';

// The messages mount() fills in, as data-msg-* attributes (read by words()).
export function templates(wordsOf, ...keys) {
  keys.push(...SAID.filter((k) => k in wordsOf && !keys.includes(k)));
  const attrs = keys.map((k) => `data-msg-${k}="${esc(wordsOf[k])}"`).join(" ");
  return `<span class="explorable-messages" hidden ${attrs}></span>`;
}

// The data mount() reads, as JSON in a hidden node.
export const dataNode = (data) => `<div data-data="${esc(JSON.stringify(data))}" hidden></div>`;

// A <select>'s options, `chosen` selected, each shown as names[value] or the value.
export function optionList(values, chosen, names = null) {
  return values
    .map((v) => `<option value="${v}"${v === chosen ? " selected" : ""}>${names ? names[v] : v}</option>`)
    .join("");
}

// A labelled control: <label><span>words</span>control</label>.
export const field = (label, control) =>
  `<label class="explorable-field"><span>${label}</span>${control}</label>`;

// The words of every control's label in `root` that holds a sub- or
// superscript (x<sub>1</sub>, d<sub>model</sub>): a control is named by its
// label's text, which a listener would hear flattened ("x1", "dmodel"), so
// the label says it in words as the live region does (speak()). Run on the
// mounted figure, by the build (stages/explorables_render.mjs) and by
// register(); a label already said is left as it is.
export function sayLabels(root) {
  for (const span of root.querySelectorAll(".explorable-field > span:first-child")) {
    if (/<(sup|sub|math)\b/.test(span.innerHTML)) speak(span, span.innerHTML);
  }
}

// Say `html` in the live region once the reader stops moving a control:
// `delay` ms after the last call (a slider dragged across its range would
// otherwise queue an announcement for every step). The numbers themselves
// are written at once; only the announcement waits.
export function announceSettled(root, html, delay = 300) {
  clearTimeout(root.explorableAnnounce);
  root.explorableAnnounce = setTimeout(() => announce(root, html), delay);
}

/** The query and key of a weight's button: its cell's data-i and data-j. */
export const cellAt = (button) => {
  const td = button.closest("td");
  return [Number(td.dataset.i), Number(td.dataset.j)];
};

// A heat map of weights' buttons, linked and moved through as one grid:
// pointing at a button or focusing it calls point(button), leaving it calls
// point(null) (a focused button stays pointed when the pointer leaves). The
// arrow keys, Home and End move the focus among the cells (one Tab stop a
// grid: the focused button's tabindex is 0, the others' −1, as the WAI-ARIA
// grid pattern's roving tabindex); rows() is the
// number of queries shown, last(i) the last key of query i's row. The cells'
// controls are buttons, or those `control` selects (masks.js: checkboxes).
export function linkCells(buttons, point, { rows, last, control = "button" }) {
  for (const b of buttons) {
    const on = () => point(b);
    const off = () => point(null);
    b.addEventListener("focus", () => {
      // the focused cell is the grid's Tab stop, however it got the focus
      for (const other of b.closest("[data-matrix]").querySelectorAll(control)) {
        other.tabIndex = other === b ? 0 : -1;
      }
      on();
    });
    b.addEventListener("pointerenter", on);
    // a tap focuses the cell (a touch browser may not), so its link stays
    b.addEventListener("click", () => b !== b.ownerDocument.activeElement && b.focus());
    b.addEventListener("blur", off);
    b.addEventListener("pointerleave", () => (b === b.ownerDocument.activeElement ? on() : off()));
    b.addEventListener("keydown", (event) => {
      const [i, j] = cellAt(b);
      const to = {
        ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
        Home: [i, 0], End: [i, last(i)],
      }[event.key];
      if (!to || to[0] < 0 || to[0] >= rows() || to[1] < 0 || to[1] > last(to[0])) return;
      const next = b.closest("[data-matrix]")
        .querySelector(`td[data-i="${to[0]}"][data-j="${to[1]}"] ${control}`);
      if (!next) return; // a cell of plain numbers beside the grid's column (softmax.js)
      event.preventDefault();
      b.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    });
  }
}
