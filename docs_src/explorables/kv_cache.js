// The KV cache's size: bytes = 2 · L · h_kv · d_k · n · s · b, with h_kv = h
// (multi-head), g (grouped-query) or 1 (multi-query); exact integers (BigInt),
// as kv_cache_bytes computes them. A window W > 0 caches min(n, W) tokens a
// layer instead of n (kv_cache_bytes(..., window=W)).
import { announce, field, fmt, frame, message, optionList, register, status, templates, words } from "./core.js";

// data: the page's model (sizes), the widths in bytes and the kinds to offer.
export function render(w, data) {
  const number = (key) => field(w[key],
    `<input type="number" min="1" step="1" value="${data.sizes[key]}" data-size="${key}" ` +
    'disabled inputmode="numeric">');
  const controls =
    '<div class="explorable-controls explorable-form">' +
    field(w.kind, `<select data-kind disabled>${optionList(data.kinds, data.kinds[0], w)}</select>`) +
    ["layers", "heads", "groups", "d_k", "tokens"].map(number).join("") +
    field(w.bytes, `<select data-bytes disabled>${optionList(data.bytes, data.bytes[0])}</select>`) +
    number("batch") +
    field(w.window, `<input type="number" min="0" step="1" value="${data.window}" data-window ` +
      'disabled inputmode="numeric">') +
    `<button type="button" data-step disabled>${w.step}</button></div>`;
  const result = (key) => `<dt>${w[key]}</dt><dd data-result="${key}" data-value="0">0</dd>`;
  const results =
    '<dl class="explorable-results">' +
    ["h_kv", "per_token", "total", "total_units"].map(result).join("") + "</dl>";
  return frame("kv_cache", w, controls + results + status() + templates(w, "status", "invalid"));
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
  const window_ = root.querySelector("input[data-window]");
  const result = (key) => root.querySelector(`[data-result="${key}"]`);

  const set = (key, n, text) => {
    result(key).dataset.value = String(n);
    result(key).textContent = text;
  };

  const update = () => {
    groups.disabled = kind.value !== "gqa";
    const size = {};
    for (const input of inputs) size[input.dataset.size] = Number(input.value);
    const wrong = inputs.filter((i) => !i.disabled && !(Number.isInteger(size[i.dataset.size]) && size[i.dataset.size] >= 1));
    const divides = kind.value !== "gqa" || size.heads % size.groups === 0;
    for (const input of inputs) input.setAttribute("aria-invalid", String(wrong.includes(input)));
    const w = Number(window_.value);
    const windowOk = Number.isInteger(w) && w >= 0; // 0: no window
    window_.setAttribute("aria-invalid", String(!windowOk));
    if (wrong.length || !divides || !windowOk) {
      for (const key of ["h_kv", "per_token", "total", "total_units"]) set(key, "", "—");
      return announce(root, words(root, "invalid"));
    }
    const hKv = { mha: size.heads, gqa: size.groups, mqa: 1 }[kind.value];
    const b = BigInt(bytes.value);
    // 2 (keys and values) · L · h_kv · d_k · b bytes per token of one sequence
    const perToken = 2n * BigInt(size.layers) * BigInt(hKv) * BigInt(size.d_k) * b;
    const cached = w > 0 ? Math.min(size.tokens, w) : size.tokens; // min(n, W)
    const total = perToken * BigInt(cached) * BigInt(size.batch);
    set("h_kv", hKv, String(hKv));
    set("per_token", perToken, inUnits(perToken));
    set("total", total, grouped(total));
    set("total_units", total, inUnits(total));
    announce(root, message(words(root, "status"), { total: inUnits(total), h_kv: hKv }));
  };
  for (const control of [kind, bytes, window_, ...inputs]) control.addEventListener("input", update);
  // One more token decoded: its key and value rows join the cache.
  root.querySelector("button[data-step]").addEventListener("click", () => {
    const tokens = root.querySelector('input[data-size="tokens"]');
    tokens.value = String((Number(tokens.value) || 0) + 1);
    update();
  });
  update();
}

register("kv_cache", mount);
