// A small line chart for the explorables, drawn as SVG: axes with ticks
// (linear or log-10), curves, horizontal rules, and a vertical cursor at the
// control's current value. The drawing is aria-hidden: its numbers are also
// in the figure's tables and results, which a screen reader reads. Colours
// and line styles come from explorables.css (.explorable-chart), so light,
// dark and print follow the page.
//
// render() places chartBox(key, title); mount() calls draw(svg, spec) each
// time the numbers change. The box has a fixed viewBox, so the page keeps
// its height when the script starts or redraws.
import { esc, fmt } from "./core.js";

// The drawing's coordinates (the viewBox) and the plot area inside them.
export const WIDTH = 360;
export const HEIGHT = 200;
const AREA = { left: 50, right: WIDTH - 34, top: 10, bottom: HEIGHT - 30 };

// The chart's box: a title (the page's words) over an empty drawing;
// `height` (the viewBox's, HEIGHT unless given) for a shorter panel.
export const chartBox = (key, title, height = HEIGHT) =>
  `<div class="explorable-chart" aria-hidden="true"><p class="explorable-chart-title">${title}</p>` +
  `<svg data-chart="${key}" viewBox="0 0 ${WIDTH} ${height}"` +
  `${height === HEIGHT ? "" : ` data-height="${height}"`} focusable="false"></svg></div>`;

// The plot area of `svg`: AREA, its foot moved up in a shorter panel.
const areaOf = (svg) => ({ ...AREA, bottom: Number(svg.getAttribute("data-height") || HEIGHT) - 30 });

const SUPERSCRIPT = { "-": "\u207b", 0: "\u2070", 1: "\u00b9", 2: "\u00b2", 3: "\u00b3",
  4: "\u2074", 5: "\u2075", 6: "\u2076", 7: "\u2077", 8: "\u2078", 9: "\u2079" };
const power = (e) => `10${String(e).replace(/./g, (c) => SUPERSCRIPT[c])}`;

// An axis {min, max, log}: its ticks [value, text] and the map value -> 0..1.
// A log axis spans whole decades; a linear one keeps min and max and puts its
// ticks every 1, 2 or 5 times a power of ten (at most about six of them).
// Given `ticks` ([value, text], increasing), a log axis runs from the first
// to the last of them instead (the bytes of kv_cache.js, in powers of 1024).
export function scale({ min, max, log = false, ticks: given }) {
  if (log && given) {
    const [lo, hi] = [Math.log10(given[0][0]), Math.log10(given[given.length - 1][0])];
    return { ticks: given, at: (v) => (Math.log10(v) - lo) / (hi - lo), min: given[0][0],
      max: given[given.length - 1][0] };
  }
  if (log) {
    let lo = Math.floor(Math.log10(min));
    let hi = Math.ceil(Math.log10(max));
    if (hi <= lo) hi = lo + 1;
    const step = Math.max(1, Math.ceil((hi - lo) / 5));
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    const ticks = [];
    const ten = (e) => Number(`1e${e}`); // 10^e exactly as written (10 ** -5 is not)
    for (let e = lo; e <= hi; e += step) ticks.push([ten(e), power(e)]);
    return { ticks, at: (v) => (Math.log10(v) - lo) / (hi - lo), min: ten(lo), max: ten(hi) };
  }
  const span = max - min;
  const rough = span / 5;
  const unit = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * unit).find((s) => s >= rough);
  const digits = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let k = Math.ceil(min / step - 1e-9); k * step <= max + 1e-9 * span; k++) {
    // a tick is a multiple of the step: written as one, not as the float
    // k × step (3 × 0.1 is 0.30000000000000004; fmt would write a float
    // near ±1 that is not ±1 as a bound)
    ticks.push([k * step, fmt(Number((k * step).toFixed(digits)), digits)]);
  }
  return { ticks, at: (v) => (v - min) / span, min, max };
}

const px = (v) => v.toFixed(2);

// The least distance between two lines' end labels: a line of the 12-unit
// text and its 3-unit rim (review F5: at 15 two labels of lines that
// coincide touched).
const GAP = 17;
// The room a rule's label needs left of the point it names (a device's
// name and memory in 12-unit text).
const NEAR = 110;

