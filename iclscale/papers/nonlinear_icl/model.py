"""The one-layer Transformer of Li et al. 2024 [L24] Eq. 2, for a single config:

    F(Ψ; P) = aᵀ ReLU( W_O Σ_{i=1}^{l} W_V p_i · attn(Ψ; P, i) ),
    attn(Ψ; P, i) = softmax_i( (W_K p_i)ᵀ W_Q p_query ).

Single head, no residual, no LayerNorm, no biases, no positional encoding, no 1/√d temperature. The
prompt is given with tokens as rows (the paper's Pᵀ): P (..., l + 1, d_X + d_Y), query last. `a` is fixed
([L24] §2.3: "a does not update during training").

[LW23] trains the same model, so its code lives in `iclscale.papers.common.one_layer_transformer`; the 3-layer
GPT-2 of Fig. 3 is in gpt2.py.
"""

from iclscale.papers.common.one_layer_transformer import OneLayerTransformer, attention_weights

__all__ = ["OneLayerTransformer", "attention_weights"]
