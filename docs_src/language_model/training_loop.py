"""The training loop and the backward pass as the chapter "Training the
language model" shows them (its sections ``#training-loop`` and
``#backward-code``).

They are the package's ``_train_loop`` and ``_backward``
(``src/attention_docs/language_model.py``) without the options that later
chapters add: the ``rope`` argument (the other RoPE angles and score factor
of "Long contexts") and the backward pass of QK-norm ("Controlling the size
of the logits"). On a model without QK-norm gains, trained with the default
angles, they compute exactly what the package's functions compute:
``tests/docs/test_listings.py`` asks for equal losses, gradients and
parameters, so that the listings cannot drift from the package.
"""

import numpy as np

from attention_docs.language_model import (
    _check_finite_step,
    _cross_entropy,
    _heads,
    _layer,
    _ln_backward,
    _merge,
    _rope,
    _train_forward,
    parameter_shapes,
)


# --8<-- [start:train]
def _train_loop(params, config, adam, rng, train, steps, batch_size):
    """theta_t = adam.step(theta_(t-1), grads), t = 1, ..., steps."""
    n, lr = config.context, adam.lr
    for step in range(1, steps + 1):
        starts = rng.integers(0, len(train) - n, size=batch_size)  # (b,)
        batch = train[starts[:, None] + np.arange(n + 1)]  # (b, n + 1)
        # (b, n, |V|)
        logits, cache = _train_forward(params, config, batch[:, :-1])
        loss, d_logits = _cross_entropy(logits, batch[:, 1:])  # y_i = id_(i+1)
        grads = _backward(params, config, batch[:, :-1], cache, d_logits)
        _check_finite_step(step, loss, grads, lr)
        adam.lr = lr * min(1.0, 2 * (steps - step + 1) / steps)  # alpha_t
        adam.step(params, grads)  # theta -= alpha_t m_hat / (sqrt(v_hat) + eps)
        yield step, loss


# --8<-- [end:train]


# --8<-- [start:backward]
def _backward(params, config, ids, cache, d_logits):
    saved, x_hat_f, lnf, cos, sin, scale = cache  # x_hat_f = LN(X^(N))
    h = config.n_heads
    grads = {}
    emb = params["embedding"]
    d_model = config.d_model
    flat_d = d_logits.reshape(-1, d_logits.shape[-1])  # (N_pred, |V|)
    d_emb = flat_d.T @ x_hat_f.reshape(-1, d_model)  # dE = dU^T LN(X^(N))
    dx_hat_f = d_logits @ emb  # (b, n, d_model)
    dx, grads["norm.gamma"], grads["norm.beta"] = _ln_backward(
        dx_hat_f, params["norm.gamma"], lnf
    )
    for layer in reversed(range(config.n_layers)):
        p = _layer(params, layer)
        # x_hat1 = LN_1(X), heads_out = Concat(heads), x_hat2 = LN_2(X'),
        # pre = x_hat2 W_1 + b_1, hidden = max(pre, 0)
        x_hat1, ln1, q, k, v, a, heads_out, x_hat2, ln2, pre, hidden, _ = saved[layer]
        g = {}
        # x_out = x_mid + hidden W_2 + b_2
        g["b_2"] = dx.reshape(-1, d_model).sum(axis=0)
        g["w_2"] = hidden.reshape(-1, hidden.shape[-1]).T @ dx.reshape(-1, d_model)
        d_pre = (dx @ p["w_2"].T) * (pre > 0)
        g["b_1"] = d_pre.reshape(-1, d_pre.shape[-1]).sum(axis=0)
        g["w_1"] = x_hat2.reshape(-1, d_model).T @ d_pre.reshape(-1, d_pre.shape[-1])
        dx_hat2 = d_pre @ p["w_1"].T
        d_mid, g["norm_2.gamma"], g["norm_2.beta"] = _ln_backward(
            dx_hat2, p["norm_2.gamma"], ln2
        )
        d_mid = d_mid + dx  # d(x_mid) += d(x_out)
        # x_mid = x + heads_out W^O
        g["w_o"] = heads_out.reshape(-1, d_model).T @ d_mid.reshape(-1, d_model)
        d_out = _heads(d_mid @ p["w_o"].T, h)  # (b, h, n, d_k)
        dv = a.swapaxes(-1, -2) @ d_out  # A^T dO
        da = d_out @ v.swapaxes(-1, -2)  # dA = dO V^T
        ds = a * (da - (da * a).sum(axis=-1, keepdims=True))  # dS
        dq = _rope(ds @ k, cos, -sin) * scale  # (dS K) R^T / sqrt(d_k)
        dk = _rope(ds.swapaxes(-1, -2) @ q, cos, -sin) * scale
        dq, dk, dv = _merge(dq), _merge(dk), _merge(dv)
        x_rows = x_hat1.reshape(-1, d_model)
        g["w_q"] = x_rows.T @ dq.reshape(-1, d_model)
        g["w_k"] = x_rows.T @ dk.reshape(-1, d_model)
        g["w_v"] = x_rows.T @ dv.reshape(-1, d_model)
        dx_hat1 = dq @ p["w_q"].T + dk @ p["w_k"].T + dv @ p["w_v"].T
        dx_ln, g["norm_1.gamma"], g["norm_1.beta"] = _ln_backward(
            dx_hat1, p["norm_1.gamma"], ln1
        )
        dx = dx_ln + d_mid
        for key, value in g.items():
            grads[f"layers.{layer}.{key}"] = value
    np.add.at(d_emb, ids.reshape(-1), dx.reshape(-1, d_model))  # dE += I[ids]^T dX
    grads["embedding"] = d_emb
    return {key: grads[key] for key in parameter_shapes(config)}


# --8<-- [end:backward]
