"""The blockwise backward pass against PyTorch's autograd.

PyTorch's ``torch.nn.functional.scaled_dot_product_attention`` computes the
same attention in float64 with its own kernels, and autograd differentiates
it; the gradients of :func:`attention_docs.blockwise_attention_backward`
(from the forward pass's output and log-sum-exp) must equal them, with and
without a causal mask. ``make setup`` installs the CPU build of torch (the
``crosscheck`` extra) for this test.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_docs import blockwise_attention, blockwise_attention_backward
from attention_docs.masks import causal_mask

#: torch and torch.nn.functional, set by the fixture torch_module
#: (tests/unit/conftest.py) when a test of this module runs.
torch = F = None
pytestmark = pytest.mark.usefixtures("torch_module")


def torch_gradients(q, k, v, g, *, is_causal=False, mask=None):
    """dL/dq, dL/dk, dL/dv of L = sum(Z * g) by torch's autograd, and lse."""
    tq, tk, tv = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
    attn_mask = None if mask is None else torch.tensor(mask)  # True: may attend
    out = F.scaled_dot_product_attention(
        tq, tk, tv, attn_mask=attn_mask, is_causal=is_causal
    )
    (out * torch.tensor(g)).sum().backward()
    scores = tq.detach() @ tk.detach().transpose(-1, -2) / np.sqrt(q.shape[-1])
    if is_causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), bool))  # top-left
    if mask is not None:
        scores = scores.masked_fill(~torch.tensor(mask), -torch.inf)
    lse = torch.logsumexp(scores, dim=-1)
    return out.detach().numpy(), lse.numpy(), [x.grad.numpy() for x in (tq, tk, tv)]


@pytest.mark.parametrize("block_size", [1, 3, 5, 64])
@pytest.mark.parametrize("causal", [False, True])
def test_gradients_equal_torch_autograd(block_size, causal) -> None:
    rng = np.random.default_rng(block_size)
    n, d = 10, 4
    q, k, v = (rng.standard_normal((2, 3, n, d)) for _ in range(3))  # batch, heads
    g = rng.standard_normal((2, 3, n, d))
    mask = causal_mask(n) if causal else None
    out, lse = blockwise_attention(
        q, k, v, mask=mask, block_size=block_size, return_lse=True
    )
    want_out, want_lse, want = torch_gradients(q, k, v, g, is_causal=causal)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-12, atol=1e-13)
    got = blockwise_attention_backward(
        q, k, v, out, lse, g, mask=mask, block_size=block_size
    )
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_fewer_queries_than_keys_with_the_books_causal_mask() -> None:
    # the book's causal mask is aligned to the bottom right (masks.md); torch
    # takes it as a boolean attn_mask, True where a query may attend
    rng = np.random.default_rng(9)
    q = rng.standard_normal((4, 3))
    k, v = rng.standard_normal((7, 3)), rng.standard_normal((7, 2))
    g = rng.standard_normal((4, 2))
    mask = causal_mask(4, 7)
    out, lse = blockwise_attention(q, k, v, mask=mask, block_size=3, return_lse=True)
    _, want_lse, want = torch_gradients(q, k, v, g, mask=mask)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-12)
    got = blockwise_attention_backward(q, k, v, out, lse, g, mask=mask, block_size=3)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
