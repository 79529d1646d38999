"""Tests of attention_docs.latent (multi-head latent attention) and of the
latent cache sizes of kv_cache_bytes.

The reference is DeepSeek-V2's Equations 12-19 (arXiv:2405.04434, Section
2.1.3) written out token by token and head by head below; the explicit and
the absorbed computations must both equal it. The sizes of the MLA cache
are kept here, beside the attention they count, rather than among the
tests of the KV cache.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_docs import (
    absorb_latent_params,
    apply_rope,
    causal_mask,
    kv_cache_bytes,
    latent_attention,
    latent_attention_params,
    scaled_dot_product_attention,
)

PROPERTY = settings(deadline=None, max_examples=60, database=None)


def literal(x, p, n_heads, positions):
    """u_t = sum_i (sum_{j<=t} softmax_j(q_ti . k_ji / sqrt(d_h + d_r)) v_ji) W^O_i,
    one token, one head, one key at a time."""
    n = x.shape[0]
    d_r = p["w_kr"].shape[1]
    d_h = p["w_uq"].shape[1] // n_heads
    out = np.zeros((n, p["w_o"].shape[1]))
    for t in range(n):
        c_q = x[t] @ p["w_dq"]  # c^Q_t, Eq. 12
        for i in range(n_heads):
            heads = slice(i * d_h, (i + 1) * d_h)
            rope = slice(i * d_r, (i + 1) * d_r)
            q_c = c_q @ p["w_uq"][:, heads]  # Eq. 13
            q_r = apply_rope((c_q @ p["w_qr"][:, rope])[None], [positions[t]])[0]
            q = np.concatenate([q_c, q_r])  # Eq. 16
            scores, values = [], []
            for j in range(t + 1):
                c = x[j] @ p["w_dkv"]  # c^KV_j, Eq. 9
                k_c = c @ p["w_uk"][:, heads]  # Eq. 10
                k_r = apply_rope((x[j] @ p["w_kr"])[None], [positions[j]])[0]
                k = np.concatenate([k_c, k_r])  # Eq. 17
                scores.append(q @ k / math.sqrt(d_h + d_r))
                values.append(c @ p["w_uv"][:, heads])  # Eq. 11
            e = np.exp(np.array(scores) - max(scores))
            o = (e / e.sum()) @ np.array(values)  # Eq. 18
            out[t] += o @ p["w_o"][heads, :]  # Eq. 19, head i's rows of W^O
    return out


def test_by_hand() -> None:
    # d_model 2, one head, d_h = d_c = d_cq = 1, d_r = 2 with zero RoPE weights,
    # so the scale is 1/sqrt(1 + 2) and only the latent part scores.
    p = {
        "w_dq": np.array([[1.0], [1.0]]),  # c^Q_t = x_t1 + x_t2 = 1
        "w_uq": np.array([[1.0]]),  # q^C_t = 1
        "w_qr": np.zeros((1, 2)),
        "w_dkv": np.array([[1.0], [0.0]]),  # c_1 = 1, c_2 = 0
        "w_uk": np.array([[math.sqrt(3) * math.log(3)]]),  # k^C_1 = sqrt3 ln3
        "w_uv": np.array([[4.0]]),  # v_1 = 4, v_2 = 0
        "w_kr": np.zeros((2, 2)),
        "w_o": np.array([[1.0, 2.0]]),
    }
    x = np.eye(2)
    # token 1 sees itself: o_1 = v_1 = 4; token 2: scores (ln 3, 0), weights
    # (3/4, 1/4), o_2 = 3/4 * 4 + 1/4 * 0 = 3; u_t = o_t (1, 2)
    expected = [[4.0, 8.0], [3.0, 6.0]]
    for absorbed in (False, True):
        out = latent_attention(x, p, 1, absorbed=absorbed)
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_absorbed_weights_by_hand() -> None:
    p = latent_attention_params(2, 2, 1, 1, 1, 2, rng=np.random.default_rng(0))
    p["w_uq"] = np.array([[2.0, 3.0]])  # head 1: 2, head 2: 3
    p["w_uk"] = np.array([[5.0, 7.0]])
    p["w_uv"] = np.array([[1.0, -1.0]])
    p["w_o"] = np.array([[1.0, 0.0], [0.0, 1.0]])
    ab = absorb_latent_params(p, 2)
    assert ab["w_uqk"].tolist() == [[[10.0]], [[21.0]]]  # 2 * 5, 3 * 7
    assert ab["w_uvo"].tolist() == [[[1.0, 0.0]], [[0.0, -1.0]]]


@st.composite
def layers(draw):
    n_heads = draw(st.integers(1, 3))
    d_h, d_c, d_cq = (draw(st.integers(1, 4)) for _ in range(3))
    d_r = 2 * draw(st.integers(0, 2))  # 0: no RoPE part
    d_model = draw(st.integers(1, 5))
    n = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    p = latent_attention_params(d_model, n_heads, d_h, d_c, d_cq, d_r, rng=rng)
    x = rng.standard_normal((n, d_model))
    start = draw(st.integers(-50, 50))
    return x, p, n_heads, np.arange(start, start + n, dtype=float)


@PROPERTY
@given(layers())
def test_explicit_and_absorbed_equal_the_formula(layer) -> None:
    x, p, n_heads, positions = layer
    expected = literal(x, p, n_heads, positions)
    for absorbed in (False, True):
        out = latent_attention(x, p, n_heads, positions=positions, absorbed=absorbed)
        np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12)


@PROPERTY
@given(layers(), st.integers(-1000, 1000))
def test_only_relative_positions_matter(layer, shift) -> None:
    x, p, n_heads, positions = layer
    out = latent_attention(x, p, n_heads, positions=positions)
    moved = latent_attention(x, p, n_heads, positions=positions + shift, absorbed=True)
    np.testing.assert_allclose(moved, out, rtol=1e-7, atol=1e-10)


def test_without_rope_it_is_multi_head_attention_of_the_latent_keys() -> None:
    # d_r = 0: q_ti = c^Q_t W^UQ_i, k_ji = c_j W^UK_i, v_ji = c_j W^UV_i, scale
    # 1/sqrt(d_h), no position anywhere (the equations of sections 22.1-22.2)
    rng = np.random.default_rng(5)
    n_heads, d_h, n = 3, 2, 7
    p = latent_attention_params(5, n_heads, d_h, 4, 3, 0, rng=rng)
    assert p["w_qr"].shape == (3, 0) and p["w_kr"].shape == (5, 0)
    x = rng.standard_normal((n, 5))
    c_q, c = x @ p["w_dq"], x @ p["w_dkv"]

    def heads(a):  # (n, n_heads * d_h) -> (n_heads, n, d_h)
        return a.reshape(n, n_heads, d_h).transpose(1, 0, 2)

    o = scaled_dot_product_attention(
        heads(c_q @ p["w_uq"]),
        heads(c @ p["w_uk"]),
        heads(c @ p["w_uv"]),
        mask=causal_mask(n),
    )  # (n_heads, n, d_h), scale 1/sqrt(d_h)
    expected = o.transpose(1, 0, 2).reshape(n, n_heads * d_h) @ p["w_o"]
    for absorbed in (False, True):
        out = latent_attention(x, p, n_heads, absorbed=absorbed)
        np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
        scattered = latent_attention(
            x, p, n_heads, positions=rng.permutation(n) * 10.0, absorbed=absorbed
        )
        np.testing.assert_allclose(scattered, expected, rtol=1e-10, atol=1e-12)


def test_causal_and_batched() -> None:
    rng = np.random.default_rng(1)
    p = latent_attention_params(6, 3, 2, 4, 3, 2, rng=rng)
    x = rng.standard_normal((2, 5, 6))
    both = latent_attention(x, p, 3, absorbed=True)
    for b in range(2):
        np.testing.assert_allclose(both[b], latent_attention(x[b], p, 3), rtol=1e-10)
    changed = x.copy()
    changed[:, 3:] += 1.0  # later tokens do not reach earlier rows
    np.testing.assert_allclose(latent_attention(changed, p, 3)[:, :3], both[:, :3])


def test_rope_on_the_up_projected_key_cannot_be_absorbed() -> None:
    """RoPE applied to k^C = c W^UK puts R_j between W^UQ and (W^UK)^T.

    The scores q^C R_t (c_j W^UK R_j)^T = c^Q W^UQ R_(t-j) (W^UK)^T c_j^T need
    one matrix per offset t - j; the single absorbed matrix W^UQ (W^UK)^T
    gives them only where no rotation happens (all positions 0).
    """
    rng = np.random.default_rng(2)
    d_cq, d_c, d_h, n = 3, 2, 4, 5
    c_q = rng.standard_normal((n, d_cq))
    c = rng.standard_normal((n, d_c))
    w_uq = rng.standard_normal((d_cq, d_h))
    w_uk = rng.standard_normal((d_c, d_h))
    w_uqk = w_uq @ w_uk.T  # the one absorbed matrix

    def explicit(positions):  # RoPE(q^C) RoPE(k^C)^T
        return apply_rope(c_q @ w_uq, positions) @ apply_rope(c @ w_uk, positions).T

    absorbed = (c_q @ w_uqk) @ c.T  # no room for a rotation
    at = np.arange(n, dtype=float)
    assert not np.allclose(explicit(at), absorbed, atol=1e-3)
    np.testing.assert_allclose(explicit(np.zeros(n)), absorbed, rtol=1e-12)
    # with the offset's own matrix W^UQ R_(t-j) (W^UK)^T, every score is found
    r = {m: apply_rope(np.eye(d_h), [float(m)]) for m in range(-n, n)}
    by_offset = np.array(
        [[c_q[t] @ w_uq @ r[t - j] @ w_uk.T @ c[j] for j in range(n)] for t in range(n)]
    )
    np.testing.assert_allclose(explicit(at), by_offset, rtol=1e-10, atol=1e-12)


def test_inputs_are_not_changed() -> None:
    rng = np.random.default_rng(3)
    p = latent_attention_params(4, 2, 2, 3, 3, 2, rng=rng)
    copies = {name: w.copy() for name, w in p.items()}
    x = rng.standard_normal((3, 4))
    x_copy = x.copy()
    latent_attention(x, p, 2, absorbed=True)
    latent_attention(x, p, 2)
    assert np.array_equal(x, x_copy)
    assert all(np.array_equal(p[name], copies[name]) for name in p)


def test_errors_name_the_arguments() -> None:
    rng = np.random.default_rng(4)
    p = latent_attention_params(4, 2, 2, 3, 3, 2, rng=rng)
    x = rng.standard_normal((3, 4))
    with pytest.raises(ValueError, match=r"`params\['w_uk'\]` must have shape"):
        latent_attention(x, {**p, "w_uk": np.ones((2, 4))}, 2)
    with pytest.raises(ValueError, match=r"`params\['w_dq'\]` must have shape"):
        latent_attention(np.ones((3, 5)), p, 2)
    with pytest.raises(ValueError, match="`params` lacks 'w_kr'"):
        latent_attention(x, {k: v for k, v in p.items() if k != "w_kr"}, 2)
    with pytest.raises(ValueError, match="not a multiple of n_heads=3"):
        latent_attention(x, p, 3)
    with pytest.raises(ValueError, match="`n_heads` must be a positive integer"):
        latent_attention(x, p, 0)
    with pytest.raises(ValueError, match="RoPE needs an even d_r"):
        odd = {**p, "w_kr": np.ones((4, 1)), "w_qr": np.ones((3, 2))}
        latent_attention(x, odd, 2)
    with pytest.raises(ValueError, match="`x` has no rows"):
        latent_attention(np.ones((0, 4)), p, 2)
    with pytest.raises(ValueError, match=r"`params\['w_uv'\]` contains NaN"):
        latent_attention(x, {**p, "w_uv": np.full((3, 4), np.nan)}, 2)
    with pytest.raises(ValueError, match="`x` contains NaN"):
        latent_attention(np.full((3, 4), np.inf), p, 2)
    with pytest.raises(ValueError, match="`x` must have shape"):
        latent_attention(np.ones(4), p, 2)
    with pytest.raises(ValueError, match="`positions`"):
        latent_attention(x, p, 2, positions=[0.0, 1.0])
    with pytest.raises(TypeError, match="`params` must be a mapping"):
        latent_attention(x, list(p.values()), 2)
    with pytest.raises(ValueError, match="overflow"):
        latent_attention(np.full((3, 4), 1e300), p, 2)
    with pytest.raises(ValueError, match="`d_r` must be even"):
        latent_attention_params(4, 2, 2, 3, 3, 3, rng=rng)
    for bad in (-2, False, 0.0, None):
        with pytest.raises(ValueError, match=r"`d_r` must be an even integer >= 0"):
            latent_attention_params(4, 2, 2, 3, 3, bad, rng=rng)


def test_kv_cache_bytes_of_latent_attention_by_hand() -> None:
    # DeepSeek-V2 (arXiv:2405.04434, Section 3.1.2): 60 layers, d_c = 512,
    # d_h^R = 64; 16-bit numbers: 60 * (512 + 64) * 2 = 69120 bytes per token
    assert kv_cache_bytes(60, 128, 128, 1, latent_dim=512, rope_dim=64) == 69120
    # DeepSeek-V3 (arXiv:2412.19437, Section 4.2): 61 layers: 70272 bytes
    assert kv_cache_bytes(61, 128, 128, 1, latent_dim=512, rope_dim=64) == 70272
    # the same heads cached as MHA: 2 * 60 * 128 * 128 * 2 = 3932160 bytes
    assert kv_cache_bytes(60, 128, 128, 1) == 3932160
    # Table 1 of the paper: (d_c + d_h^R) l = 9/2 d_h l elements
    assert (
        kv_cache_bytes(1, 1, 128, 1, bytes_per_value=1, latent_dim=512, rope_dim=64)
        == 9 * 128 // 2
    )
    assert kv_cache_bytes(2, 3, 4, 5, bytes_per_value=1, batch=2, latent_dim=7) == 140


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "4"])
def test_kv_cache_bytes_latent_errors(bad) -> None:
    with pytest.raises(ValueError, match="`latent_dim` must be a positive integer"):
        kv_cache_bytes(1, 1, 1, 1, latent_dim=bad)
    if bad != 0:
        with pytest.raises(ValueError, match="`rope_dim` must be a positive integer"):
            kv_cache_bytes(1, 1, 1, 1, latent_dim=4, rope_dim=bad)
    with pytest.raises(ValueError, match="`rope_dim` is only used with `latent_dim`"):
        kv_cache_bytes(1, 1, 1, 1, rope_dim=2)


@PROPERTY
@given(
    st.integers(1, 200),
    st.integers(1, 2048),
    st.integers(0, 256),
    st.integers(1, 10**6),
    st.sampled_from([1, 2, 4, 8]),
    st.integers(1, 64),
)
def test_kv_cache_bytes_latent_is_the_product(layers, d_c, d_r, n, s, batch) -> None:
    got = kv_cache_bytes(
        layers, 7, 3, n, bytes_per_value=s, batch=batch, latent_dim=d_c, rope_dim=d_r
    )
    assert got == layers * (d_c + d_r) * n * s * batch


def test_absorbed_path_is_multi_query_attention_in_torch() -> None:
    """The absorbed path is MQA with keys [c; k^R] and values c: torch's
    scaled_dot_product_attention with the same queries, keys and values and
    a causal mask gives the heads, and sum_i o_i W^UV_i W^O_i the output."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    n_heads, d_h, d_c, d_r, n = 3, 4, 5, 2, 6
    p = latent_attention_params(8, n_heads, d_h, d_c, 3, d_r, rng=rng)
    x = rng.standard_normal((n, 8))
    ab = absorb_latent_params(p, n_heads)
    c_q, c = x @ p["w_dq"], x @ p["w_dkv"]
    q_r = apply_rope((c_q @ p["w_qr"]).reshape(n, n_heads, d_r).transpose(1, 0, 2))
    q = np.concatenate([c_q @ ab["w_uqk"], q_r], axis=-1)  # (n_heads, n, d_c + d_r)
    k = np.concatenate([c, apply_rope(x @ p["w_kr"])], axis=-1)[None]  # (1, n, .)
    heads = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q),
        torch.tensor(k).expand(n_heads, n, d_c + d_r),
        torch.tensor(c[None]).expand(n_heads, n, d_c),
        attn_mask=torch.tensor(np.tril(np.ones((n, n), bool))),
        scale=1 / math.sqrt(d_h + d_r),
    ).numpy()
    out = np.einsum("inc,icm->nm", heads, ab["w_uvo"])
    np.testing.assert_allclose(latent_attention(x, p, n_heads), out, rtol=1e-10)
