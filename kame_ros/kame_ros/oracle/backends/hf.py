# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
``transformers`` backend: a local causal LM, quantized, streaming, cancellable.

Loads a Hugging Face model directory or a GGUF file (transformers
dequantizes GGUF on load). On CPU, ``int8`` applies dynamic int8
quantization to every Linear layer but the output head (weights int8,
activations quantized per batch), which is what makes a local model pay on a robot's CPU; ``4bit``
uses bitsandbytes NF4 and therefore needs CUDA. Generation runs greedy on
its own thread and checks ``cancel`` after every token.
"""
from pathlib import Path
import threading
from typing import Any, Iterator

from kame_ros.oracle.backends.base import BackendError, LLMBackend, Messages, Progress

QUANTIZATIONS = ('none', 'int8', '4bit')


def split_model_path(model: str) -> tuple[str, str | None]:
    """Split a .gguf path into (its directory, gguf_file=name) for from_pretrained."""
    path = Path(model).expanduser()
    if path.suffix == '.gguf':
        return str(path.parent), path.name
    return str(path), None


class TransformersBackend(LLMBackend):
    """Causal LM through transformers."""

    name = 'transformers'

    def __init__(self, model: str, quantization: str = 'int8', device: str = 'cpu',
                 threads: int = 0) -> None:
        """Remember the settings; nothing heavy happens before ``load``."""
        if quantization not in QUANTIZATIONS:
            raise BackendError(f'quantization must be one of {QUANTIZATIONS}, '
                               f'got {quantization!r}')
        self.model_path = model
        self.quantization = quantization
        self.device = device
        self.threads = threads
        self.model = None
        self.tokenizer = None
        # One generation at a time: a superseded one stops at its next token, and two
        # at once would only halve the speed of the one that matters.
        self._busy = threading.Lock()

    def load(self, progress: Progress) -> None:
        """Load tokenizer and weights, then quantize."""
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        if self.threads:
            torch.set_num_threads(self.threads)
        directory, gguf = split_model_path(self.model_path)
        if not Path(directory, gguf or '').exists():
            raise BackendError(f'model not found: {self.model_path}')
        kwargs = {'gguf_file': gguf} if gguf else {}
        if self.quantization == '4bit':
            if not torch.cuda.is_available():
                raise BackendError('4-bit quantization needs CUDA (bitsandbytes); '
                                   'use quantization:=int8 on CPU')
            from transformers import BitsAndBytesConfig
            kwargs['quantization_config'] = BitsAndBytesConfig(load_in_4bit=True)
        progress(f'loading tokenizer from {self.model_path}')
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(directory, **kwargs)
            progress('loading weights')
            model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32,
                                                         **kwargs)
        except (OSError, ValueError, KeyError) as err:
            raise BackendError(f'cannot load {self.model_path}: {err}') from err
        n_params = sum(p.numel() for p in model.parameters())
        if self.quantization == 'int8':
            layers = {name for name, m in model.named_modules()
                      if isinstance(m, torch.nn.Linear) and name != 'lm_head'}
            progress(f'quantizing {len(layers)} Linear layers to int8 (dynamic; lm_head '
                     'stays float: quantizing the vocabulary projection costs most accuracy)')
            model = torch.ao.quantization.quantize_dynamic(model, layers, dtype=torch.qint8)
        elif self.quantization == 'none' and self.device != 'cpu':
            model = model.to(self.device)
        self.model = model.eval()
        progress(f'ready ({n_params / 1e6:.1f} M parameters, quantization {self.quantization})')

    def stats(self) -> dict[str, Any]:
        """Return the model and its quantization."""
        return {**super().stats(), 'model': Path(self.model_path).name,
                'quantization': self.quantization}

    def stream(self, messages: Messages, max_tokens: int,
               cancel: threading.Event) -> Iterator[str]:
        """Greedy-generate on a thread and yield decoded pieces."""
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer
        if self.model is None:
            raise BackendError('backend not loaded')

        class _Cancelled(StoppingCriteria):
            def __call__(self, input_ids, scores, **kwargs) -> bool:
                return cancel.is_set()

        inputs = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                    return_tensors='pt', return_dict=True)
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True,
                                        skip_special_tokens=True)
        kwargs = dict(**inputs, max_new_tokens=max_tokens, do_sample=False, streamer=streamer,
                      stopping_criteria=StoppingCriteriaList([_Cancelled()]),
                      pad_token_id=self.tokenizer.eos_token_id)
        errors: list[BaseException] = []

        def run() -> None:
            try:
                self.model.generate(**kwargs)
            except BaseException as err:  # noqa: B902 - re-raised on the consumer side
                errors.append(err)
                streamer.end()
        with self._busy:
            if cancel.is_set():
                return
            worker = threading.Thread(target=run, daemon=True)
            worker.start()
            for piece in streamer:
                if cancel.is_set():
                    break
                yield piece
            worker.join(timeout=30)
        if errors:
            raise BackendError(f'generation failed: {errors[0]}') from errors[0]

    def score(self, messages: Messages, prefix: str, continuations: list[str]) -> list[float]:
        """Mean token log-probability of each continuation (one forward pass each)."""
        import torch
        if self.model is None:
            raise BackendError('backend not loaded')
        prompt = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                    tokenize=False) + prefix
        prompt_ids = self.tokenizer(prompt, return_tensors='pt').input_ids
        scores = []
        with self._busy, torch.inference_mode():
            for text in continuations:
                ids = self.tokenizer(text, return_tensors='pt',
                                     add_special_tokens=False).input_ids
                both = torch.cat([prompt_ids, ids], dim=1)
                logp = self.model(both).logits[0, prompt_ids.shape[1] - 1:-1].log_softmax(-1)
                scores.append(logp.gather(1, ids[0, :, None]).mean().item())
        return scores
