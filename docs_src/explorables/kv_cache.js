// The KV cache's size: bytes = 2 · N · h_kv · d_k · n · s · b, with h_kv = h
// (multi-head), g (grouped-query) or 1 (multi-query); exact integers (BigInt),
// as kv_cache_bytes computes them. Multi-head latent attention caches
// N · (d_c + d_h^R) · n · s · b bytes (kv_cache_bytes' latent_dim, rope_dim).
// A window W > 0 caches min(n, W) tokens a layer instead of n
// (kv_cache_bytes(..., window=W)).
// A chart draws the size against n (log axes) for each kind at the current
// sizes, the current kind's line stronger, with a line for the memory of one
// GPU of a few real devices, a ring where the current kind's cache outgrows
// each (named there; pressed, or its row's least n pressed, n moves to it;
// a device's row, rule and ring are marked together), and a cursor at n
// that the reader drags; clicking a kind's line or its name picks that kind. The sizes the chosen kind does not use are
// disabled, each with the reason.
import {
  announce, announceSettled, field, fmt, frame, message, optionList, register, sci, speak, status, templates,
  words,
} from "./core.js";
import { chartBox, draw, follow } from "./chart.js";

// data: the page's model (sizes), the widths in bytes and the kinds to offer,
// and the devices whose memory the chart marks ([key, GB], 1 GB = 10^9 bytes).
export function render(w, data) {
  // A size the chosen kind does not use is disabled: a kind's own (g but
  // for GQA, d_c and d_h^R but for MLA) hidden too, a model's (h for MQA
  // and MLA, d_k for MLA) with the reason under it (data-why). Its value
  // still draws the line of the kind that uses it, which the reader picks
  // (its line, or the selector) to change it.
  const number = (key) => field(w[key],
    `<input type="number" min="${key === "rope" ? 0 : 1}" step="1" value="${data.sizes[key]}" ` +
    `data-size="${key}" disabled inputmode="numeric">` +
    (key === "heads" || key === "d_k" ? `<span class="explorable-why" data-why="${key}" hidden></span>` : ""));
  // A real model's sizes, set by one button each (data.presets).
  const preset = ([name, sizes]) =>
    `<button type="button" data-preset="${name}" ` +
    Object.entries(sizes).map(([k, v]) => `data-set-${k}="${v}"`).join(" ") +
    ` disabled>${w[`preset_${name}`]}</button>`;
  // Three groups: the attention kind with the sizes of its own, the model,
  // and the run (n, b, W); results and chart beside them where there is room.
  const group = (legend, inner) =>
    `<fieldset class="explorable-group"><legend>${legend}</legend>${inner}</fieldset>`;
  // The kind first, then the chart, then the model's and the sequences'
  // sizes in a group the reader may fold away.
  const controls =
    '<div class="explorable-controls explorable-form">' +
    group(w.group_kind,
      field(w.kind, `<select data-kind disabled>${optionList(data.kinds, data.kinds[0], w)}</select>`) +
      ["groups", "latent", "rope"].filter((k) => k in data.sizes).map(number).join("") +
      Object.entries(data.presets || {}).map(preset).join("")) + "</div>";
  const more =
    `<details class="explorable-more" open><summary>${w.group_sizes}</summary>` +
    '<div class="explorable-controls explorable-form">' +
    group(w.group_model, ["layers", "heads", "d_k"].map(number).join("") +
      field(w.bytes, `<select data-bytes disabled>${optionList(data.bytes, data.bytes[0])}</select>`)) +
    group(w.group_run, number("tokens") + number("batch") +
      field(w.window, `<input type="number" min="0" step="1" value="${data.window}" data-window ` +
        'disabled inputmode="numeric">') +
      `<button type="button" data-step disabled>${w.step}</button>`) +
    '<p class="explorable-error" id="explorable-kv_cache-error" data-error hidden></p></div></details>';
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results =
    '<dl class="explorable-results">' +
    ["h_kv", "per_token", "total", "total_units"].map(result).join("") + "</dl>";
  // Where the current kind's cache alone outgrows each device's memory (the
  // chart's rings): the least n, or never under a window.
  const fills = `<p class="explorable-note" id="explorable-kv_cache-fills">${w.fills}</p>` +
    '<dl class="explorable-results" data-fills aria-labelledby="explorable-kv_cache-fills">' +
    data.devices.map(([k]) => `<dt data-device="${k}">${w[`device_${k}`]}</dt>` +
      `<dd data-device="${k}" data-fill="${k}" data-value="">—</dd>`).join("") +
    "</dl>";
  const devices = `<span data-devices="${data.devices.map(([k, gb]) => `${k}:${gb}`).join(" ")}" ` +
    `${data.devices.map(([k]) => `data-device-${k}="${w[`device_${k}`]}"`).join(" ")} hidden></span>`;
  // Every kind's cache at the current sizes and n on one linear scale, a bar
  // each, and its ratio to MHA's with the sizes that make it (on the log
  // chart the kinds are parallel lines, the ÷12 of GQA a small offset).
  const compare = '<table class="explorable-matrix explorable-kv-compare" data-compare>' +
    `<caption>${w.compare}</caption><thead><tr><td></td><th scope="col">${w.compare_size}</th>` +
    `<th scope="col">${w.compare_ratio}</th></tr></thead><tbody>` +
    data.kinds.map((k) => `<tr data-kind="${k}"><th scope="row">${k.toUpperCase()}</th>` +
      '<td class="explorable-kv-size"><span class="explorable-kv-bar" aria-hidden="true" style="--w: 0"></span>' +
      '<span data-size-of data-value="">—</span></td><td data-ratio data-value="">—</td></tr>').join("") +
    "</tbody></table>";
  // The model's and the run's sizes beside the chart (under it on a phone),
  // the results and the devices' least n under both.
  return frame("kv_cache", w,
    controls +
    `<div class="explorable-charts explorable-kv-out">${chartBox("size", w.chart)}${more}</div>` +
    `<div class="explorable-kv-results">${results}<div>${fills}</div></div>` + compare + devices +
    `<p class="explorable-note">${w.devices}</p>` +
    '<p class="explorable-effect" data-step-effect data-value=""></p>' + status() +
    templates(w, "status", "status_mla", "invalid", "divides", "too_large", "step_effect", "step_none",
      "h_kv_mla", "fills_at", "fills_never", "at_n", "unused", "ratio_mha", "ratio_gqa", "ratio_mqa",
      "ratio_mla"));
}

