"""Interactive figures ("explorables"): numbers the reader moves on the page.

- **A placeholder** in a page, a line of its own in both hand-written
  editions at the same place, names the explorable:
  ``<div class="explorable" data-explorable="softmax"></div>``.
- **Drawn at build time.** ``on_page_content`` replaces the placeholder by the
  explorable's whole figure in the default state: its controls (disabled until
  the script takes over), its matrices as tables and its numbers, computed by
  ``attention_docs``. The reader without JavaScript, the PDF (printed with
  JavaScript off) and the search see that state, with a sentence (in
  ``<noscript>``) saying that the web page lets the reader move it; the
  script only fills in numbers and shows or hides rows the figure already
  has, so nothing moves when it starts (no layout shift).
- **Loaded only where used.** A page with an explorable gets the figures'
  stylesheet (``docs_src/explorables/explorables.css``, inline) and one
  ``<script type="module">`` per explorable, ``assets/explorables/<name>.js``,
  which imports the shared ``core.js`` (matrices, softmax, formatting). Pages
  without one load nothing new. Material's instant navigation runs a page's
  scripts again; a module runs once and mounts every page's figures through
  ``document$`` (core.js).
- **Words** live in one file per explorable, ``docs_src/explorables/<name>.yml``,
  with ``ja`` and ``zh-Hant`` holding the same keys; the Simplified edition
  converts the Traditional words, as the plots' labels are converted.
- **Numbers** are formatted the same way here and in ``core.js`` (``fmt``,
  ``sci``), and each number also carries its full value in ``data-value``,
  which the browser tests compare with the package.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url

from attention_book.editions import DERIVED
from attention_book.zh_hans import to_simplified_text

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs_src" / "explorables"
PLACEHOLDER = re.compile(
    r'<div class="explorable" data-explorable="(?P<name>[a-z_]+)"></div>'
)
MINUS = "\u2212"


# --- words -----------------------------------------------------------------


def load_words(name: str) -> dict:
    path = FOLDER / f"{name}.yml"
    if not path.is_file():
        raise PluginError(f"explorable {name!r} has no words: {path.relative_to(ROOT)}")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def words_for(name: str, language: str) -> dict[str, str]:
    """The explorable's words in ``language`` (zh-Hans: converted from zh-Hant)."""
    if language in DERIVED:
        words = words_for(name, DERIVED[language])
        return {key: to_simplified_text(value) for key, value in words.items()}
    words = load_words(name).get(language)
    if not isinstance(words, dict):
        raise PluginError(f"docs_src/explorables/{name}.yml has no `{language}` words")
    return words


def names() -> list[str]:
    """Every explorable: the scripts of the folder but the shared core."""
    return sorted(p.stem for p in FOLDER.glob("*.js") if p.stem != "core")


# --- numbers, formatted as core.js formats them ----------------------------


def fmt(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, a true minus sign, and no "−0"."""
    text = f"{x:.{digits}f}"
    if text.startswith("-") and not text.strip("-0."):
        text = text[1:]
    return text.replace("-", MINUS)


def sci(x: float, digits: int = 1) -> str:
    """``x`` as ``m × 10^e`` (HTML) with ``digits`` decimals of ``m``."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"{fmt(float(mantissa), digits)} × 10<sup>{fmt(int(exponent), 0)}</sup>"


def grouped(n: int) -> str:
    """An exact integer with a comma every three digits."""
    return f"{n:,}"


def value(x: float) -> str:
    """The full value for ``data-value``, as JavaScript's ``String(x)`` writes it."""
    if x == float("-inf"):
        return "-Infinity"
    text = repr(float(x))
    if text.endswith(".0"):
        text = text[:-2]
    if "e" in text:  # 1e-05 -> 1e-5, 1e+22 -> 1e+22
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}e{sign}{int(exponent.lstrip('+-'))}"
    return text.replace("-0", "0") if text == "-0" else text


def esc(text: object) -> str:
    return html.escape(str(text))


# --- pieces of HTML ---------------------------------------------------------


