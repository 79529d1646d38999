"""The block and the forward pass as the chapter "Assembling a small language
model" shows them (its section ``#assemble``).

They are the package's ``_block`` and ``decoder_forward``
(``src/attention_docs/language_model.py``) without the options that later
chapters add: the KV cache (``cache``, ``caches``, in "The KV cache"),
QK-norm (the gains ``q_norm.gamma``, ``k_norm.gamma`` and ``rms_norm``, in
"Controlling the size of the logits") and ``theta`` and ``scale``, the other
RoPE angles and score factor of "Long contexts". With those left at their
defaults (no cache, no QK-norm gains, ``theta=None``, ``scale=None``) they
compute exactly what the package's functions compute:
``tests/docs/test_listings.py`` runs both on the trained models' weights and
asks for equal arrays, so that the listing cannot drift from the package.
"""

from attention_docs import (
    apply_rope,
    feed_forward,
    layer_norm,
    merge_heads,
    scaled_dot_product_attention,
    split_heads,
)
from attention_docs.language_model import _layer


# --8<-- [start:block]
def _block(p, x, positions, mask, h):
    """X' = X + MHA(LN_1(X)); X' + FFN(LN_2(X'))."""
    x_hat = layer_norm(x, p["norm_1.gamma"], p["norm_1.beta"])  # (b, n, d_model)
    q = split_heads(x_hat @ p["w_q"], h)  # (b, h, n, d_k)
    k = split_heads(x_hat @ p["w_k"], h)  # (b, h, n, d_k)
    q = apply_rope(q, positions)  # q_m R_m: m theta_i
    k = apply_rope(k, positions)
    v = split_heads(x_hat @ p["w_v"], h)  # (b, h, n, d_k)
    out, weights = scaled_dot_product_attention(
        q, k, v, mask=mask, return_weights=True
    )  # (b, h, n, d_k), (b, h, n, n)
    x = x + merge_heads(out) @ p["w_o"]  # X' = X + Concat(heads) W^O
    x_hat = layer_norm(x, p["norm_2.gamma"], p["norm_2.beta"])
    ffn = feed_forward(x_hat, p["w_1"], p["b_1"], p["w_2"], p["b_2"])
    return x + ffn, weights  # X' + FFN(LN_2(X'))


# --8<-- [end:block]


# --8<-- [start:forward]
def decoder_forward(params, config, ids, positions, mask):
    """logits = LN(X^(N)) E^T; [A^(1), ..., A^(N)]."""
    x = params["embedding"][ids]  # X = E[ids]: (b, n, d_model)
    all_weights = []
    for layer in range(config.n_layers):
        p = _layer(params, layer)
        x, weights = _block(p, x, positions, mask, config.n_heads)
        all_weights.append(weights)
    x = layer_norm(x, params["norm.gamma"], params["norm.beta"])
    logits = x @ params["embedding"].T  # (b, n, d_model) @ (d_model, |V|)
    return logits, all_weights


# --8<-- [end:forward]
