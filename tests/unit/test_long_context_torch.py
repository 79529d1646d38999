"""ALiBi and rescaled RoPE against PyTorch.

``torch.nn.functional.scaled_dot_product_attention`` adds a float
``attn_mask`` to the scaled scores, so ALiBi's bias plus -inf where the causal
mask forbids is one float mask; the package computes the same attention with
the bias added to :func:`attention_scores` and :func:`masked_softmax` with the
boolean causal mask.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_docs.attention import attention_scores
from attention_docs.masks import causal_mask
from attention_docs.positional import alibi_bias, apply_rope, rope_frequencies
from attention_docs.softmax import masked_softmax

#: torch and torch.nn.functional, set by the fixture torch_module
#: (tests/unit/conftest.py) when a test of this module runs.
torch = F = None
pytestmark = pytest.mark.usefixtures("torch_module")


@pytest.mark.parametrize(("n_q", "n_k"), [(6, 6), (2, 7), (1, 5)])
@pytest.mark.parametrize("heads", [4, 6])
def test_alibi_attention_equals_sdpa_with_float_mask(n_q, n_k, heads) -> None:
    rng = np.random.default_rng(n_q * 10 + n_k)
    q = rng.standard_normal((2, heads, n_q, 8))
    k, v = rng.standard_normal((2, 2, heads, n_k, 8))
    bias = alibi_bias(n_q, n_k, n_heads=heads)  # (H, n_q, n_k)
    mask = causal_mask(n_q, n_k)  # bottom-right
    weights = masked_softmax(attention_scores(q, k) + bias, mask)
    ours = weights @ v
    float_mask = torch.tensor(bias + np.where(mask, 0.0, -np.inf))
    theirs = F.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), attn_mask=float_mask
    )
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("scaling", ["linear", "ntk", "yarn"])
def test_rescaled_rope_scores_equal_torch_rotation(scaling) -> None:
    rng = np.random.default_rng(1)
    d, n = 16, 12
    x = rng.standard_normal((n, d))
    positions = np.arange(n) * 37.0
    theta = rope_frequencies(
        d, scaling=scaling, factor=4, original_length=64 if scaling == "yarn" else None
    )
    ours = apply_rope(x, positions, theta=theta)
    # the same rotation as complex numbers (x_2i + i x_2i+1) e^(i m theta_i)
    z = torch.view_as_complex(torch.tensor(x).reshape(n, d // 2, 2).contiguous())
    angles = torch.outer(torch.tensor(positions), torch.tensor(theta))
    rotated = torch.view_as_real(z * torch.polar(torch.ones_like(angles), angles))
    np.testing.assert_allclose(
        ours, rotated.reshape(n, d).numpy(), rtol=1e-12, atol=1e-13
    )