def number_cell(x: float, digits: int, attrs: str = "", tag: str = "td") -> str:
    shown = f"{MINUS}∞" if x == float("-inf") else fmt(x, digits)
    return f'<{tag} data-value="{value(x)}"{attrs}>{shown}</{tag}>'


def matrix(
    key: str,
    caption: str,
    values,
    digits: int,
    rows: list[str],
    cols: list[str],
    *,
    shown_rows: int | None = None,
    shown_cols: int | None = None,
    cell=None,
) -> str:
    """A matrix as a table, ``data-matrix=key``; cells ``data-i``/``data-j``.

    Rows and columns past ``shown_rows``/``shown_cols`` are ``hidden`` (the
    script shows them when the reader asks for a larger matrix). ``cell``
    makes a cell's HTML from ``(i, j, x, attrs)`` instead of a number.
    """
    n_rows, n_cols = len(rows), len(cols)
    shown_rows = n_rows if shown_rows is None else shown_rows
    shown_cols = n_cols if shown_cols is None else shown_cols
    hide_c = lambda j: " hidden" if j >= shown_cols else ""  # noqa: E731
    head = "".join(
        f'<th scope="col" data-j="{j}"{hide_c(j)}>{c}</th>' for j, c in enumerate(cols)
    )
    body = []
    for i, label in enumerate(rows):
        cells = []
        for j in range(n_cols):
            x = values[i][j] if i < len(values) and j < len(values[i]) else 0.0
            attrs = f' data-i="{i}" data-j="{j}"{hide_c(j)}'
            cells.append(
                cell(i, j, x, attrs) if cell else number_cell(x, digits, attrs)
            )
        hide_r = " hidden" if i >= shown_rows else ""
        head_cell = f'<th scope="row">{label}</th>'
        body.append(f'<tr data-i="{i}"{hide_r}>{head_cell}{"".join(cells)}</tr>')
    return (
        f'<table class="explorable-matrix" data-matrix="{key}">'
        f"<caption>{caption}</caption>"
        f"<thead><tr><td></td>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def frame(name: str, words: dict, inner: str) -> str:
    """The explorable's box: title, content, live status, no-script note."""
    # A <section> (a group, not a landmark) holding no other <section>: the
    # search leaves out an element by its tag, up to the first end tag of
    # that name, so the figure's own <div>s must not end its exclusion.
    return (
        f'<section class="explorable" data-explorable="{name}" id="explorable-{name}" '
        f'role="group" aria-labelledby="explorable-{name}-title" data-search-exclude>'
        f'<p class="explorable-title" id="explorable-{name}-title">{words["title"]}</p>'
        f"{inner}"
        f"<noscript><p>{words['static']}</p></noscript>"
        "</section>"
    )


def status(text: str) -> str:
    return f'<p class="explorable-status" role="status" aria-live="polite">{text}</p>'


def message(template: str, **values: str) -> str:
    """``{key}`` replaced as core.js's ``message`` does it."""
    return re.sub(r"\{(\w+)\}", lambda m: values[m[1]], template)


def templates(words: dict, *keys: str) -> str:
    """Messages the script fills in, as ``data-msg-*`` attributes of a node."""
    attrs = " ".join(f'data-msg-{k}="{esc(words[k])}"' for k in keys)
    return f'<span class="explorable-messages" hidden {attrs}></span>'


def option_list(values, chosen, names: dict | None = None) -> str:
    """A <select>'s options, ``chosen`` selected; each shown as ``names[value]``
    (the figure's words) or as the value itself."""
    return "".join(
        f'<option value="{v}"{" selected" if v == chosen else ""}>'
        f"{names[v] if names else v}</option>"
        for v in values
    )


def sub(symbol: str, index: object) -> str:
    return f"{symbol}<sub>{index}</sub>"


# --- 1. softmax: temperature and saturation ---------------------------------

SOFTMAX_X = [1.0, 2.0, 3.0]
SOFTMAX_T = 1.0


def softmax_state(x: list[float], t: float) -> dict:
    import numpy as np

    from attention_docs import softmax

    s = softmax(t * np.asarray(x, dtype=np.float64))
    jacobian = np.diag(s) - np.outer(s, s)  # ds_j/du_l = s_j (delta_jl - s_l), u = t x
    return {
        "tx": (t * np.asarray(x)).tolist(),
        "s": s.tolist(),
        "largest": float(s.max()),
        "rest": float(1 - s.max()),
        "jacobian": jacobian.tolist(),
        "jmax": float(np.abs(jacobian).max()),
    }


def render_softmax(words: dict) -> str:
    x, t = SOFTMAX_X, SOFTMAX_T
    st = softmax_state(x, t)
    inputs = "".join(
        f'<label class="explorable-field"><span>{sub("x", j + 1)}</span>'
        f'<input type="number" step="0.5" value="{x[j]:g}" data-x="{j}" disabled '
        f'inputmode="decimal"></label>'
        for j in range(len(x))
    )
    scale = (
        '<label class="explorable-field explorable-wide" for="explorable-softmax-t">'
        f"{words['scale']}</label>"
        '<input type="range" id="explorable-softmax-t" min="0" max="10" step="0.1" '
        f'value="{t:g}" data-t disabled>'
        f'<output for="explorable-softmax-t" data-t-shown>{fmt(t, 1)}</output>'
    )

    def bar(i, j, s, attrs):
        return (
            f'<td{attrs} class="explorable-bar-cell">'
            f'<span class="explorable-bar" style="--w: {100 * s:.2f}%"></span>'
            f'<span data-value="{value(s)}" data-s="{i}">{fmt(s, 4)}</span></td>'
        )

    labels = [sub("x", j + 1) for j in range(len(x))]
    weights = matrix(
        "weights",
        words["weights"],
        [[xj, txj, sj] for xj, txj, sj in zip(x, st["tx"], st["s"], strict=True)],
        4,
        labels,
        [sub("x", "j"), f"{sub('u', 'j')} = t{sub('x', 'j')}", sub("s", "j")],
        cell=lambda i, j, v, a: bar(i, j, v, a) if j == 2 else number_cell(v, 2, a),
    )
    jac = matrix(
        "jacobian",
        words["jacobian"],
        st["jacobian"],
        4,
        [sub("s", j + 1) for j in range(3)],
        [sub("u", j + 1) for j in range(3)],
    )
    results = (
        '<dl class="explorable-results">'
        f"<dt>{words['largest']}</dt><dd data-result='largest' "
        f"data-value='{value(st['largest'])}'>{fmt(st['largest'], 4)}</dd>"
        f"<dt>{words['rest']}</dt><dd data-result='rest' "
        f"data-value='{value(st['rest'])}'>{sci(st['rest'])}</dd>"
        f"<dt>{words['jmax']}</dt><dd data-result='jmax' "
        f"data-value='{value(st['jmax'])}'>{sci(st['jmax'])}</dd></dl>"
    )
    said = message(
        words["status"],
        t=fmt(t, 1),
        largest=fmt(st["largest"], 4),
        rest=sci(st["rest"]),
        jmax=sci(st["jmax"]),
    )
    inner = (
        f'<div class="explorable-controls">{inputs}'
        f'<div class="explorable-range">{scale}</div></div>'
        f'<div class="explorable-tables">{weights}{jac}</div>'
        f"{results}{status(said)}{templates(words, 'status')}"
    )
    return frame("softmax", words, inner)


# --- 3. masks ------------------------------------------------------------------

#: The running example's tokens; a mask of n_q queries and n_k keys uses the
#: last n_q queries (new queries against cached keys, as the bottom-right
#: alignment assumes) and the first n_k keys and values.
MASK_N = 3


def running_qkv():
    from attention_docs import running_example

    x, w_q, w_k, w_v = running_example()
    return x, w_q, w_k, w_v


def masks_state(n_q: int, n_k: int, mask) -> dict:
    import numpy as np

    from attention_docs import scaled_dot_product_attention

    x, w_q, w_k, w_v = running_qkv()
    q, k, v = (x @ w_q)[MASK_N - n_q :], (x @ w_k)[:n_k], (x @ w_v)[:n_k]
    mask = np.asarray(mask, dtype=bool)
    scores = np.where(mask, q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
    z, a = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    return {"scores": scores.tolist(), "weights": a.tolist(), "output": z.tolist()}


def render_masks(words: dict) -> str:
    import json

    from attention_docs import causal_mask

    n = MASK_N
    mask = causal_mask(n, n)
    st = masks_state(n, n, mask)
    x, w_q, w_k, w_v = running_qkv()
    data = {"q": (x @ w_q).tolist(), "k": (x @ w_k).tolist(), "v": (x @ w_v).tolist()}

    def select(key: str, label: str, options, chosen) -> str:
        opts = option_list(options, chosen)
        return (
            f'<label class="explorable-field"><span>{label}</span>'
            f"<select data-{key} disabled>{opts}</select></label>"
        )

    def preset(key: str) -> str:
        return (
            f'<button type="button" data-preset="{key}" disabled>{words[key]}</button>'
        )

    controls = (
        '<div class="explorable-controls">'
        f"{select('nq', words['n_q'], range(1, n + 1), n)}"
        f"{select('nk', words['n_k'], range(1, n + 1), n)}"
        f"{preset('causal')}{preset('all')}"
        f"{select('length', words['length'], range(0, n + 1), n)}"
        f"{preset('padding')}"
        "</div>"
    )
    rows = [sub("q", i + 1) for i in range(n)]
    cols = [sub("k", j + 1) for j in range(n)]

    def checkbox(i, j, on, attrs):
        name = esc(message(words["cell"], i=str(i + 1), j=str(j + 1)))
        checked = " checked" if on else ""
        return (
            f'<td{attrs}><input type="checkbox" aria-label="{name}" data-cell '
            f'data-i="{i}" data-j="{j}"{checked} disabled></td>'
        )

    tables = (
        '<div class="explorable-tables">'
        + matrix("mask", words["mask"], mask.tolist(), 0, rows, cols, cell=checkbox)
        + matrix("scores", words["scores"], st["scores"], 2, rows, cols)
        + matrix("weights", words["weights"], st["weights"], 3, rows, cols)
        + matrix(
            "output",
            words["output"],
            st["output"],
            3,
            rows,
            [str(j + 1) for j in range(4)],
        )
        + "</div>"
    )
    inner = (
        f'<div data-data="{esc(json.dumps(data))}" hidden></div>'
        f"{controls}{tables}{status(words['status_ok'])}"
        f"{templates(words, 'status_ok', 'status_empty')}"
    )
    return frame("masks", words, inner)


# --- 2. the running example, step by step -----------------------------------


def example_state(x) -> dict:
    import numpy as np

    from attention_docs import (
        attention_scores,
        project_qkv,
        scaled_dot_product_attention,
    )

    _, w_q, w_k, w_v = running_qkv()
    q, k, v = project_qkv(np.asarray(x, dtype=np.float64), w_q, w_k, w_v)
    z, a = scaled_dot_product_attention(q, k, v, return_weights=True)
    return {
        "q": q.tolist(),
        "k": k.tolist(),
        "v": v.tolist(),
        "scores": attention_scores(q, k).tolist(),
        "weights": a.tolist(),
        "output": z.tolist(),
    }


def render_example(words: dict) -> str:
    import json

    x, w_q, w_k, w_v = running_qkv()
    st = example_state(x)
    n, d = x.shape
    tokens = [sub("x", i + 1) for i in range(n)]
    dims = [str(j + 1) for j in range(d)]
    keys = [sub("k", j + 1) for j in range(n)]
    data = {"w_q": w_q.tolist(), "w_k": w_k.tolist(), "w_v": w_v.tolist()}

    def entry(i, j, v, attrs):
        name = esc(message(words["entry"], i=str(i + 1), j=str(j + 1)))
        return (
            f'<td{attrs}><input type="number" step="1" value="{v:g}" '
            f'aria-label="{name}" data-x disabled inputmode="decimal"></td>'
        )

    def pick(i, j, v, attrs):
        # Named by its number, in the table's row z_i and column j.
        return (
            f'<td{attrs}><button type="button" aria-pressed="false" '
            f'data-value="{value(v)}" disabled>{fmt(v, 3)}</button></td>'
        )

    rows = lambda s: [sub(s, i + 1) for i in range(n)]  # noqa: E731
    tables = (
        '<div class="explorable-tables">'
        + matrix("x", words["x"], x.tolist(), 0, tokens, dims, cell=entry)
        + matrix("q", words["q"], st["q"], 2, rows("q"), dims)
        + matrix("k", words["k"], st["k"], 2, rows("k"), dims)
        + matrix("v", words["v"], st["v"], 2, rows("v"), dims)
        + matrix("scores", words["scores"], st["scores"], 3, rows("q"), keys)
        + matrix("weights", words["weights"], st["weights"], 3, rows("q"), keys)
        + matrix("output", words["output"], st["output"], 3, rows("z"), dims, cell=pick)
        + "</div>"
    )
    inner = (
        f'<div data-data="{esc(json.dumps(data))}" hidden></div>'
        f"{tables}{status(words['hint'])}"
        f"{templates(words, 'hint', 'sum')}"
    )
    return frame("example", words, inner)


# --- 7. the KV cache's size -------------------------------------------------

#: GPT-3 175B (Brown et al., 2020, Table 2.1), the page's example.
KV_DEFAULT = {
    "layers": 96,
    "heads": 96,
    "groups": 8,
    "d_k": 128,
    "tokens": 2048,
    "batch": 1,
}
KV_BYTES = (2, 4, 8)
KV_KINDS = ("mha", "gqa", "mqa")
UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def kv_heads(kind: str, heads: int, groups: int) -> int:
    """Heads of keys and values: h (MHA), g (GQA), 1 (MQA)."""
    return {"mha": heads, "gqa": groups, "mqa": 1}[kind]


def in_units(n: int) -> str:
    for unit, size in UNITS:
        if n >= size:
            return f"{fmt(n / size, 2)} {unit}"
    return f"{n} B"


def kv_state(kind: str, sizes: dict, bytes_per_value: int) -> dict:
    from attention_docs import kv_cache_bytes

    h_kv = kv_heads(kind, sizes["heads"], sizes["groups"])
    total = kv_cache_bytes(
        sizes["layers"],
        h_kv,
        sizes["d_k"],
        sizes["tokens"],
        bytes_per_value=bytes_per_value,
        batch=sizes["batch"],
    )
    per_token = kv_cache_bytes(
        sizes["layers"], h_kv, sizes["d_k"], 1, bytes_per_value=bytes_per_value
    )
    return {"h_kv": h_kv, "total": total, "per_token": per_token}


def render_kv_cache(words: dict) -> str:
    sizes, kind, b = KV_DEFAULT, "mha", 2
    st = kv_state(kind, sizes, b)

    def number(key: str) -> str:
        return (
            f'<label class="explorable-field"><span>{words[key]}</span>'
            f'<input type="number" min="1" step="1" value="{sizes[key]}" '
            f'data-size="{key}" disabled inputmode="numeric"></label>'
        )

    kinds = option_list(KV_KINDS, kind, words)
    widths = option_list(KV_BYTES, b)
    controls = (
        '<div class="explorable-controls explorable-form">'
        f'<label class="explorable-field"><span>{words["kind"]}</span>'
        f"<select data-kind disabled>{kinds}</select></label>"
        + "".join(number(key) for key in ("layers", "heads", "groups", "d_k", "tokens"))
        + f'<label class="explorable-field"><span>{words["bytes"]}</span>'
        f"<select data-bytes disabled>{widths}</select></label>"
        + number("batch")
        + f'<button type="button" data-step disabled>{words["step"]}</button>'
        + "</div>"
    )

    def result(key: str, n: int, text: str) -> str:
        return (
            f'<dt>{words[key]}</dt><dd data-result="{key}" data-value="{n}">{text}</dd>'
        )

    results = (
        '<dl class="explorable-results">'
        + result("h_kv", st["h_kv"], str(st["h_kv"]))
        + result("per_token", st["per_token"], in_units(st["per_token"]))
        + result("total", st["total"], grouped(st["total"]))
        + result("total_units", st["total"], in_units(st["total"]))
        + "</dl>"
    )
    said = message(words["status"], total=in_units(st["total"]), h_kv=str(st["h_kv"]))
    inner = f"{controls}{results}{status(said)}{templates(words, 'status', 'invalid')}"
    return frame("kv_cache", words, inner)


# --- 5. RoPE ---------------------------------------------------------------------

#: The page's query and key, and the positions of its first pair (m - r = 3).
ROPE_Q, ROPE_K = [1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]
ROPE_M, ROPE_N = 3, 0
#: Half the side of each pair's drawing, in the units of the vectors.
ROPE_R = 6


def rope_state(m: float, n: float) -> dict:
    import numpy as np

    from attention_docs import apply_rope

    q = apply_rope(np.array([ROPE_Q]), positions=[m])  # q R_m
    k = apply_rope(np.array([ROPE_K]), positions=[n])  # k R_r
    return {"q": q[0].tolist(), "k": k[0].tolist(), "score": float((q @ k.T).item())}


def render_rope(words: dict) -> str:
    st = rope_state(ROPE_M, ROPE_N)
    pairs = len(ROPE_Q) // 2

    def position(key: str) -> str:
        return (
            f'<label class="explorable-field"><span>{words[key]}</span>'
            f'<input type="number" min="0" max="100000" step="1" '
            f'value="{ROPE_M if key == "m" else ROPE_N}" data-{key} disabled '
            'inputmode="numeric"></label>'
        )

    def arrow(vector: str, i: int, x: float, y: float) -> str:
        return (
            f'<line class="explorable-{vector}" data-arrow="{vector}{i}" x1="0" y1="0" '
            f'x2="{x:.4f}" y2="{-y:.4f}"></line>'
        )

    r = ROPE_R
    axes = (
        f'<line class="explorable-axis" x1="{-r}" x2="{r}" y1="0" y2="0"></line>'
        f'<line class="explorable-axis" y1="{-r}" y2="{r}" x1="0" x2="0"></line>'
    )
    panels = "".join(
        f'<div class="explorable-plane"><svg viewBox="{-ROPE_R} {-ROPE_R} '
        f'{2 * ROPE_R} {2 * ROPE_R}" aria-hidden="true" focusable="false">'
        f'<circle r="{ROPE_R - 0.5}"></circle>'
        f"{axes}"
        + arrow("q", i, st["q"][2 * i], st["q"][2 * i + 1])
        + arrow("k", i, st["k"][2 * i], st["k"][2 * i + 1])
        + f"</svg><p>{message(words['pair'], i=str(i + 1))}</p></div>"
        for i in range(pairs)
    )
    dims = [str(j + 1) for j in range(len(ROPE_Q))]
    table = matrix(
        "rotated",
        words["rotated"],
        [st["q"], st["k"]],
        4,
        [words["q_row"], words["k_row"]],
        dims,
    )
    results = (
        '<dl class="explorable-results">'
        f'<dt>m − r</dt><dd data-result="shift" data-value="{ROPE_M - ROPE_N}">'
        f"{fmt(ROPE_M - ROPE_N, 0)}</dd>"
        f'<dt>{words["score"]}</dt><dd data-result="score" '
        f'data-value="{value(st["score"])}">{fmt(st["score"], 4)}</dd></dl>'
    )
    said = message(
        words["status"], shift=fmt(ROPE_M - ROPE_N, 0), score=fmt(st["score"], 4)
    )
    controls = (
        '<div class="explorable-controls">'
        f"{position('m')}{position('n')}"
        f'<button type="button" data-shift disabled>{words["shift"]}</button></div>'
    )
    inner = (
        f'{controls}<div class="explorable-tables">{panels}</div>{table}{results}'
        f"{status(said)}{templates(words, 'status')}"
    )
    return frame("rope", words, inner)


# --- 6. online softmax ----------------------------------------------------------

#: The page's scores of one query and its values (one row per key).
ONLINE_S = [1.0, 3.0, 0.5, 4.0]
ONLINE_V = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]
ONLINE_BLOCKS = (1, 2, 4)


def online_state(s: list[float], block: int) -> dict:
    """The running maximum m, sum l and output o after each block of keys,
    the book's formulas, and the plain and blockwise results of the package."""
    import numpy as np

    from attention_docs import blockwise_attention, scaled_dot_product_attention

    scores, values = np.asarray(s, dtype=np.float64), np.asarray(ONLINE_V)
    m, ell, o = -np.inf, 0.0, np.zeros(values.shape[1])
    steps = []
    for start in range(0, len(scores), block):
        s_b, v_b = scores[start : start + block], values[start : start + block]
        m_new = max(m, float(s_b.max()))  # m' = max(m, max_j s_j)
        rescale = np.exp(m - m_new)  # e^(m - m'), 0 for the first block
        weights = np.exp(s_b - m_new)  # e^(s_j - m')
        ell = rescale * ell + weights.sum()  # l' = e^(m - m') l + sum_j e^(s_j - m')
        o = rescale * o + weights @ v_b  # o' = e^(m - m') o + sum_j e^(s_j - m') v_j
        m = m_new
        steps.append([m, float(ell), *o.tolist(), *(o / ell).tolist()])
    # One query whose scores are s: q = (1), k_j = (s_j), scale 1.
    q, k = np.ones((1, 1)), scores[:, np.newaxis]
    plain = scaled_dot_product_attention(q, k, values, scale=1.0)[0]
    blockwise = blockwise_attention(q, k, values, scale=1.0, block_size=block)[0]
    return {"steps": steps, "plain": plain.tolist(), "blockwise": blockwise.tolist()}


def render_online(words: dict) -> str:
    s, block = ONLINE_S, 1
    st = online_state(s, block)
    n = len(s)
    inputs = "".join(
        f'<label class="explorable-field"><span>{sub("s", j + 1)}</span>'
        f'<input type="number" step="0.5" value="{s[j]:g}" data-s="{j}" disabled '
        'inputmode="decimal"></label>'
        for j in range(n)
    )
    sizes = option_list(ONLINE_BLOCKS, block)
    controls = (
        f'<div class="explorable-controls">{inputs}'
        f'<label class="explorable-field"><span>{words["block"]}</span>'
        f"<select data-block disabled>{sizes}</select></label>"
        f'<button type="button" data-next disabled>{words["next"]}</button>'
        f'<button type="button" data-restart disabled>{words["restart"]}</button></div>'
    )
    steps = matrix(
        "steps",
        words["steps"],
        st["steps"],
        3,
        [str(j + 1) for j in range(n)],
        ["m", "ℓ", sub("o", 1), sub("o", 2), f"{sub('o', 1)}/ℓ", f"{sub('o', 2)}/ℓ"],
    )
    plain = matrix(
        "plain", words["plain"], [st["plain"]], 4, [words["plain_row"]], ["1", "2"]
    )
    inner = (
        f'<div data-data="{esc(str(ONLINE_V))}" hidden></div>{controls}{steps}{plain}'
        f"{status(words['start'])}{templates(words, 'start', 'step', 'done')}"
    )
    return frame("online", words, inner)


# --- 4. heads -----------------------------------------------------------------

HEAD_COUNTS = (1, 2, 4)  # the divisors of d_model = 4
#: W^O: the identity (the output is the concatenation itself), or the page's
#: W^O_1 = [I | 0], W^O_2 = [I | I] (sum-of-heads), rows in blocks of d_v.
W_O = {
    "identity": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    "mixing": [[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]],
}


def heads_state(h: int, w_o_name: str) -> dict:
    import numpy as np

    from attention_docs import multi_head_attention

    x, w_q, w_k, w_v = running_qkv()
    w_o = np.asarray(W_O[w_o_name], dtype=np.float64)
    out, weights = multi_head_attention(x, x, x, w_q, w_k, w_v, w_o, h)
    concat, _ = multi_head_attention(x, x, x, w_q, w_k, w_v, np.eye(4), h)
    d_v = 4 // h
    blocks = [slice(i * d_v, (i + 1) * d_v) for i in range(h)]
    terms = [concat[:, b] @ w_o[b, :] for b in blocks]  # head_i W^O_i: (n, d_model)
    return {
        "q": (x @ w_q).tolist(),
        "weights": weights.tolist(),
        "concat": concat.tolist(),
        "terms": [t.tolist() for t in terms],
        "output": out.tolist(),
    }


def render_heads(words: dict) -> str:
    import json

    h, w_o = 2, "mixing"
    st = heads_state(h, w_o)
    most = max(HEAD_COUNTS)
    x, w_q, w_k, w_v = running_qkv()
    data = {"x": x.tolist(), "w_q": w_q.tolist(), "w_k": w_k.tolist()}
    data |= {"w_v": w_v.tolist(), "w_o": W_O}
    counts = option_list(HEAD_COUNTS, h)
    maps = option_list(W_O, w_o, words)
    controls = (
        '<div class="explorable-controls">'
        '<label class="explorable-field"><span>d<sub>model</sub> = 4、'
        f"{words['h']}</span><select data-h disabled>{counts}</select></label>"
        f'<label class="explorable-field"><span>{words["w_o"]}</span>'
        f"<select data-w-o disabled>{maps}</select></label></div>"
    )
    tokens = [sub("x", i + 1) for i in range(3)]
    dims = [str(j + 1) for j in range(4)]

    def head_of(j: int, heads: int) -> int:
        return j // (4 // heads)

    def q_cell(i, j, v, attrs):
        return (
            f'<td{attrs} data-head="{head_of(j, h)}" data-value="{value(v)}">'
            f"{fmt(v, 2)}</td>"
        )

    q = matrix("q", words["q"], st["q"], 2, tokens, dims, cell=q_cell)
    keys = [sub("k", j + 1) for j in range(3)]

    def per_head(key: str, word: str, values: list, cols: list) -> str:
        """One table per head, those past the shown ``h`` hidden."""
        return "".join(
            matrix(
                f"{key}{i}",
                message(word, i=str(i + 1)),
                values[i] if i < h else [],
                3,
                tokens,
                cols,
            ).replace("<table ", f"<table{'' if i < h else ' hidden'} ", 1)
            for i in range(most)
        )

    weights = per_head("weights", words["weights"], st["weights"], keys)
    terms = per_head("term", words["term"], st["terms"], dims)
    out = matrix("output", words["output"], st["output"], 3, tokens, dims)
    concat = matrix("concat", words["concat"], st["concat"], 3, tokens, dims)
    inner = (
        f'<div data-data="{esc(json.dumps(data))}" hidden></div>{controls}'
        f'<div class="explorable-tables">{q}{weights}</div>'
        f'<div class="explorable-tables">{concat}{terms}{out}</div>'
        f"{status(message(words['status'], h=str(h), d_k=str(4 // h)))}"
        f"{templates(words, 'status')}"
    )
    return frame("heads", words, inner)


RENDERERS = {
    "heads": render_heads,
    "online": render_online,
    "rope": render_rope,
    "softmax": render_softmax,
    "masks": render_masks,
    "example": render_example,
    "kv_cache": render_kv_cache,
}


# --- the hook ----------------------------------------------------------------


def on_files(files: Files, config) -> Files:
    for path in sorted(FOLDER.glob("*.js")):
        uri = f"assets/explorables/{path.name}"
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def render(name: str, language: str) -> str:
    if name not in RENDERERS:
        raise PluginError(f"no explorable named {name!r}: {sorted(RENDERERS)}")
    return RENDERERS[name](words_for(name, language))


def on_page_content(html_text: str, page, config, files) -> str:
    found = [m["name"] for m in PLACEHOLDER.finditer(html_text)]
    if not found:
        return html_text
    language = config.theme["language"]
    html_text = PLACEHOLDER.sub(lambda m: render(m["name"], language), html_text)
    css = (FOLDER / "explorables.css").read_text(encoding="utf-8")
    scripts = "".join(
        '<script type="module" src="'
        f'{get_relative_url(f"assets/explorables/{name}.js", page.url)}"></script>'
        for name in dict.fromkeys(found)
    )
    return f"<style>{css}</style>{html_text}{scripts}"