// Pressing on the chart and dragging sets the control the cursor shows:
// onValue(v) with v the x under the pointer, within the x drawn last (on a
// log axis, read on the log scale). (The chart is aria-hidden; the keyboard
// moves the same control itself, which onValue may focus.) Vertical swipes
// still scroll a phone's page. A press on a drawn element marked data-pick
// (a line the reader picks by clicking it) is that element's, not a drag.
export function follow(svg, onValue) {
  const at = (event) => valueAt(svg, event)[0];
  svg.classList.add("explorable-follow");
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.target.closest("[data-pick]")) return;
    event.preventDefault();
    svg.setPointerCapture(event.pointerId);
    onValue(at(event));
  });
  svg.addEventListener("pointermove", (event) => {
    if (svg.hasPointerCapture(event.pointerId)) onValue(at(event));
  });
}

// A chart of bars (bar k + 1 at x = k + 1) that the reader drags: pressing
// picks the bar nearest the pointer, dragging sets `fields[k]` (its form
// field, the keyboard's path) to the value under the pointer rounded to
// `step`, and `onChange(k)` is called each time that value changes.
export function dragBars(svg, fields, step, onChange) {
  let dragged = null;
  const drag = (event) => {
    const [x, value] = valueAt(svg, event);
    dragged ??= Math.min(fields.length, Math.max(1, Math.round(x))) - 1;
    const rounded = Math.round(value / step) * step;
    const field = fields[dragged];
    if (field.value !== "" && Number(field.value) === rounded) return;
    field.value = String(rounded);
    onChange(dragged);
  };
  svg.classList.add("explorable-drag");
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    svg.setPointerCapture(event.pointerId);
    dragged = null;
    drag(event);
  });
  svg.addEventListener("pointermove", (event) => {
    if (svg.hasPointerCapture(event.pointerId)) drag(event);
  });
}

// The values [x, y] under the pointer's `event`, each within the axis drawn
// last (a log axis read on its log scale), for a chart the reader drags.
export function valueAt(svg, event) {
  const AREA = areaOf(svg);
  const point = svg.createSVGPoint();
  [point.x, point.y] = [event.clientX, event.clientY];
  const inside = point.matrixTransform(svg.getScreenCTM().inverse());
  const within = (f, { min, max, log }) => {
    const g = Math.min(1, Math.max(0, f));
    return log ? 10 ** (Math.log10(min) + g * (Math.log10(max) - Math.log10(min))) : min + g * (max - min);
  };
  return [within((inside.x - AREA.left) / (AREA.right - AREA.left), svg.chartX),
    within((AREA.bottom - inside.y) / (AREA.bottom - AREA.top), svg.chartY)];
}

