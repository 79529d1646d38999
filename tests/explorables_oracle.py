"""What each explorable must show, computed by ``attention_docs``.

The explorables compute their numbers in JavaScript
(``docs_src/explorables/<name>.js``); the tests compare every number they
show with these, which come from the package, for the inputs the figure
starts from (``stages/explorables.py``'s data) or that a test sets. Numbers
are formatted here as a reader reads them, independently of the script.
"""

from __future__ import annotations

import math
import re

import numpy as np

from attention_book.stages.explorables import (
    ONLINE_V,
    ROPE_K,
    ROPE_MAX,
    ROPE_Q,
    W_O,
    heads_input,
    window_sink_qk,
    words_for,
)
from attention_docs import (
    RollingKVCache,
    apply_rope,
    attention_scores,
    attention_weights,
    blockwise_attention,
    causal_mask,
    kv_cache_bytes,
    multi_head_attention,
    project_qkv,
    rope_frequencies,
    running_example,
    scaled_dot_product_attention,
    sliding_window_mask,
    softmax,
)

MINUS = "\u2212"


#: Unicode's superscript digits and minus, by the character they raise.
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def fmt(x: float, digits: int, gap: float | None = None) -> str:
    """``x`` with ``digits`` decimals, a true minus sign, and no "−0"; from a
    million on, as the text "m × 10ⁿ"; a value that is not 0 but rounds to
    all zeros, as "m × 10⁻ⁿ" with one decimal; a value that is not ±1 but
    rounds to ±1, as the bound one last decimal beyond it, away from 1
    ("> 0.999", "< 1.001", "< −0.999"), core.js's rounding rule. ``gap`` is
    |x| − 1 when the caller knows it better than x does (a saturated
    softmax's largest weight, the float 1, is 1 − ε)."""
    fixed = f"{x:.{digits}f}" if math.isfinite(x) else ""
    vanishes = digits > 0 and x != 0 and fixed != "" and not fixed.strip("-0.")
    if math.isfinite(x) and (abs(x) >= 1e6 or vanishes):
        places = 1 if vanishes else digits
        mantissa, exponent = f"{x:.{places}e}".split("e")
        power = str(int(exponent)).translate(SUPERSCRIPTS)
        return f"{fmt(float(mantissa), places)} × 10{power}"
    gap = abs(x) - 1 if gap is None else gap
    if digits > 0 and gap != 0 and fixed.lstrip("-") == "1." + "0" * digits:
        # not ±1: the digit grid's next value beyond x, and which side x is on
        beyond = f"{1 + math.copysign(10.0**-digits, gap):.{digits}f}"
        sign = MINUS if x < 0 else ""
        return f"{'>' if (x > 0) == (gap < 0) else '<'}\u00a0{sign}{beyond}"
    text = f"{x:.{digits}f}"
    if text.startswith("-") and not text.strip("-0."):
        text = text[1:]
    return text.replace("-", MINUS)


def grouped(n: int) -> str:
    """An exact integer with a comma every three digits."""
    return f"{n:,}"


def weight(x: float, sole: bool = False) -> str:
    """An attention weight (or a mean of weights) as the attention-map
    explorable writes it: 2 decimals; below 0.005 (0.00 at 2 decimals; a
    softmax weight is never 0, the build carries 4 decimals) "< 0.01"; one
    that 2 decimals would write 1.00, "> 0.99", unless ``sole``, the weight
    of its row's only key (the first query's), which is 1."""
    if x < 0.005:
        return "< 0.01"
    return fmt(x, 2, 0.0 if sole else (x - 1) or -5e-324)


def device_bytes(gb: int) -> int:
    """A GPU's memory as its vendor publishes it, ``gb`` GB, in bytes: the
    book's GB is 10^9 bytes (its GiB, 2^30)."""
    return gb * 10**9


