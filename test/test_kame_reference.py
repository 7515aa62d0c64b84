# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
kame_ros's KAME front-end side by side with the authors' own code.

The reference is SakanaAI/kame (the ``kame`` wheel in ../shared/reference/kame,
installed by scripts/setup.sh). The same tiny KAME checkpoint is loaded into
the reference's ``LMGen`` and Mimi and into kame_ros; both get the same
microphone audio and the same LLM stream. The reference is driven exactly as
its server drives it (``kame/server_oracle.py``, ``handle_chat.opus_loop``):
oracle updates drained before each frame, a reset sent with a reply's first
non-empty chunk, each chunk stripped and tokenized on its own, the first
encoded frame followed by ``mimi.reset_streaming()``. kame_ros is driven as
its nodes drive it: OracleEvents (reset, append, done) into ``on_oracle``
and one ``step`` per 80 ms of PCM.
"""
import json

import numpy as np
import pytest
import torch

from kame_ros.frontend.checkpoint import load_frontend_models
from kame_ros.frontend.moshi_engine import MoshiFrontEnd, SamplingConfig
from kame_ros.frontend.tiny import fitting_audio, save_checkpoint
from kame_ros.oracle.events import OracleEvent

kame = pytest.importorskip('kame.models.lm', reason='reference wheel not installed '
                           '(scripts/setup.sh installs it from ../shared/reference/kame)')

FRAMES = 50
# The LLM's stream: frame -> (reply, chunks as the LLM produced them) or (reply, 'done').
# Chunks end on word boundaries here; mid-word chunks are point 5 (see the last test).
# Reply 2 resets while reply 1 is still being laid out.
LLM_STREAM = {
    6: (1, ['The robot', ' is in']),
    9: (1, [' the kitchen.']),
    11: (1, 'done'),
    15: (2, ['Paris is']),  # then the LLM stalls: "is" must not wait for the next chunk
    23: (2, [' the capital of']),
    25: (2, [' France.']),
    26: (2, 'done'),
}


@pytest.fixture(scope='module')
def kame_dir(tmp_path_factory):
    return save_checkpoint(tmp_path_factory.mktemp('kame_ref'), kame=True, seed=2)


def microphone(frames: int) -> list[np.ndarray]:
    """Varied sound (not what the codebooks were fitted on), as int16 frames."""
    pcm = fitting_audio(seconds=frames * 0.08, seed=99)
    return [np.clip(pcm[i * 1920:(i + 1) * 1920] * 32767, -32768, 32767).astype(np.int16)
            for i in range(frames)]


def reference_models(directory):
    """Load the same files with the reference's own loaders."""
    from kame.models import loaders
    config = json.loads((directory / 'config.json').read_text())
    lm_kwargs = {k: v for k, v in config.items()
                 if k not in ('moshi_name', 'mimi_name', 'tokenizer_name', 'mimi_config_name')}
    lm = loaders.get_moshi_lm(directory / 'model.safetensors', lm_kwargs=lm_kwargs,
                              dtype=torch.float32)
    mimi_config = json.loads((directory / 'mimi_config.json').read_text())
    mimi = loaders.get_mimi(directory / 'mimi.safetensors', mimi_config,
                            num_codebooks=lm.dep_q)
    return lm.eval(), mimi.eval()


def run_reference(directory, tokenizer, frames):
    """Run the reference server's per-frame body (server_oracle.py, opus_loop), recorded."""
    from kame.models.lm import LMGen
    lm, mimi = reference_models(directory)
    logits, oracle, codes_in, outputs = [], [], [], []
    gen = LMGen(lm, use_sampling=False, on_text_logits_hook=lambda t: logits.append(t.clone()))
    with torch.no_grad(), mimi.streaming(1), gen.streaming(1):
        state = gen._streaming_state
        main = state.graphed_main

        def recording(input_, sum_cond, cross_cond, oracle_tokens):
            oracle.append(int(oracle_tokens[0, 0, 0]))
            return main(input_, sum_cond, cross_cond, oracle_tokens)
        state.graphed_main = recording
        skip_frames = 1
        for i, pcm in enumerate(frames):
            reply = LLM_STREAM.get(i)
            if reply is not None and reply[1] != 'done':  # 'done' sends nothing in the reference
                first = not any(r == reply[0] for f, (r, _) in LLM_STREAM.items() if f < i)
                for n, chunk in enumerate(reply[1]):
                    if first and n == 0:
                        gen.update_oracle_tokens_streaming(None, reset=True)
                    gen.update_oracle_tokens_streaming(list(tokenizer.encode(chunk.strip())))
            x = torch.from_numpy(pcm.astype(np.float32) / 32768.0)[None, None]
            codes = mimi.encode(x)
            if skip_frames:
                mimi.reset_streaming()
                skip_frames -= 1
            codes_in.append(codes.clone())
            tokens = gen.step(codes[:, :, 0:1])
            outputs.append(None if tokens is None else
                           (tokens.clone(), mimi.decode(tokens[:, 1:]).clone()))
    return logits, oracle, codes_in, outputs