// Draw into `svg`:
//   x, y: axes {min, max, log, label}; x.label is written at the axis' end;
//     y.floor (a log axis): the axis stops there, a value below it is not
//     drawn, and a line that falls below it is marked where it leaves
//     (<g data-leaves="x">, a small arrow down at the plot's foot)
//   lines: [{points: [[x, y], ...], label, dots}]: dots: samples drawn as
//     dots on stems (<g data-dots="k"> of circles), not joined; otherwise
//     points whose y is not finite
//     (or not positive on a log axis) break the line; each line gets the
//     class explorable-line-<k> (its colour and dash) and its label at its
//     last point, moved apart vertically so that no two labels overlap
//   rules: [{y, label}]: horizontal lines across the plot, each labelled at its
//     left end (its right end if the first line starts among the labels);
//     a rule may have key (data-key on its <g data-rule>), current (class
//     explorable-rule-current: drawn stronger) and x (a point on it, its
//     ring: when every rule has one, each label is written by its point)
//   cursor: the x of the vertical cursor (none if undefined)
//   notes: [{x, y, text}]: a short text written left of the point (x, y),
//     <text data-note="x">, e.g. the factor a step is multiplied by; a "\n"
//     in the text starts a second line (a <tspan> under the first)
//   later: the x right of which the plot is veiled (<rect data-later>), as
//     steps not reached yet (none if undefined)
//   bands: [{from, to}]: x ranges shaded behind the plot (<rect data-band>),
//     e.g. every other block of keys
//   A line may also have key (written as data-key and data-pick on its path
//   and its label, for a reader who picks a line by clicking it) and current
//   (drawn stronger than the others: class explorable-line-current).
//   marks: [{x, y}]: points drawn as rings on the lines (<circle data-mark>),
//     where a line crosses a rule, say; one outside the axes is not drawn;
//     a mark may have key (a ring the reader presses: a transparent
//     <circle data-hit data-key data-pick> 24 units across over it) and
//     current (class explorable-mark-current, with a drop line to the x
//     axis, <line data-drop>, and there `text`, <text data-drop-label>,
//     e.g. the mark's x)
//   A line may be faint (drawn thin and pale, behind every other line and
//   the dots: class explorable-line-faint), e.g. a function of a real x
//   behind its samples at whole x; a dotted line whose y axis holds 0 gets
//   the line y = 0 its stems rise from (<line data-zero>).
//   hint: a short text centred at the plot's top, over everything
//     (<text data-hint>), e.g. what to press before anything is drawn
//   dips: [{x, y}]: the lowest point of a drop that a line takes and leaves
//     at the same x (down, then up again), marked by a triangle pointing
//     down with its tip at (x, y) (<path data-dip="x y">) in the first
//     line's colour: a vertical line drawn twice does not show its turn
export function draw(svg, { x, y, lines = [], rules = [], cursor, notes = [], later, bands = [], marks = [], hint,
  dips = [] }) {
  const AREA = areaOf(svg);
  const floor = y.floor ?? 0;
  const sx = scale(x);
  const sy = scale(floor ? { ...y, min: Math.max(floor, Math.min(y.min, y.max)),
    max: Math.max(floor * 10, y.max) } : y);
  // for follow() and valueAt(): the axes drawn last
  svg.chartX = { min: sx.min, max: sx.max, log: Boolean(x.log) };
  svg.chartY = { min: sy.min, max: sy.max, log: Boolean(y.log) };
  const X = (v) => AREA.left + sx.at(v) * (AREA.right - AREA.left);
  const Y = (v) => AREA.bottom - sy.at(v) * (AREA.bottom - AREA.top);
  const drawable = (v, axis) => Number.isFinite(v) && (!axis.log || v > 0) &&
    (axis !== y || !floor || v >= floor);
  const parts = bands.map(({ from, to }) => `<rect class="explorable-band" data-band="${from} ${to}" ` +
    `x="${px(X(from))}" y="${AREA.top}" width="${px(X(to) - X(from))}" height="${AREA.bottom - AREA.top}"></rect>`);
  for (const [v, text] of sx.ticks) {
    parts.push(`<g data-tick="x" data-at="${v}"><line class="explorable-grid" x1="${px(X(v))}" ` +
      `x2="${px(X(v))}" y1="${AREA.top}" y2="${AREA.bottom + 4}"></line>` +
      `<text x="${px(X(v))}" y="${AREA.bottom + 16}" text-anchor="middle">${text}</text></g>`);
  }
  for (const [v, text] of sy.ticks) {
    parts.push(`<g data-tick="y" data-at="${v}"><line class="explorable-grid" x1="${AREA.left - 4}" ` +
      `x2="${AREA.right}" y1="${px(Y(v))}" y2="${px(Y(v))}"></line>` +
      `<text x="${AREA.left - 7}" y="${px(Y(v) + 4)}" text-anchor="end">${text}</text></g>`);
  }
  parts.push(`<path class="explorable-frame" d="M${AREA.left} ${AREA.top}V${AREA.bottom}H${AREA.right}"></path>`);
  const behind = parts.length; // where faint lines go: over the grid, under the rest
  if (x.label) {
    parts.push(`<text x="${AREA.right + 14}" y="${AREA.bottom + 16}" class="explorable-axis-label">${x.label}</text>`);
  }
  // Each rule is labelled at one end, its label just above it: at the left
  // end, where a curve that grows with x (the cache's size against n) is
  // lowest, unless the curve starts among the labels (then at the right
  // end). Rules closer than a line of text (GAP: the 12-unit text and its
  // rim) have their labels in one column, in the rules' order, above the
  // highest rule (below the lowest if the plot has no room above), so that
  // no rule runs through a label's text; a short leader joins each moved
  // label to the end of its own rule.
  const shown = rules.filter((r) => drawable(r.y, y) && r.y >= sy.min && r.y <= sy.max)
    .map((r) => ({ ...r, at: Y(r.y) })).sort((a, b) => a.at - b.at);
  let places = shown.map((r) => r.at - 3);
  if (places.some((p, i) => i > 0 && p - places[i - 1] < GAP)) {
    const n = shown.length;
    places = shown.map((_, i) => shown[0].at - 3 - (n - 1 - i) * GAP);
    if (places[0] < AREA.top + 11) places = shown.map((_, i) => shown[n - 1].at + 13 + i * GAP);
  }
  const first = lines.length ? lines[0].points.find(([u, v]) => drawable(u, x) && drawable(v, y)) : null;
  const crowded = first && places.length &&
    Y(first[1]) >= places[0] - 14 && Y(first[1]) <= places[places.length - 1] + 6;
  const left = !crowded;
  // Rules that each have a point on them (x: a ring where a line crosses
  // the rule) are labelled by their points instead, when the labels have
  // room left of the leftmost point (NEAR units): each label ends left of
  // its point, just above its rule, or, in the column, left of the
  // leftmost point, with a leader to its own point.
  const near = shown.length > 0 && shown.every((r) => drawable(r.x, x) && r.x >= sx.min && r.x <= sx.max) &&
    Math.min(...shown.map((r) => X(r.x))) - 8 - AREA.left >= NEAR;
  const column = near ? Math.min(...shown.map((r) => X(r.x))) - 8 : 0;
  shown.forEach((rule, i) => {
    const moved = Math.abs(places[i] - (rule.at - 3)) > 0.5;
    const named = (rule.key ? ` data-key="${rule.key}"` : "") +
      (rule.current ? ' class="explorable-rule-current"' : "");
    const line = `<g data-rule="${rule.y}"${named}><line class="explorable-rule" x1="${AREA.left}" ` +
      `x2="${AREA.right}" y1="${px(rule.at)}" y2="${px(rule.at)}"></line>`;
    if (near) {
      const to = X(rule.x);
      const end = moved ? column : to - 8;
      const leader = moved
        ? `<line class="explorable-rule-leader" x1="${px(to)}" y1="${px(rule.at)}" ` +
          `x2="${px(end + 2)}" y2="${px(places[i] - 4)}"></line>`
        : "";
      parts.push(`${line}${leader}<text class="explorable-rule-label" x="${px(end)}" y="${px(places[i])}" ` +
        `text-anchor="end">${esc(rule.label)}</text></g>`);
      return;
    }
    const edge = left ? AREA.left : AREA.right;
    const inward = left ? 1 : -1;
    const end = edge + inward * (moved ? 10 : 2); // the label's end at the rule's end
    const leader = moved
      ? `<line class="explorable-rule-leader" x1="${edge}" y1="${px(rule.at)}" ` +
        `x2="${end - 2 * inward}" y2="${px(places[i] - 4)}"></line>`
      : "";
    parts.push(`${line}${leader}` +
      `<text class="explorable-rule-label" x="${px(end)}" y="${px(places[i])}" ` +
      `text-anchor="${left ? "start" : "end"}">${esc(rule.label)}</text></g>`);
  });
  const labels = [];
  lines.forEach((line, k) => {
    if (line.dots) {
      // Samples at whole x (a quantity of integers): a dot on a stem from 0
      // (or the axis' foot) each, never joined, so that no line between two
      // samples suggests values in between.
      const base = Y(Math.min(sy.max, Math.max(sy.min, 0)));
      if (sy.min <= 0 && sy.max >= 0 && !y.log) {
        parts.push(`<line class="explorable-zero" data-zero="${k}" x1="${AREA.left}" x2="${AREA.right}" ` +
          `y1="${px(base)}" y2="${px(base)}"></line>`);
      }
      const dots = line.points.filter(([u, v]) => drawable(u, x) && drawable(v, y));
      const stems = dots.map(([u, v]) => `M${px(X(u))} ${px(base)}V${px(Y(v))}`).join("");
      parts.push(`<path class="explorable-stems" data-stems="${k}" d="${stems}"></path>` +
        `<g class="explorable-dots explorable-line-${k}" data-dots="${k}">` +
        dots.map(([u, v]) => `<circle cx="${px(X(u))}" cy="${px(Y(v))}" r="2.2"></circle>`).join("") +
        "</g>");
      return;
    }
    let d = "";
    let pen = "M";
    let last = null;
    for (const [u, v] of line.points) {
      if (!drawable(v, y) || !drawable(u, x)) {
        // below the floor (0 included: an underflow) right after a drawn point
        if (floor && pen === "L" && Number.isFinite(v) && v < floor && drawable(u, x)) {
          const [a, b] = [X(u), AREA.bottom];
          parts.push(`<g data-leaves="${u}"><path class="explorable-leaves explorable-line-${k}" ` +
            `d="M${px(a - 4)} ${px(b - 7)}L${px(a)} ${px(b - 1)}L${px(a + 4)} ${px(b - 7)}Z"></path></g>`);
        }
        pen = "M";
        continue;
      }
      d += `${pen}${px(X(u))} ${px(Y(v))}`;
      pen = "L";
      last = [X(u), Y(v)];
    }
    const pick = line.key ? ` data-key="${line.key}" data-pick` : "";
    const current = line.current ? " explorable-line-current" : "";
    const path = `<path class="explorable-line explorable-line-${k}${current}${line.faint ? " explorable-line-faint" : ""}" ` +
      `data-line="${k}"${pick} d="${d}"></path>`;
    if (line.faint) parts.splice(behind, 0, path);
    else parts.push(path);
    if (line.label && last) labels.push({ k, text: line.label, x: last[0], y: last[1], pick, current });
  });
  // Direct labels at the lines' ends, at least GAP apart (a line of the
  // 12-unit text with room, on a phone's narrower drawing too), inside it.
  labels.sort((a, b) => a.y - b.y);
  // Down from the top, then up from the foot: only the labels crowded at
  // the foot move up, each no more than it must.
  for (let i = 1; i < labels.length; i++) labels[i].y = Math.max(labels[i].y, labels[i - 1].y + GAP);
  if (labels.length) labels[labels.length - 1].y = Math.min(labels[labels.length - 1].y, AREA.bottom);
  for (let i = labels.length - 2; i >= 0; i--) labels[i].y = Math.min(labels[i].y, labels[i + 1].y - GAP);
  for (const label of labels) {
    parts.push(`<text class="explorable-line-label explorable-line-${label.k}${label.current}" ` +
      `data-label="${label.k}"${label.pick} ` +
      `x="${px(label.x + 4)}" y="${px(label.y + 4)}">${label.text}</text>`);
  }
  for (const dip of dips.filter((d) => drawable(d.x, x) && drawable(d.y, y))) {
    const [a, b] = [X(dip.x), Y(dip.y)];
    parts.push(`<path class="explorable-dip" data-dip="${dip.x} ${dip.y}" ` +
      `d="M${px(a - 4.5)} ${px(b - 8)}L${px(a)} ${px(b)}L${px(a + 4.5)} ${px(b - 8)}Z"></path>`);
  }
  for (const note of notes.filter((n) => drawable(n.x, x) && drawable(n.y, y))) {
    const [first, ...more] = note.text.split("\n");
    const at = px(X(note.x) - 4);
    parts.push(`<text class="explorable-note-label" data-note="${note.x}" x="${at}" ` +
      `y="${px(Y(note.y) + 4)}" text-anchor="end">${esc(first)}` +
      more.map((line) => `<tspan x="${at}" dy="1.2em">${esc(line)}</tspan>`).join("") + "</text>");
  }
  if (later !== undefined && drawable(later, x) && X(later) < AREA.right) {
    parts.push(`<rect class="explorable-later" data-later="${later}" x="${px(X(later))}" y="${AREA.top}" ` +
      `width="${px(AREA.right + 30 - X(later))}" height="${AREA.bottom - AREA.top}"></rect>`);
  }
  for (const mark of marks) {
    if (!drawable(mark.x, x) || !drawable(mark.y, y) || mark.x < sx.min || mark.x > sx.max ||
      mark.y < sy.min || mark.y > sy.max) continue;
    const [mx, my] = [X(mark.x), Y(mark.y)];
    if (mark.current) {
      parts.push(`<line class="explorable-drop" data-drop="${mark.x}" x1="${px(mx)}" x2="${px(mx)}" ` +
        `y1="${px(my)}" y2="${AREA.bottom}"></line>`);
      if (mark.text) {
        parts.push(`<text class="explorable-drop-label" data-drop-label="${mark.x}" x="${px(mx)}" ` +
          `y="${AREA.bottom - 4}" text-anchor="middle">${esc(mark.text)}</text>`);
      }
    }
    parts.push(`<circle class="explorable-mark${mark.current ? " explorable-mark-current" : ""}" ` +
      `data-mark="${mark.x}" cx="${px(mx)}" cy="${px(my)}" r="3.5"></circle>`);
    // a ring the reader presses: pressed anywhere within 12 units (24 across)
    if (mark.key) {
      parts.push(`<circle class="explorable-hit" data-hit="${mark.x}" data-key="${mark.key}" data-pick ` +
        `cx="${px(mx)}" cy="${px(my)}" r="12"></circle>`);
    }
  }
  if (cursor !== undefined && drawable(cursor, x)) {
    parts.push(`<line class="explorable-cursor" data-cursor="${cursor}" x1="${px(X(cursor))}" ` +
      `x2="${px(X(cursor))}" y1="${AREA.top}" y2="${AREA.bottom}"></line>`);
  }
  if (hint) {
    parts.push(`<text class="explorable-hint" data-hint x="${px((AREA.left + AREA.right) / 2)}" ` +
      `y="${px(AREA.top + 14)}" text-anchor="middle">${esc(hint)}</text>`);
  }
  svg.innerHTML = parts.join("");
}
