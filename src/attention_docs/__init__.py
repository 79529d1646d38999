r"""attention_docs: the attention mechanism in numpy, from the matrices up.

The companion package of the book. Every function computes one formula of
Vaswani et al., 2017, "Attention Is All You Need" (arXiv:1706.03762) or one
step the book derives from it, in the paper's row-vector convention (see the
book's page "Symbols and shapes" (notation.md, section "Row vectors")):

- :mod:`~attention_docs.linalg`: :math:`\vec{x} A = \sum_i x_i \vec{a}_i`
  (the book's page "Row vectors and matrix products", linear-algebra.md);
- :mod:`~attention_docs.softmax`: softmax with the max-shift trick, masked
  softmax (softmax.md; masked softmax: masks.md);
- :mod:`~attention_docs.masks`: boolean masks, True = "may attend"
  (masks.md);
- :mod:`~attention_docs.attention`:
  :math:`\operatorname{softmax}(Q K^\top / \sqrt{d_k})\, V`, Vaswani et al.
  (2017), Section 3.2.1, Equation 1 (scaled-dot-product.md);
- :mod:`~attention_docs.backward`: the gradients of scaled dot-product
  attention with respect to q, k and v, derived by hand (backpropagation.md);
- :mod:`~attention_docs.positional`: the sinusoidal positional encoding
  (Vaswani et al., 2017, Section 3.5) and rotary position embeddings (RoPE,
  Su et al., 2021) (positional-encoding.md), RoPE's angles rescaled for long
  contexts and ALiBi's biases (long-context.md);
- :mod:`~attention_docs.training`: one attention head trained on sequence
  reversal with hand-written gradients and Adam (Kingma and Ba, 2015); its
  names (``train``, ``forward``, ``Adam`` ...) are imported from the module,
  ``from attention_docs.training import train`` (training.md);
- :mod:`~attention_docs.blockwise`: the same attention over blocks of keys,
  with the online softmax, never holding all n_q x n_k scores, and its
  backward pass, which recomputes the weights from the log-sum-exp (Rabe and
  Staats, 2021; Dao et al., 2022, FlashAttention) (efficient-attention.md);
- :mod:`~attention_docs.logit_range`: RMS normalisation, QK-norm and
  logit soft-capping :math:`c \tanh(x / c)`, which keep the scores in range
  when the queries and keys grow (logit-range.md);
- :mod:`~attention_docs.kvcache`: a cache of keys and values for decoding one
  token at a time, and the bytes such caches take (kv-cache.md);
- :mod:`~attention_docs.latent`: multi-head latent attention, keys and
  values up-projected from one cached latent per token, computed explicitly
  or with the up-projections absorbed (DeepSeek-AI, 2024, DeepSeek-V2,
  Section 2.1) (latent-attention.md);
- :mod:`~attention_docs.linear_attention`: a positive feature map in place of
  the softmax, :math:`\phi(Q)(\phi(K)^\top V)` normalised, and its causal
  form as an RNN with a :math:`d_k \times d_v` state (Katharopoulos et al.,
  2020) (linear-attention.md);
  token at a time, a rolling cache for a sliding window with attention
  sinks, and the bytes such caches take (kv-cache.md, sliding-window.md);
- :mod:`~attention_docs.self_attention`: :math:`Q = X W_Q`, :math:`K = X W_K`,
  :math:`V = X W_V` (query-key-value.md, self-attention.md);
- :mod:`~attention_docs.multihead`: ``h`` heads, concatenated, projected,
  Vaswani et al. (2017), Section 3.2.2 (multi-head.md);
- :mod:`~attention_docs.transformer`: layer normalisation, the position-wise
  feed-forward network, and the encoder and decoder layers around attention,
  Vaswani et al. (2017), Sections 3.1 and 3.3 (transformer-block.md);
- :mod:`~attention_docs.tokenizer`: text to token ids and back, one token
  per character (tokens.md);
- :mod:`~attention_docs.language_model`: a decoder-only language model
  assembled from the parts above (token embedding, RoPE, pre-norm blocks of
  causal multi-head attention and the feed-forward network, a tied output
  head), its hand-written gradients, its training on the book's own text,
  and the trained models of each edition (language-model.md,
  lm-training.md);
- :mod:`~attention_docs.sampling`: temperature, top-k and top-p sampling and
  the generation loop with a KV cache per layer (generation.md);
- :mod:`~attention_docs.additive`: additive attention, Bahdanau et al.
  (2015), the alternative the paper compares with (scaled-dot-product.md);
- :mod:`~attention_docs.qkv`: Query / Key / Value objects (object-view.md);
- :mod:`~attention_docs.example`: the book's running example, three tokens
  with :math:`d_{\text{model}} = 4`;
- :mod:`~attention_docs.plotting`: bar charts and heat maps of attention
  weights; needs matplotlib (``pip install attention_docs[plot]``) and is
  never imported here, so the rest of the package needs numpy only.

Shapes: ``q (..., n_q, d_k)``, ``k (..., n_k, d_k)``, ``v (..., n_k, d_v)``,
weights ``(..., n_q, n_k)``, output ``(..., n_q, d_v)``; leading dimensions
broadcast (notation.md, section "Shapes"). A fully masked row gives zero
weights and a zero output (masks.md, section "Fully masked rows"). The
book's page "The package" (package.md) is the reference of this package; the
errors it raises are described in its section "Errors".

>>> import numpy as np
>>> import attention_docs as ad
>>> q = k = v = np.eye(2)
>>> np.round(ad.scaled_dot_product_attention(q, k, v, scale=np.log(3.0)), 6).tolist()
[[0.75, 0.25], [0.25, 0.75]]
"""