// The sizes only some kinds use, and the kinds using each (the others use
// neither): the cache's bytes of MHA, GQA and MQA are 2 L h_kv d_k n s b
// (h_kv = h, g, 1; GQA's g must divide h), MLA's L (d_c + d_h^R) n s b.
const USES_ALL = { heads: ["mha", "gqa"], groups: ["gqa"], d_k: ["mha", "gqa", "mqa"],
  latent: ["mla"], rope: ["mla"] };
const uses = (kind, key) => !(key in USES_ALL) || USES_ALL[key].includes(kind);

const UNITS = [["EiB", 2 ** 60], ["PiB", 2 ** 50], ["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20],
  ["KiB", 2 ** 10]];

// Bytes in the largest binary unit (up to EiB, the chart's units) that is at
// most n, 2 decimals; a million EiB or more as m × 10^e EiB (HTML), as the
// book writes large numbers.
function inUnits(n) {
  for (const [unit, size] of UNITS) {
    if (n >= BigInt(size)) {
      const x = Number(n) / size;
      return `${x < 1e6 ? fmt(x, 2) : sci(x, 2)} ${unit}`;
    }
  }
  return `${n} B`;
}

const grouped = (n) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// The chart's byte axis: ticks at powers of 1024 (at most about six).
const NAMES = ["1 B", "1 KiB", "1 MiB", "1 GiB", "1 TiB", "1 PiB", "1 EiB"];
const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
function byteTicks(lo, hi) {
  let [a, b] = [Math.floor(Math.log2(lo) / 10), Math.ceil(Math.log2(hi) / 10)];
  if (b <= a) b = a + 1;
  const step = Math.max(1, Math.ceil((b - a) / 5));
  [a, b] = [Math.floor(a / step) * step, Math.ceil(b / step) * step];
  const ticks = [];
  for (let k = a; k <= b; k += step) {
    const name = NAMES[k] ?? `2${String(10 * k).replace(/\d/g, (d) => SUPERSCRIPT[d])} B`;
    ticks.push([2 ** (10 * k), name]);
  }
  return ticks;
}

export function mount(root) {
  const kind = root.querySelector("select[data-kind]");
  const bytes = root.querySelector("select[data-bytes]");
  const inputs = [...root.querySelectorAll("input[data-size]")];
  const groups = root.querySelector('input[data-size="groups"]');
  const window_ = root.querySelector("input[data-window]");
  const error = root.querySelector("[data-error]");
  const effect = root.querySelector("[data-step-effect]");
  const chart = root.querySelector('svg[data-chart="size"]');
  const deviceNode = root.querySelector("[data-devices]");
  const devices = deviceNode.dataset.devices.split(" ").map((item) => {
    const [key, gb] = item.split(":");
    return { key, y: Number(gb) * 10 ** 9, bytes: BigInt(gb) * 10n ** 9n,
      label: deviceNode.getAttribute(`data-device-${key}`) };
  });
  const result = (key) => root.querySelector(`[data-result="${key}"]`);
  const label = (input) => input.closest("label").querySelector("span").innerHTML;
  const least = (key) => (key === "rope" ? 0 : 1); // d_h^R may be 0
  const kinds = [...kind.options].map((o) => o.value);

  const set = (key, n, html) => {
    result(key).dataset.value = String(n);
    result(key).innerHTML = html;
  };
  // The size against n (1 to at least a million tokens) of each kind
  // (totals[k](n), null: a kind whose sizes are not valid), the devices, and
  // the rings where the current kind's line crosses them.
  // pointed: the device whose row, rule or ring is pointed at or focused
  // (its rule and ring drawn stronger, a drop line from the ring to its n)
  let pointed = null;
  let drawn = null; // plot()'s last arguments, to draw again when pointed changes
  const plot = (totals, n, marks = []) => {
    drawn = [totals, n, marks];
    const nMax = Math.max(1e6, 10 ** Math.ceil(Math.log10(n || 1)));
    const ns = new Set([n]);
    for (let p = 1; p <= nMax; p *= 10) for (const m of [1, 2, 5]) if (m * p <= nMax) ns.add(m * p);
    const window = Number(window_.value);
    if (window > 0 && window < nMax) ns.add(window);
    const sorted = [...ns].sort((a, b) => a - b);
    const lines = kinds.map((k) => ({
      key: k, label: k.toUpperCase(), current: totals && k === kind.value,
      points: totals && totals[k] ? sorted.map((m) => [m, Number(totals[k](m))]) : [],
    }));
    const ys = [...lines.flatMap((l) => l.points.map(([, y]) => y)), ...devices.map((d) => d.y)];
    draw(chart, {
      x: { min: 1, max: nMax, log: true, label: "n" },
      y: { log: true, ticks: byteTicks(Math.min(...ys), Math.max(...ys)) },
      lines,
      // each device's name by its ring (where there is one for every device)
      rules: devices.map((d) => ({ ...d, x: marks.find((m) => m.key === d.key)?.x, current: d.key === pointed })),
      cursor: totals ? n : undefined,
      marks: marks.map((m) => ({ ...m, current: m.key === pointed })),
    });
  };
  const fillsOf = (key) => root.querySelector(`[data-fill="${key}"]`);

  // The comparison: each kind's total at n (totals[k](n); null: not valid),
  // its bar's length over the largest total, and MHA's total over it,
  // exactly (per token: 2 L h d_k s over 2 L h_kv d_k s = h / h_kv, or over
  // L (d_c + d_h^R) s = 2 h d_k / (d_c + d_h^R) for MLA), with the sizes
  // that make it; the current kind's row marked.
  const compareAll = (totals, n, perTokenOf, size) => {
    const at = Object.fromEntries(kinds.map((k) => [k, totals?.[k] ? totals[k](n) : null]));
    const most = kinds.reduce((m, k) => (at[k] !== null && at[k] > m ? at[k] : m), 0n);
    for (const k of kinds) {
      const row = root.querySelector(`[data-compare] tr[data-kind="${k}"]`);
      const out = row.querySelector("[data-size-of]");
      const ratio = row.querySelector("[data-ratio]");
      row.classList.toggle("explorable-current", Boolean(totals) && k === kind.value);
      if (totals) row.setAttribute("aria-current", String(k === kind.value));
      else row.removeAttribute("aria-current");
      const bar = row.querySelector(".explorable-kv-bar");
      bar.style.setProperty("--w", at[k] !== null && most > 0n ? String(Number(at[k]) / Number(most)) : "0");
      out.dataset.value = at[k] === null ? "" : String(at[k]);
      out.textContent = at[k] === null ? "—" : inUnits(at[k]);
      ratio.dataset.value = "";
      if (at[k] === null || at.mha === null) {
        ratio.textContent = "—";
        continue;
      }
      if (k === "mha") {
        ratio.dataset.value = "1";
        ratio.textContent = words(root, "ratio_mha");
        continue;
      }
      const [top, bottom] = [perTokenOf("mha"), perTokenOf(k)]; // MHA's bytes a token over k's
      const r = Number(top) / Number(bottom);
      ratio.dataset.value = String(r);
      const shown = top % bottom === 0n ? grouped(top / bottom) : fmt(r, 1);
      speak(ratio, message(words(root, `ratio_${k}`), {
        r: shown, h: size.heads, g: size.groups,
        a: grouped(2n * BigInt(size.heads) * BigInt(size.d_k)), b: grouped(BigInt(size.latent + size.rope)),
      }));
    }
  };

  const refuse = (html, input) => {
    for (const key of ["h_kv", "per_token", "total", "total_units"]) set(key, "", "—");
    speak(error, html);
    error.hidden = false;
    if (input) input.setAttribute("aria-describedby", error.id);
    effect.textContent = "";
    effect.dataset.value = "";
    for (const device of devices) {
      fillsOf(device.key).dataset.value = "";
      fillsOf(device.key).textContent = "—";
    }
    compareAll(null);
    // The chart keeps the last valid state, dimmed and marked stale (not
    // redrawn empty on an axis of nothing), until the sizes are valid again.
    chart.classList.add("explorable-stale");
    chart.dataset.stale = "";
    announce(root, html);
  };

  // stepped: the "+1 token" button's click, whose effect is said; dragged:
  // n set on the chart, said once the reader stops
  const update = (stepped = false, dragged = false) => {
    for (const input of inputs) input.removeAttribute("aria-describedby"); // refuse() names it again
    window_.removeAttribute("aria-describedby");
    const size = {};
    for (const input of inputs) size[input.dataset.size] = Number(input.value);
    // The sizes the chosen kind uses are live and checked; the others are
    // disabled, with the reason, and only keep their kind's line undrawn
    // while they are wrong.
    const used = inputs.filter((i) => uses(kind.value, i.dataset.size));
    for (const input of inputs) {
      const live = used.includes(input);
      input.disabled = !live;
      const why = root.querySelector(`[data-why="${input.dataset.size}"]`);
      if (why) {
        why.hidden = live;
        why.textContent = live ? "" : message(words(root, "unused"), { kind: kind.selectedOptions[0].textContent });
      } else input.closest("label").hidden = !live; // a kind's own size
    }
    const valid = (i) => Number.isSafeInteger(size[i.dataset.size]) && size[i.dataset.size] >= least(i.dataset.size);
    // Above 2^53 − 1 a number input's integer is read rounded: refused.
    const huge = used.filter((i) => i.value.trim() !== "" &&
      Number.isInteger(size[i.dataset.size]) && !Number.isSafeInteger(size[i.dataset.size]));
    const wrong = used.filter((i) => !valid(i));
    const divides = size.heads % size.groups === 0; // GQA's groups of heads
    const gqa = kind.value === "gqa";
    for (const input of inputs) {
      input.setAttribute("aria-invalid",
        String(wrong.includes(input) || (gqa && !divides && input === groups)));
    }
    const w = Number(window_.value);
    const windowOk = Number.isSafeInteger(w) && w >= 0; // 0: no window
    window_.setAttribute("aria-invalid", String(!windowOk));
    if (!windowOk && Number.isInteger(w) && w > 0) huge.push(window_);
    if (huge.length) {
      return refuse(message(words(root, "too_large"), { name: label(huge[0]) }), huge[0]);
    }
    // the first wrong field is named, with what it must be
    const bad = wrong[0] || (windowOk ? null : window_);
    if (bad) {
      return refuse(message(words(root, "invalid"), { name: label(bad), least: bad === window_ ? 0 : least(bad.dataset.size) }), bad);
    }
    if (gqa && !divides) {
      return refuse(message(words(root, "divides"), { h: size.heads, g: size.groups }), groups);
    }
    error.hidden = true;
    error.innerHTML = "";
    chart.classList.remove("explorable-stale");
    delete chart.dataset.stale;
    const b = BigInt(bytes.value);
    const cached = (n) => BigInt(w > 0 ? Math.min(n, w) : n); // min(n, W)
    const mla = kind.value === "mla";
    // the bytes a token of one sequence costs under kind k (the sizes were
    // all checked above)
    const perTokenOf = (k) => {
      const hKv = { mha: size.heads, gqa: size.groups, mqa: 1 }[k];
      return k === "mla"
        // N · (d_c + d_h^R) · s bytes per token of one sequence: no key or value heads
        ? BigInt(size.layers) * BigInt(size.latent + size.rope) * b
        // 2 (keys and values) · N · h_kv · d_k · s bytes per token of one sequence
        : 2n * BigInt(size.layers) * BigInt(hKv) * BigInt(size.d_k) * b;
    };
    // another kind's line only where its own sizes are valid
    const drawable = (k) => inputs.every((i) => !uses(k, i.dataset.size) || valid(i)) &&
      (k !== "gqa" || divides);
    const totals = Object.fromEntries(kinds.map((k) => {
      if (!drawable(k)) return [k, null];
      const per = perTokenOf(k);
      return [k, (n) => per * cached(n) * BigInt(size.batch)];
    }));
    const hKv = { mha: size.heads, gqa: size.groups, mqa: 1 }[kind.value];
    const perToken = perTokenOf(kind.value);
    const totalAt = totals[kind.value];
    const total = totalAt(size.tokens);
    if (mla) set("h_kv", "", words(root, "h_kv_mla"));
    else set("h_kv", hKv, String(hKv));
    set("per_token", perToken, inUnits(perToken));
    set("total", total, grouped(total));
    set("total_units", total, inUnits(total));
    // the least n whose cache is larger than the device's memory:
    // floor(memory / (per token · b)) + 1, unless a window keeps it below
    const marks = [];
    for (const device of devices) {
      const first = device.bytes / (perToken * BigInt(size.batch)) + 1n;
      const out = fillsOf(device.key);
      if (w > 0 && first > BigInt(w)) {
        out.dataset.value = "";
        out.innerHTML = message(words(root, "fills_never"), { max: inUnits(totalAt(w)) });
      } else {
        out.dataset.value = String(first);
        // pressed (or its ring on the chart): n moves there; the button
        // stays (and keeps the focus) while its n does not change
        const html = message(words(root, "fills_at"), { n: grouped(first) });
        const button = out.querySelector("button[data-go]");
        if (button?.dataset.go === String(first)) button.innerHTML = html;
        else out.innerHTML = `<button type="button" data-go="${first}">${html}</button>`;
        marks.push({ x: Number(first), y: device.y, key: device.key, text: grouped(first) });
      }
    }
    plot(totals, size.tokens, marks);
    compareAll(totals, size.tokens, perTokenOf, size);
    let said = mla
      ? message(words(root, "status_mla"), { total: inUnits(total), width: size.latent + size.rope })
      : message(words(root, "status"), { total: inUnits(total), h_kv: hKv });
    effect.textContent = "";
    effect.dataset.value = "";
    if (stepped) {
      // what the one more token added: total(n) − total(n − 1)
      const delta = total - totalAt(size.tokens - 1);
      effect.dataset.value = String(delta);
      effect.innerHTML = delta > 0n
        ? message(words(root, "step_effect"), { n: grouped(size.tokens), delta: grouped(delta), units: inUnits(delta) })
        : message(words(root, "step_none"), { n: grouped(size.tokens) });
      said = `${effect.innerHTML} ${said}`;
    }
    if (dragged) announceSettled(root, message(words(root, "at_n"), { n: grouped(size.tokens) }) + said);
    else announce(root, said);
  };
  for (const control of [kind, bytes, window_, ...inputs]) control.addEventListener("input", () => update());
  // A preset: its kind and sizes into the controls (the other sizes stay).
  for (const button of root.querySelectorAll("button[data-preset]")) {
    button.addEventListener("click", () => {
      for (const [key, value] of Object.entries(button.dataset)) {
        if (key === "setKind") kind.value = value;
        else if (key.startsWith("set")) {
          const name = key.slice(3).replace(/^./, (c) => c.toLowerCase());
          const input = root.querySelector(`input[data-size="${name}"]`);
          if (input) input.value = value;
        }
      }
      update();
    });
  }
  // Pressing or dragging on the chart sets n there (three significant
  // digits: 1, 2, …, 999, 1,000, 1,010, …), as the input would.
  const tokens = root.querySelector('input[data-size="tokens"]');
  follow(chart, (v) => {
    const n = v < 1000 ? Math.max(1, Math.round(v)) : Number(v.toPrecision(3));
    if (String(n) === tokens.value) return;
    tokens.value = String(n);
    update(false, true);
  });
  // A device's row, rule and ring are one: pointing at or focusing one
  // draws the rule and ring stronger, the drop line to its n, and frames
  // the row.
  const point = (key) => {
    if (key === pointed) return;
    pointed = key;
    for (const el of root.querySelectorAll("[data-fills] [data-device]")) {
      el.classList.toggle("explorable-linked", el.dataset.device === key);
    }
    if (drawn) plot(...drawn);
  };
  const fillsList = root.querySelector("[data-fills]");
  const rowKey = (el) => el?.closest?.("[data-device]")?.dataset.device ?? null;
  const focused = () => rowKey(root.ownerDocument.activeElement);
  fillsList.addEventListener("pointerover", (event) => point(rowKey(event.target) ?? focused()));
  fillsList.addEventListener("pointerleave", () => point(focused()));
  fillsList.addEventListener("focusin", (event) => point(rowKey(event.target)));
  fillsList.addEventListener("focusout", () => point(null));
  const ringKey = (event) => event.target.closest?.("[data-hit]")?.dataset.key ?? null;
  chart.addEventListener("pointerover", (event) => point(ringKey(event) ?? focused()));
  chart.addEventListener("pointerleave", () => point(focused()));
  // Pressing a device's least n, in its row or on its ring, moves n there.
  const go = (n) => {
    tokens.value = String(n);
    update();
  };
  fillsList.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-go]");
    if (button) go(button.dataset.go);
  });
  // Clicking a kind's line or its name picks that kind; a device's ring
  // moves n to where the cache outgrows it.
  chart.addEventListener("click", (event) => {
    const picked = event.target.closest("[data-pick]");
    if (picked?.dataset.hit) return go(picked.dataset.hit);
    if (!picked || picked.dataset.key === kind.value) return;
    kind.value = picked.dataset.key;
    update();
  });
  // One more token decoded: its key and value rows join the cache.
  root.querySelector("button[data-step]").addEventListener("click", () => {
    const n = Number(tokens.value);
    if (!Number.isSafeInteger(n + 1)) return update(); // the input says why
    tokens.value = String(n + 1);
    update(true);
  });
  update();
}

register("kv_cache", mount);
