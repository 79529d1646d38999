// The KV cache's size: bytes = 2 · L · h_kv · d_k · n · s · b, with h_kv = h
// (multi-head), g (grouped-query) or 1 (multi-query); exact integers (BigInt),
// as kv_cache_bytes computes them. Multi-head latent attention caches
// L · (d_c + d_h^R) · n · s · b bytes (kv_cache_bytes' latent_dim, rope_dim).
// A window W > 0 caches min(n, W) tokens a layer instead of n
// (kv_cache_bytes(..., window=W)).
import { announce, field, fmt, frame, message, optionList, register, status, templates, words } from "./core.js";

// data: the page's model (sizes), the widths in bytes and the kinds to offer.
export function render(w, data) {
  const number = (key) => field(w[key],
    `<input type="number" min="${key === "rope" ? 0 : 1}" step="1" value="${data.sizes[key]}" ` +
    `data-size="${key}" disabled inputmode="numeric">`);
  // A real model's sizes, set by one button each (data.presets).
  const preset = ([name, sizes]) =>
    `<button type="button" data-preset="${name}" ` +
    Object.entries(sizes).map(([k, v]) => `data-set-${k}="${v}"`).join(" ") +
    ` disabled>${w[`preset_${name}`]}</button>`;
  const controls =
    '<div class="explorable-controls explorable-form">' +
    field(w.kind, `<select data-kind disabled>${optionList(data.kinds, data.kinds[0], w)}</select>`) +
    ["layers", "heads", "groups", "d_k", "tokens"].map(number).join("") +
    ["latent", "rope"].filter((k) => k in data.sizes).map(number).join("") +
    field(w.bytes, `<select data-bytes disabled>${optionList(data.bytes, data.bytes[0])}</select>`) +
    number("batch") +
    field(w.window, `<input type="number" min="0" step="1" value="${data.window}" data-window ` +
      'disabled inputmode="numeric">') +
    `<button type="button" data-step disabled>${w.step}</button>` +
    Object.entries(data.presets || {}).map(preset).join("") + "</div>";
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results =
    '<dl class="explorable-results">' +
    ["h_kv", "per_token", "total", "total_units"].map(result).join("") + "</dl>";
  return frame("kv_cache", w,
    controls + results + status() + templates(w, "status", "status_mla", "invalid"));
}

const UNITS = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];

function inUnits(n) {
  for (const [unit, size] of UNITS) if (n >= BigInt(size)) return `${fmt(Number(n) / size, 2)} ${unit}`;
  return `${n} B`;
}

const grouped = (n) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");

export function mount(root) {
  const kind = root.querySelector("select[data-kind]");
  const bytes = root.querySelector("select[data-bytes]");
  const inputs = [...root.querySelectorAll("input[data-size]")];
  const groups = root.querySelector('input[data-size="groups"]');
  const latent = [...root.querySelectorAll('input[data-size="latent"], input[data-size="rope"]')];
  const window_ = root.querySelector("input[data-window]");
  const result = (key) => root.querySelector(`[data-result="${key}"]`);

  const set = (key, n, text) => {
    result(key).dataset.value = String(n);
    result(key).textContent = text;
  };

  const update = () => {
    groups.disabled = kind.value !== "gqa";
    for (const input of latent) input.disabled = kind.value !== "mla";
    const size = {};
    for (const input of inputs) size[input.dataset.size] = Number(input.value);
    const least = (key) => (key === "rope" ? 0 : 1); // d_h^R may be 0
    const wrong = inputs.filter((i) => !i.disabled &&
      !(Number.isInteger(size[i.dataset.size]) && size[i.dataset.size] >= least(i.dataset.size)));
    const divides = kind.value !== "gqa" || size.heads % size.groups === 0;
    for (const input of inputs) input.setAttribute("aria-invalid", String(wrong.includes(input)));
    const w = Number(window_.value);
    const windowOk = Number.isInteger(w) && w >= 0; // 0: no window
    window_.setAttribute("aria-invalid", String(!windowOk));
    if (wrong.length || !divides || !windowOk) {
      for (const key of ["h_kv", "per_token", "total", "total_units"]) set(key, "", "—");
      return announce(root, words(root, "invalid"));
    }
    const b = BigInt(bytes.value);
    const cached = w > 0 ? Math.min(size.tokens, w) : size.tokens; // min(n, W)
    const total = (perToken) => perToken * BigInt(cached) * BigInt(size.batch);
    if (kind.value === "mla") {
      // L · (d_c + d_h^R) · s bytes per token of one sequence: no key or value heads
      const width = size.latent + size.rope;
      const perToken = BigInt(size.layers) * BigInt(width) * b;
      set("h_kv", "", "—");
      set("per_token", perToken, inUnits(perToken));
      set("total", total(perToken), grouped(total(perToken)));
      set("total_units", total(perToken), inUnits(total(perToken)));
      return announce(root, message(words(root, "status_mla"), { total: inUnits(total(perToken)), width }));
    }
    const hKv = { mha: size.heads, gqa: size.groups, mqa: 1 }[kind.value];
    // 2 (keys and values) · L · h_kv · d_k · b bytes per token of one sequence
    const perToken = 2n * BigInt(size.layers) * BigInt(hKv) * BigInt(size.d_k) * b;
    set("h_kv", hKv, String(hKv));
    set("per_token", perToken, inUnits(perToken));
    set("total", total(perToken), grouped(total(perToken)));
    set("total_units", total(perToken), inUnits(total(perToken)));
    announce(root, message(words(root, "status"), { total: inUnits(total(perToken)), h_kv: hKv }));
  };
  for (const control of [kind, bytes, window_, ...inputs]) control.addEventListener("input", update);
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
  // One more token decoded: its key and value rows join the cache.
  root.querySelector("button[data-step]").addEventListener("click", () => {
    const tokens = root.querySelector('input[data-size="tokens"]');
    tokens.value = String((Number(tokens.value) || 0) + 1);
    update();
  });
  update();
}

register("kv_cache", mount);