from .additive import additive_attention
from .attention import attention_scores, attention_weights, scaled_dot_product_attention
from .backward import scaled_dot_product_attention_backward
from .blockwise import (
    blockwise_attention,
    blockwise_attention_backward,
    blockwise_tile_counts,
)
from .example import RunningExample, running_example
from .kvcache import KVCache, RollingKVCache, kv_cache_bytes
from .language_model import LanguageModel, ModelConfig, load_pretrained
from .latent import absorb_latent_params, latent_attention, latent_attention_params
from .linalg import row_times_matrix, weighted_sum_of_rows
from .linear_attention import (
    LinearAttentionState,
    elu_feature_map,
    linear_attention,
    linear_attention_step,
)
from .logit_range import qk_norm, rms_norm, soft_cap
from .masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
from .multihead import (
    MultiHeadAttention,
    merge_heads,
    multi_head_attention,
    split_heads,
)
from .positional import (
    alibi_bias,
    alibi_slopes,
    apply_rope,
    rope_frequencies,
    sinusoidal_positional_encoding,
)
from .qkv import Key, Query, Value
from .sampling import generate, next_token_probs, sample_next
from .self_attention import project_qkv, self_attention
from .softmax import masked_softmax, softmax
from .tokenizer import CharTokenizer
from .transformer import (
    DecoderLayer,
    DecoderOnlyLayer,
    EncoderLayer,
    feed_forward,
    layer_norm,
)

__version__ = "0.1.0"

__all__ = [
    "CharTokenizer",
    "DecoderLayer",
    "DecoderOnlyLayer",
    "EncoderLayer",
    "KVCache",
    "Key",
    "LanguageModel",
    "LinearAttentionState",
    "ModelConfig",
    "MultiHeadAttention",
    "Query",
    "RollingKVCache",
    "RunningExample",
    "Value",
    "__version__",
    "absorb_latent_params",
    "additive_attention",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "attention_scores",
    "attention_weights",
    "blockwise_attention",
    "blockwise_attention_backward",
    "blockwise_tile_counts",
    "causal_mask",
    "combine_masks",
    "elu_feature_map",
    "feed_forward",
    "generate",
    "kv_cache_bytes",
    "latent_attention",
    "latent_attention_params",
    "layer_norm",
    "linear_attention",
    "linear_attention_step",
    "load_pretrained",
    "masked_softmax",
    "merge_heads",
    "multi_head_attention",
    "next_token_probs",
    "padding_mask",
    "project_qkv",
    "qk_norm",
    "rms_norm",
    "rope_frequencies",
    "row_times_matrix",
    "running_example",
    "sample_next",
    "scaled_dot_product_attention",
    "scaled_dot_product_attention_backward",
    "self_attention",
    "sinusoidal_positional_encoding",
    "sliding_window_mask",
    "soft_cap",
    "softmax",
    "split_heads",
    "weighted_sum_of_rows",
]
