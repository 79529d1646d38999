"""The language model against PyTorch: forward pass, gradients and one Adam step.

PyTorch computes the same model with its own operations (its layer norm, its
``scaled_dot_product_attention`` with ``is_causal=True``, autograd, its Adam),
in float64. ``make setup`` installs the CPU build of torch (the ``crosscheck``
extra) for this test.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_docs.language_model import (
    ModelConfig,
    forward,
    init_params,
    loss_and_gradients,
)
from attention_docs.training import Adam

#: torch and torch.nn.functional, set by the fixture torch_module
#: (tests/unit/conftest.py) when a test of this module runs.
torch = F = None
pytestmark = pytest.mark.usefixtures("torch_module")


CONFIG = ModelConfig(
    vocab_size=11, d_model=8, n_heads=2, n_layers=2, d_ff=12, context=7
)


def params_for_test():
    rng = np.random.default_rng(3)
    return {
        k: v + rng.normal(0.0, 0.3, v.shape)
        for k, v in init_params(CONFIG, rng).items()
    }


def rope(x, n):
    """Rotate pairs (2i, 2i + 1) by m theta_i, theta_i = 10000^(-2i / d_k)."""
    d_k = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
    angle = torch.arange(n, dtype=torch.float64)[:, None] * theta
    cos, sin = torch.cos(angle), torch.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), -1).flatten(-2)


def torch_logits(p, ids):
    b, n = ids.shape
    h, d = CONFIG.n_heads, CONFIG.d_model
    x = p["embedding"][ids]
    for layer in range(CONFIG.n_layers):
        w = {
            k.split(".", 2)[2]: v
            for k, v in p.items()
            if k.startswith(f"layers.{layer}.")
        }
        z = F.layer_norm(x, (d,), w["norm_1.gamma"], w["norm_1.beta"], eps=1e-5)

        def heads(t):
            return t.view(b, n, h, d // h).transpose(1, 2)

        q = rope(heads(z @ w["w_q"]), n)
        k = rope(heads(z @ w["w_k"]), n)
        v = heads(z @ w["w_v"])
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + out.transpose(1, 2).reshape(b, n, d) @ w["w_o"]
        z = F.layer_norm(x, (d,), w["norm_2.gamma"], w["norm_2.beta"], eps=1e-5)
        x = x + F.relu(z @ w["w_1"] + w["b_1"]) @ w["w_2"] + w["b_2"]
    x = F.layer_norm(x, (d,), p["norm.gamma"], p["norm.beta"], eps=1e-5)
    return x @ p["embedding"].T


def test_the_logits_agree_with_pytorch() -> None:
    params = params_for_test()
    ids = np.array([[3, 1, 4, 1, 5, 9, 2], [6, 5, 3, 5, 8, 9, 7]])
    ours = forward(params, CONFIG, ids)
    theirs = torch_logits(
        {k: torch.tensor(v) for k, v in params.items()}, torch.tensor(ids)
    )
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=0, atol=1e-12)


def test_the_gradients_and_one_adam_step_agree_with_pytorch() -> None:
    params = params_for_test()
    windows = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3]])
    loss, grads = loss_and_gradients(params, CONFIG, windows)
    tp = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    ids = torch.tensor(windows)
    logits = torch_logits(tp, ids[:, :-1])
    t_loss = F.cross_entropy(
        logits.reshape(-1, CONFIG.vocab_size), ids[:, 1:].reshape(-1)
    )
    t_loss.backward()
    assert loss == pytest.approx(t_loss.item(), abs=1e-12)
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, tp[name].grad.numpy(), rtol=1e-9, atol=1e-12)
    # one step of each Adam, from the same parameters and gradients
    adam = Adam(params, lr=0.01)
    adam.step(params, grads)
    optimizer = torch.optim.Adam(list(tp.values()), lr=0.01, eps=1e-8)
    optimizer.step()
    for name, value in params.items():
        np.testing.assert_allclose(value, tp[name].detach().numpy(), rtol=0, atol=1e-12)