def in_units(n: int) -> str:
    """Bytes in the largest binary unit (up to EiB, the chart's units) that is
    at most ``n``, 2 decimals; from a million EiB on, as "m × 10e EiB" (the
    text a reader sees of m × 10<sup>e</sup>)."""
    units = (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30))
    for unit, size in (*units, ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            x = n / size
            if x < 1e6:
                return f"{fmt(x, 2)} {unit}"
            mantissa, exponent = f"{x:.2e}".split("e")
            return f"{fmt(float(mantissa), 2)} × 10{fmt(int(exponent), 0)} {unit}"
    return f"{n} B"


def softmax_state(x: list[float], t: float) -> dict:
    s = softmax(t * np.asarray(x, dtype=np.float64))
    # 1 - s_j as the sum of the other weights: no cancellation when s_j ~ 1.
    others = np.array([np.delete(s, j).sum() for j in range(s.size)])
    # ds_j/du_l = s_j (delta_jl - s_l), u = t x
    jacobian = np.diag(s * others) - (np.outer(s, s) - np.diag(s * s))
    return {
        "tx": (t * np.asarray(x)).tolist(),
        "s": s.tolist(),
        "largest": float(s.max()),
        "rest": float(others[s.argmax()]),
        "jacobian": jacobian.tolist(),
        "jmax": float(np.abs(jacobian).max()),
    }


def masks_state(n_q: int, n_k: int, mask) -> dict:
    """The last n_q queries of the running example against its first n_k keys."""
    x, w_q, w_k, w_v = running_example()
    n = x.shape[0]
    q, k, v = (x @ w_q)[n - n_q :], (x @ w_k)[:n_k], (x @ w_v)[:n_k]
    mask = np.asarray(mask, dtype=bool)
    scores = np.where(mask, q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
    z, a = scaled_dot_product_attention(q, k, v, mask=mask, return_weights=True)
    return {"scores": scores.tolist(), "weights": a.tolist(), "output": z.tolist()}


def example_state(x) -> dict:
    _, w_q, w_k, w_v = running_example()
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


def kv_state(kind: str, sizes: dict, bytes_per_value: int, window: int = 0) -> dict:
    """Heads of keys and values: h (MHA), g (GQA), 1 (MQA); bytes by the package.

    MLA caches a latent of d_c and a RoPE key of d_h^R numbers per token and
    layer instead (kv_cache_bytes' latent_dim and rope_dim); no h_kv. A
    window W > 0 caches min(n, W) tokens a layer (0 on the page: no window).
    """
    if kind == "mla":
        latent = {"latent_dim": sizes["latent"], "rope_dim": sizes["rope"]}
        args = (sizes["layers"], sizes["heads"], sizes["d_k"])
        total = kv_cache_bytes(
            *args,
            sizes["tokens"],
            bytes_per_value=bytes_per_value,
            batch=sizes["batch"],
            window=window or None,
            **latent,
        )
        per_token = kv_cache_bytes(*args, 1, bytes_per_value=bytes_per_value, **latent)
        return {"h_kv": None, "total": total, "per_token": per_token}
    h_kv = {"mha": sizes["heads"], "gqa": sizes["groups"], "mqa": 1}[kind]
    total = kv_cache_bytes(
        sizes["layers"],
        h_kv,
        sizes["d_k"],
        sizes["tokens"],
        bytes_per_value=bytes_per_value,
        batch=sizes["batch"],
        window=window or None,  # 0 on the page: no window
    )
    per_token = kv_cache_bytes(
        sizes["layers"], h_kv, sizes["d_k"], 1, bytes_per_value=bytes_per_value
    )
    return {"h_kv": h_kv, "total": total, "per_token": per_token}


def kv_fills(
    sizes: dict, memory: int, kind: str = "mha", bytes_per_value: int = 2
) -> int:
    """The least n whose cache (kv_cache_bytes) is larger than ``memory`` bytes."""
    per_token = kv_state(kind, sizes | {"tokens": 1}, bytes_per_value)["total"]
    return memory // per_token + 1


def window_state(n: int, window: int, n_sink: int) -> dict:
    """The mask and its cells' kinds, the rolling cache after n tokens (the
    position each of its rows holds, -1 for a row not written yet), and the
    cache's length after t = 0, 1, ..., n tokens."""
    mask = sliding_window_mask(n, window=window, n_sink=n_sink)
    band = sliding_window_mask(n, window=window)
    later = ~causal_mask(n, n)
    kinds = np.where(
        band, "window", np.where(mask, "sink", np.where(later, "future", "outside"))
    )
    cache = RollingKVCache(1, window=window, n_sink=n_sink)
    lengths = [len(cache)]
    for p in range(n):
        cache.append([[float(p)]], [[float(p)]])
        lengths.append(len(cache))
    kept = cache.positions.tolist()
    held = np.full(cache.capacity, -1)
    held[cache.slots] = cache.positions
    return {
        "mask": mask.astype(int),
        "kinds": kinds,
        "kept": kept,
        "slots": held[None, :],
        "lengths": lengths,
        "rows": len(cache),
        "capacity": cache.capacity,
        "full": n,
    }


def window_weights(n: int, window: int, n_sink: int) -> dict:
    """The newest query's weights over the n keys of the page's artificial
    attention (key 0 the sink) without a window (causal), under the mask with
    n_sink sinks, and under the window alone; for the two masks, the weight
    a_drop the full attention puts on the keys each drops and 1 / (1 - a_drop),
    the factor the weights left are multiplied by (the keys kept keep their
    scores)."""
    q, k = window_sink_qk()
    q, k = q[:n], k[:n]

    def newest(mask: np.ndarray) -> np.ndarray:
        return attention_weights(q, k, mask=mask)[-1]

    full = newest(causal_mask(n, n))
    masks = [sliding_window_mask(n, window=window, n_sink=s) for s in (n_sink, 0)]
    with_sinks, without = (newest(m) for m in masks)
    drops, ratios = [], []
    for mask, weights in zip(masks, (with_sinks, without), strict=True):
        band = mask[-1]
        drops.append(float(full[~band].sum()))
        ratios.append(1 / float(full[band].sum()))
        # the weights kept, each the full weight times the same 1 / (1 - a_drop)
        np.testing.assert_allclose(weights[band], ratios[-1] * full[band], rtol=1e-12)
    return {
        "weights": np.array([full, with_sinks, without]),
        "drop_sinks": drops[0],
        "ratio_sinks": ratios[0],
        "drop_window": drops[1],
        "ratio_window": ratios[1],
        "kept": [m[-1] for m in masks],
    }


def rope_state(m: float, n: float, d: int = 4) -> dict:
    """The page's q and k (d = 4; repeated for a larger d) at positions m and n."""
    reps = d // len(ROPE_Q)
    q0, k0 = np.tile(ROPE_Q, reps)[None, :], np.tile(ROPE_K, reps)[None, :]
    theta = rope_frequencies(d)  # theta_i = 10000^(-2i/d)
    q = apply_rope(q0, positions=[m])  # q R_m
    k = apply_rope(k0, positions=[n])  # k R_r
    pairs = (q * k)[0].reshape(d // 2, 2).sum(axis=1)  # each pair's term
    return {
        "q": q[0].tolist(),
        "k": k[0].tolist(),
        "score": float((q @ k.T).item()),
        "pairs": np.column_stack([theta, (m - n) * theta, pairs]).tolist(),
    }


def rope_curve(d: int, offsets) -> list[float]:
    """The score q R_t k^T at each offset t = m - r (the key at 0)."""
    reps = d // len(ROPE_Q)
    q0, k0 = np.tile(ROPE_Q, reps)[None, :], np.tile(ROPE_K, reps)[None, :]
    q = apply_rope(np.repeat(q0, len(offsets), axis=0), positions=list(offsets))
    return (q @ k0.T)[:, 0].tolist()


def rope_chart_agrees(chart, d: int, shift: int) -> None:
    """The score chart (a ``tests.explorables_charts.Chart``) as drawn: the
    score at every whole offset the sliders reach as dots on stems rising
    from the drawn line y = 0, never joined; behind them, faint, the only
    line: the score at real offsets a quarter apart; the cursor at m - r."""
    top = ROPE_MAX
    offsets = list(range(-top, top + 1))
    reals = [-top + j / 4 for j in range(8 * top + 1)]
    exact = rope_curve(d, reals)
    span = max(exact) - min(exact)
    lines = chart.lines()
    assert list(lines) == [1], lines
    assert 'class="explorable-line explorable-line-1 explorable-line-faint"' in (
        chart.svg
    )
    (between,) = lines[1]
    assert len(between) == len(reals)
    for (t, value), t_exact, v_exact in zip(between, reals, exact, strict=True):
        # 0.01 of a drawing unit: 0.0023 of an offset
        assert abs(t - t_exact) < 5e-3 and abs(value - v_exact) < 1e-3 * span, t
    zero = re.search(
        r'class="explorable-zero" data-zero="0"[^>]*y1="([-\d.]+)"', chart.svg
    )
    assert zero and abs(chart.value("y", float(zero[1]))) < 1e-3 * span, zero
    stems = re.search(r'data-stems="0" d="([^"]*)"', chart.svg)[1].split("M")[1:]
    assert len(stems) == len(offsets)
    for stem in stems:  # "x y0Vy1": each from y = 0
        assert abs(chart.value("y", float(stem.split("V")[0].split()[1]))) < 1e-3 * span
    points = chart.dots()[0]
    expected = rope_curve(d, offsets)
    assert len(points) == len(offsets)
    for (t, value), t_expected, v_expected in zip(
        points, offsets, expected, strict=True
    ):
        assert abs(t - t_expected) < 5e-3, (t, t_expected)
        assert abs(value - v_expected) < 1e-3 * span, (t, value, v_expected)
    assert abs(chart.cursor() - shift) < 5e-3, (chart.cursor(), shift)


def online_state(s: list[float], block: int) -> dict:
    """The running maximum m, sum l and output o after each block of keys,
    the book's formulas, and the plain and blockwise results of the package."""
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


#: How far before a block's end (in keys) the online chart draws l's drop.
#: Where the online chart draws l's drop: at the block's own t (issue 40:
#: it was drawn a quarter of a key before, at a t of no meaning).
ONLINE_DROP = 0


def online_paths(s: list[float], block: int) -> tuple[list, list]:
    """The online chart's m and l as steps against the keys processed t: m
    holds until a block ends; where m rises to m', l drops to e^(m - m') l
    and then the block's terms are added, both at the block's end t; l = 0
    at t = 0."""
    steps = online_state(s, block)["steps"]
    ms, ls = [], [(0.0, 0.0)]
    prev = None
    for b, step in enumerate(steps):
        t = float(min((b + 1) * block, len(s)))
        m, ell = step[0], step[1]
        if prev is not None:
            ms.append((t, prev[0]))
        ms.append((t, m))
        before = 0.0 if prev is None else prev[1]
        if prev is not None and m > prev[0]:
            shrunk = float(np.exp(prev[0] - m)) * before  # e^(m - m') l
            ls += [(t - ONLINE_DROP, before), (t - ONLINE_DROP, shrunk)]
        else:
            ls.append((t, before))
        ls.append((t, ell))
        prev = (m, ell)
    return ms, ls


def online_panels(s: list[float], block: int) -> dict:
    """What the online figure's three panels draw: the scores s_j as dots at
    t = j and m as steps (``scores``); l as steps with its drops and each
    drop's factor e^(m - m') at t - ONLINE_DROP (``sum``, ``notes``); o / l
    of each column as steps (``output``), settling on softmax(s) V (``rules``)."""
    state = online_state(s, block)
    ms, ls = online_paths(s, block)
    zs: list[list] = [[] for _ in state["plain"]]
    notes, prev = [], None
    for b, step in enumerate(state["steps"]):
        t = float(min((b + 1) * block, len(s)))
        z = step[4:]
        for c, zc in enumerate(z):
            if prev is not None:
                zs[c].append((t, prev[2][c]))
            zs[c].append((t, zc))
        if prev is not None and step[0] > prev[0]:
            notes.append((t - ONLINE_DROP, float(np.exp(prev[0] - step[0]))))
        prev = (step[0], step[1], z)
    return {
        "dots": [(float(j + 1), float(sj)) for j, sj in enumerate(s)],
        "m": ms,
        "l": ls,
        "notes": notes,
        "output": zs,
        "rules": state["plain"],
    }


def online_panels_agree(
    svgs: dict[str, str],
    s: list[float],
    block: int,
    keys,
    *,
    live: bool = True,
) -> None:
    """The online figure's panels (their SVG by key) draw ``online_panels``,
    each with its cursor at ``keys`` (none before the first block). In the
    browser (``live``) l's and o/l's panels are veiled beyond the keys
    processed (from t = 0 before the first block, not at all after the
    last); the page as built is not veiled."""
    from tests.explorables_charts import Chart

    expected = online_panels(s, block)
    state_steps = online_state(s, block)["steps"]

    def same(points, values, where) -> None:
        assert len(points) == len(values), (where, points, values)
        for (t, v), (te, ve) in zip(points, values, strict=True):
            assert abs(t - te) < 1e-3, (where, t, te)
            assert abs(v - ve) < 1e-3 * max(1, abs(ve)), (where, t, v, ve)

    scores, total, output = (Chart(svgs[k]) for k in ("scores", "sum", "output"))
    same(scores.dots()[0], expected["dots"], "dots")
    (m,) = scores.lines()[1]
    same(m, expected["m"], "m")
    (ls,) = total.lines()[0]
    same(ls, expected["l"], "l")
    notes = total.notes()
    factors = expected["notes"]
    assert [round(x, 6) for x, _ in notes] == [round(x, 6) for x, _ in factors]
    # each drop's factor; the first named too ("縮小 ×0.135", r45); a factor
    # float64 rounds to 0 said to be below 10^-308, never "×0.000" (r47)
    texts = [text for _, text in notes]
    for k, (text, (_, f)) in enumerate(zip(texts, factors, strict=True)):
        name, _, shown = text.partition("×")
        assert name.endswith(" ") if k == 0 else name == "", texts
        if f == 0:  # "10⁻³⁰⁸ 未満\n（アンダーフロー）", "小於 10⁻³⁰⁸\n（下溢）"
            assert "10⁻³⁰⁸" in shown and "\n" in shown and "0.000" not in shown, text
        else:
            assert shown == fmt(f, 3), texts
    for c, values in enumerate(expected["output"]):
        (points,) = output.lines()[c]
        same(points, values, f"o{c + 1}/l")
    rules = sorted(output.rules())  # drawn from the top: sorted by value
    assert len(rules) == len(expected["rules"])
    for (at, drawn), z in zip(rules, sorted(expected["rules"]), strict=True):
        assert abs(at - z) < 1e-12 and abs(drawn - z) < 1e-3, (at, drawn, z)
    # before the first block, in the browser: the cursor at 0 and, on the l
    # panel, what to press (r45); the page as built has neither
    at = keys if keys is not None else (0 if live else None)
    for chart in (scores, total, output):
        cursor = chart.cursor()
        assert (cursor is None) if at is None else abs(cursor - at) < 1e-3, cursor
    hint = words_for("online", "ja")["chart_start"]
    hints = [re.findall(r"<text[^>]*data-hint[^>]*>([^<]+)<", svgs[k]) for k in svgs]
    assert hints == [[], [hint] if live and keys is None else [], []], hints
    # every other block shaded behind the bars, from half a key before its
    # first key to half a key after its last (within the axis)
    ends = [min((b + 1) * block, len(s)) for b in range(len(state_steps))]
    bands = [
        (ends[b - 1] + 0.5, min(ends[b] + 0.5, len(s))) for b in range(1, len(ends), 2)
    ]
    drawn = re.findall(r'data-band="([-\d.e]+) ([-\d.e]+)"', svgs["scores"])
    assert [(float(a), float(b)) for a, b in drawn] == bands, (drawn, bands)
    veil = (keys or 0) if live and (keys or 0) < len(s) else None
    assert scores.later() is None
    for chart in (total, output):
        later = chart.later()
        assert (later is None) if veil is None else abs(later - veil) < 1e-3, later


def heads_state(
    h: int, w_o_name: str, off: tuple[int, ...] = (), inputs: str = "preset"
) -> dict:
    """The heads figure's numbers for its input ``inputs`` (``"preset"``,
    the heads that look at different tokens, or ``"example"``, the running
    example); ``off``: the heads whose block of W^O (rows g d_k ...
    (g + 1) d_k - 1) the reader zeroed. ``single``: the weights and the
    scores of one head over all the columns (h = 1), drawn beside the heads."""
    x, w_q, w_k, w_v = (
        np.asarray(heads_input(inputs)[key], dtype=np.float64)
        for key in ("x", "w_q", "w_k", "w_v")
    )
    w_o = np.asarray(W_O[w_o_name], dtype=np.float64).copy()
    for g in off:
        w_o[g * (4 // h) : (g + 1) * (4 // h), :] = 0.0
    out, weights = multi_head_attention(x, x, x, w_q, w_k, w_v, w_o, h)
    concat, _ = multi_head_attention(x, x, x, w_q, w_k, w_v, np.eye(4), h)
    _, single = multi_head_attention(x, x, x, w_q, w_k, w_v, np.eye(4), 1)
    d_v = 4 // h
    blocks = [slice(i * d_v, (i + 1) * d_v) for i in range(h)]
    terms = [concat[:, b] @ w_o[b, :] for b in blocks]  # head_i W^O_i: (n, d_model)
    q, k = x @ w_q, x @ w_k
    # Q_i K_i^T / sqrt(d_k), head by head
    scores = [q[:, b] @ k[:, b].T / np.sqrt(d_v) for b in blocks]
    return {
        "q": q.tolist(),
        "k": k.tolist(),
        "v": (x @ w_v).tolist(),
        "scores": [a.tolist() for a in scores],
        "weights": weights.tolist(),
        "single": single[0].tolist(),
        "single_scores": (q @ k.T / 2.0).tolist(),  # Q K^T / sqrt(d_model)
        "concat": concat.tolist(),
        "terms": [t.tolist() for t in terms],
        "output": out.tolist(),
        "w_o": w_o.tolist(),
    }