def run_kame_ros(directory, frames):
    """kame_ros as the frontend node drives it: oracle events, then one step per frame."""
    models = load_frontend_models(str(directory), progress=lambda s: None)
    fe = MoshiFrontEnd(models, mode='kame', sampling=SamplingConfig(use_sampling=False))
    logits, codes_in = [], []
    fe.lm_gen.on_text_logits_hook = lambda t: logits.append(t.clone())
    fe.start()
    encode = fe.codec.encode

    def recording_encode(x):
        codes = encode(x)
        codes_in.append(codes.clone())
        return codes
    fe.codec.encode = recording_encode
    outputs = []
    seen = set()
    for i, pcm in enumerate(frames):
        reply = LLM_STREAM.get(i)
        if reply is not None:
            rid, chunks = reply
            if chunks == 'done':
                fe.on_oracle(OracleEvent('oracle.done', rid, rid, 0, status='complete'))
            else:
                if rid not in seen:
                    seen.add(rid)
                    fe.on_oracle(OracleEvent('oracle.reset', rid, rid, 0))
                for chunk in chunks:
                    fe.on_oracle(OracleEvent('oracle.append', rid, rid, 0, chunk))
        outputs.append(fe.step(pcm))
    fe.stop()
    return logits, [o.oracle_token for o in outputs], codes_in, outputs, models


def test_kame_mode_matches_the_reference_frame_by_frame(kame_dir):
    frames = microphone(FRAMES)
    ours_logits, ours_oracle, ours_codes, ours_out, models = run_kame_ros(kame_dir, frames)
    ref_logits, ref_oracle, ref_codes, ref_out = run_reference(kame_dir, models.tokenizer,
                                                               frames)
    pad, boundary = 3, models.lm.text_card
    # The schedule exercised every rule: pad before any reply, two resets, appends, pad
    # after a reply's last token.
    assert ours_oracle[:6] == [pad] * 6
    assert ours_oracle.count(boundary) == 2
    assert ours_oracle[-1] == pad
    assert len(set(ours_oracle) - {pad, boundary}) >= 8, 'real oracle tokens were fed'
    assert ours_oracle == ref_oracle, 'the oracle token fed on each frame'
    assert len(ours_codes) == len(ref_codes) == FRAMES
    for i, (a, b) in enumerate(zip(ours_codes, ref_codes)):
        assert torch.equal(a, b), f'input codes differ at frame {i}'
    assert len({tuple(c.flatten().tolist()) for c in ours_codes}) > FRAMES // 2, \
        'the microphone reaches the LM (codes vary with the sound)'
    assert len(ours_logits) == len(ref_logits) == FRAMES
    for i, (a, b) in enumerate(zip(ours_logits, ref_logits)):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5,
                                   msg=lambda m: f'text logits differ at frame {i}: {m}')
    for i, (o, r) in enumerate(zip(ours_out, ref_out)):
        assert (o.pcm is None) == (r is None), f'frame {i}'
        if r is not None:
            assert o.text_token == int(r[0][0, 0, 0]), f'text token, frame {i}'
            pcm = np.clip(np.rint(r[1][0, 0].numpy() * 32768), -32768, 32767)
            assert np.abs(o.pcm.astype(np.int32) - pcm).max() <= 2, f'audio, frame {i}'


def test_mid_word_chunks_are_the_one_named_difference(kame_dir):
    """
    Point 5: the reference tokenizes each chunk alone ("kit" + "chen" = two word starts).

    kame_ros commits whole words, so the LM sees "kitchen" as it would inside
    a sentence; a pending word is committed as soon as its frame needs it, so
    it is never later than in the reference.
    """
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    tok = models.tokenizer
    fe = MoshiFrontEnd(models, mode='kame', sampling=SamplingConfig(use_sampling=False))
    fe.start()
    chunks = ['in the kit', 'chen']
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, chunks[0]))
    ready = 1 + len(tok.encode('in the'))  # boundary + the committed words' tokens
    got = [fe.lm_step(torch.zeros(1, models.lm.dep_q, 1, dtype=torch.long))[1]
           for _ in range(ready)]
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, chunks[1]))
    fe.on_oracle(OracleEvent('oracle.done', 1, 1, 0))
    got += [fe.lm_step(torch.zeros(1, models.lm.dep_q, 1, dtype=torch.long))[1]
            for _ in range(8)]
    fe.stop()
    reference = [t for c in chunks for t in tok.encode(c.strip())]
    ours = [t for t in got[1:] if t != 3]
    assert ours[:len(tok.encode('in the kitchen'))] == tok.encode('in the kitchen')
    assert tok.encode('in the kitchen') != reference, 'the two rules do differ here'
