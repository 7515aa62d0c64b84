# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""A tiny random Llama with the real SmolLM2 tokenizer, saved in Hugging Face format."""
from pathlib import Path


def build_tiny_llama(directory: Path) -> Path:
    """Save a 2-layer, 64-wide random Llama (deterministic seed) plus SmolLM2's tokenizer."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from kame_ros.oracle.backends.embedded import embedded_model_path
    gguf = Path(embedded_model_path('smollm2-135m'))
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=2048, tie_word_embeddings=False,
                         initializer_range=0.2,
                         bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    model = LlamaForCausalLM(config)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
