# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The Moshi/KAME front-end on tiny checkpoints saved in moshi's real format."""
import numpy as np
import pytest
import torch

from kame_ros.frontend.checkpoint import CheckpointError, load_frontend_models
from kame_ros.frontend.moshi_engine import MoshiFrontEnd
from kame_ros.frontend.text_tokens import IncrementalTokenizer
from kame_ros.frontend.tiny import save_checkpoint
from kame_ros.oracle.events import OracleEvent


@pytest.fixture(scope='module')
def kame_dir(tmp_path_factory):
    return save_checkpoint(tmp_path_factory.mktemp('kame'), kame=True)


@pytest.fixture(scope='module')
def moshi_dir(tmp_path_factory):
    return save_checkpoint(tmp_path_factory.mktemp('moshi'), kame=False, seed=1)


def audio(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(1920) * 3000).astype(np.int16) for _ in range(n)]


def upstream_run(models, frames, seed, reset_after_first=True):
    """
    Plain moshi as its server runs it (moshi/server.py, ``opus_loop``), nothing of ours.

    Mimi encode -> LMGen.step -> Mimi decode; after the first encoded frame
    the server calls ``mimi.reset_streaming()`` (the frame carries the
    encoder's left padding and lies in the model's past).
    """
    from moshi.models.lm import LMGen
    gen = LMGen(models.lm)
    torch.manual_seed(seed)
    out = []
    with torch.no_grad(), models.mimi.streaming(1), gen.streaming(1):
        for i, pcm in enumerate(frames):
            x = torch.from_numpy(pcm.astype(np.float32) / 32768.0)[None, None]
            codes = models.mimi.encode(x)
            if i == 0 and reset_after_first:
                models.mimi.reset_streaming()
            tokens = gen.step(codes)
            if tokens is None:
                out.append(None)
            else:
                out.append((tokens.clone(), models.mimi.decode(tokens[:, 1:]).clone()))
    return out


def test_checkpoints_load_in_both_flavours(kame_dir, moshi_dir):
    kame = load_frontend_models(str(kame_dir), progress=lambda s: None)
    moshi = load_frontend_models(str(moshi_dir), progress=lambda s: None)
    assert kame.is_kame and not moshi.is_kame
    assert kame.oracle_emb.weight.shape == (kame.lm.text_card + 1, kame.lm.dim)
    assert not torch.equal(kame.oracle_emb.weight, kame.lm.text_emb.weight)
    assert MoshiFrontEnd(kame).mode == 'kame' and MoshiFrontEnd(moshi).mode == 'guided'
    with pytest.raises(ValueError, match='KAME checkpoint'):
        MoshiFrontEnd(moshi, mode='kame')


def test_missing_and_corrupt_checkpoints_are_clear(tmp_path, kame_dir):
    with pytest.raises(CheckpointError, match='not found'):
        load_frontend_models(str(tmp_path / 'nope'), progress=lambda s: None)
    broken = tmp_path / 'broken'
    broken.mkdir()
    for f in kame_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / 'mimi.safetensors').unlink()
    with pytest.raises(CheckpointError, match='missing mimi.safetensors'):
        load_frontend_models(str(broken), progress=lambda s: None)
    (broken / 'mimi.safetensors').write_bytes((kame_dir / 'mimi.safetensors').read_bytes())
    (broken / 'model.safetensors').write_bytes(b'garbage' * 100)
    with pytest.raises(CheckpointError, match='unreadable'):
        load_frontend_models(str(broken), progress=lambda s: None)


@pytest.mark.parametrize('flavour', ['kame', 'moshi'])
def test_plain_mode_is_bit_exact_with_upstream_moshi(flavour, kame_dir, moshi_dir):
    models = load_frontend_models(str(kame_dir if flavour == 'kame' else moshi_dir),
                                  progress=lambda s: None)
    frames = audio(25)
    ref = upstream_run(models, frames, seed=7)
    fe = MoshiFrontEnd(models, mode='plain', seed=7)
    fe.start()
    ours = [fe.step(pcm) for pcm in frames]
    fe.stop()
    assert ref[0] is None and ours[0].pcm is None
    for r, o in zip(ref[1:], ours[1:]):
        assert o.text_token == int(r[0][0, 0, 0])
        expected_pcm = np.clip(np.rint(r[1][0, 0].numpy() * 32768), -32768, 32767)
        assert np.array_equal(o.pcm, expected_pcm.astype(np.int16))
    assert all(o.oracle_token is None for o in ours)


def test_first_frame_resets_mimi_like_the_servers(kame_dir):
    """Rule 3, after moshi/server.py and SakanaAI/kame kame/server_oracle.py (``opus_loop``)."""
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    frames = [(np.sin(np.arange(1920) * f) * 8000).astype(np.int16)
              for f in np.linspace(0.02, 0.6, 12)]
    seen = []
    fe = MoshiFrontEnd(models, mode='plain')
    fe.start()
    encode = fe.codec.encode
    fe.codec.encode = lambda x: seen.append(encode(x)) or seen[-1]
    for pcm in frames:
        fe.step(pcm)
    fe.stop()

    def codes(reset):
        out = []
        with torch.no_grad(), models.mimi.streaming(1):
            for i, pcm in enumerate(frames):
                out.append(models.mimi.encode(torch.from_numpy(pcm / 32768.0).float()[None, None]))
                if i == 0 and reset:
                    models.mimi.reset_streaming()
        return out
    with_reset, without = codes(True), codes(False)
    assert all(torch.equal(a, b) for a, b in zip(seen, with_reset))
    assert not all(torch.equal(a, b) for a, b in zip(seen[1:], without[1:])), \
        'the reset changes what frame 1 on encode to (so the rule is observable)'


def test_tiny_mimi_carries_the_sound_into_the_lm(kame_dir):
    """Different sounds give different codes and so different LM inputs (fitted codebooks)."""
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    t = np.arange(1920 * 6) / 24000
    sounds = {'tone': np.sin(2 * np.pi * 300 * t) * 0.3,
              'noise': np.random.default_rng(3).standard_normal(len(t)) * 0.1}
    codes = {}
    for name, sound in sounds.items():
        with torch.no_grad():
            codes[name] = models.mimi.encode(torch.from_numpy(sound).float()[None, None])
    assert codes['tone'].shape == codes['noise'].shape == (1, models.lm.dep_q, 6)
    assert len(torch.unique(codes['tone'])) > 1 or len(torch.unique(codes['noise'])) > 1
    assert not torch.equal(codes['tone'][..., 2:], codes['noise'][..., 2:])
    with torch.no_grad():
        embed = {name: sum(models.lm.emb[k](c[:, k]) for k in range(c.shape[1]))
                 for name, c in codes.items()}
    assert not torch.allclose(embed['tone'], embed['noise']), 'the LM sees the difference'


def test_oracle_embedding_input_follows_the_kame_timeline(kame_dir):
    """Rule 1 (pad when there is no token) and the timeline: kame/models/lm.py LMGen._step."""
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    fe = MoshiFrontEnd(models, seed=3)
    fe.start()
    seen = []
    state = fe.lm_gen._streaming_state
    original = state.graphed_main

    def recording(input_, sum_condition, cross):
        seen.append(sum_condition.clone())
        return original(input_, sum_condition, cross)
    state.graphed_main = recording

    tok = models.tokenizer
    boundary, pad = models.lm.text_card, 3
    frames = audio(30, seed=5)
    script = {  # frame -> events delivered before that frame is stepped
        4: [OracleEvent('oracle.reset', 1, 1, 0)],
        5: [OracleEvent('oracle.append', 1, 1, 0, 'the ')],
        9: [OracleEvent('oracle.append', 1, 1, 0, 'robot is ')],
        12: [OracleEvent('oracle.reset', 2, 1, 1)],
        13: [OracleEvent('oracle.append', 1, 1, 0, 'stale reply ')],
        14: [OracleEvent('oracle.append', 2, 1, 1, 'paris ')],
        20: [OracleEvent('oracle.done', 2, 1, 1)],
    }
    outputs = []
    for i, pcm in enumerate(frames):
        for event in script.get(i, []):
            fe.on_oracle(event)
        outputs.append(fe.step(pcm))
    fe.stop()

    # KAME's rules written out: (token, frame it arrived) laid from the reset frame on.
    the, robot_is, paris = tok.encode('the'), tok.encode('robot is'), tok.encode('paris')
    reply1 = [(boundary, 4)] + [(t, 5) for t in the] + [(t, 9) for t in robot_is]
    reply2 = [(boundary, 12)] + [(t, 14) for t in paris]
    want = [pad] * 4
    for frame in range(4, 30):
        reply, origin = (reply1, 4) if frame < 12 else (reply2, 12)
        index = frame - origin
        ready = index < len(reply) and reply[index][1] <= frame
        want.append(reply[index][0] if ready else pad)
    got = [o.oracle_token for o in outputs]
    assert got == want
    assert pad in got[5:12], 'frames without a ready token get pad'
    assert fe.timeline.stats.late > 0 and fe.stale_events == 1
    assert got.count(boundary) == 2

    # The LM input of each frame carries exactly oracle_emb(token): pad before any reply too.
    assert len(seen) == len(frames)
    for t, cond in zip(got, seen):
        emb = models.oracle_emb(torch.tensor([[t]]))
        assert torch.equal(cond, emb)
    assert seen[0].any(), 'oracle_emb(pad) is not zero: frame 0 differs from stock Moshi'


def test_incremental_tokenizer_commits_whole_words(kame_dir):
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    inc = IncrementalTokenizer(models.tokenizer)
    out = inc.feed('the rob') + inc.feed('ot is') + inc.feed(' in the kit')
    assert inc.pending == 'kit'
    out += inc.flush()
    assert out == models.tokenizer.encode('the robot is in the kit')
    assert inc.feed('') == [] and inc.pending == ''


def test_pending_word_is_flushed_when_its_frame_needs_it(kame_dir):
    """Point 5: a word never waits on a slow LLM, with no next chunk and no done."""
    models = load_frontend_models(str(kame_dir), progress=lambda s: None)
    tok = models.tokenizer
    fe = MoshiFrontEnd(models, mode='kame', seed=1)
    fe.start()
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
    fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, 'the robot'))  # and nothing more
    n = 1 + len(tok.encode('the robot'))
    got = [fe.step(pcm).oracle_token for pcm in audio(n + 3, seed=4)]
    fe.stop()
    assert got[:n] == [models.lm.text_card] + tok.encode('the robot')
    assert got[n:] == [3] * 3 and fe.timeline.stats.late == 0


def test_guided_mode_speaks_the_oracle_words_in_order(moshi_dir):
    models = load_frontend_models(str(moshi_dir), progress=lambda s: None)
    fe = MoshiFrontEnd(models, mode='guided', seed=11, guide_min_ready_tokens=2)
    fe.start()
    reply = 'the robot is in the kitchen'
    outputs = []
    for i, pcm in enumerate(audio(80, seed=2)):
        if i == 3:
            fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
        if i == 4:
            fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, reply[:14]))
        if i == 8:
            fe.on_oracle(OracleEvent('oracle.append', 1, 1, 0, reply[14:]))
            fe.on_oracle(OracleEvent('oracle.done', 1, 1, 0))
        outputs.append(fe.step(pcm))
    fe.stop()
    assert fe.guide.switch_frames, 'the guide never engaged'
    switch = fe.guide.switch_frames[0]
    spoken = [o.text_token for o in outputs[switch:]
              if o.text_token is not None and o.text_token not in (0, 3)]
    want = models.tokenizer.encode(reply)
    assert spoken[:len(want)] == want, (spoken, want)
    text = ''.join(o.text for o in outputs[switch:])
    assert 'robot is in the kitchen' in text


class _Pieces:
    """A vocabulary where ids 10.. start words and 20.. continue them."""

    def vocab_size(self):
        return 40

    def id_to_piece(self, i):
        return ('\u2581w' if 10 <= i < 20 else 'x') + str(i)


def logits_preferring(token, card=40):
    logits = torch.zeros(1, 1, 1, card)
    logits[..., token] = 5.0
    return logits


def test_guide_switches_only_at_word_boundaries():
    from kame_ros.frontend.guide import TextGuide
    guide = TextGuide(_Pieces(), min_ready_tokens=2, max_wait_frames=5)
    guide.new_reply()
    guide.extend([11, 21, 12])
    mid_word = logits_preferring(25)
    guide.on_text_logits(mid_word)
    assert not guide.engaged and mid_word[..., 25] == 5.0, 'never switch mid-word'
    start = logits_preferring(13)
    guide.on_text_logits(start)
    assert guide.engaged and int(start.argmax()) == 11, 'word start -> first oracle token'
    guide.on_text_token(torch.tensor([11]))
    pad = logits_preferring(3)
    guide.on_text_logits(pad)
    assert int(pad.argmax()) == 3, 'Moshi keeps its pauses'
    guide.on_text_token(torch.tensor([3]))
    word = logits_preferring(14)
    guide.on_text_logits(word)
    assert int(word.argmax()) == 21
    guide.on_text_token(torch.tensor([21]))
    # A new reply repeating what was said continues after it.
    guide.new_reply()
    guide.extend([11, 21, 15, 16], done=True)
    assert guide.position == 2
    nxt = logits_preferring(14)
    guide.on_text_logits(nxt)
    assert int(nxt.argmax()) == 15


@pytest.mark.parametrize('flavour', ['kame', 'moshi'])
def test_say_is_spoken_then_completes_or_is_interrupted(flavour, kame_dir, moshi_dir):
    models = load_frontend_models(str(kame_dir if flavour == 'kame' else moshi_dir),
                                  progress=lambda s: None)
    fe = MoshiFrontEnd(models, seed=4, guide_min_ready_tokens=1)
    fe.start()
    status, fed = [], []
    fe.say('k1', 'arrived at the kitchen', status.append, fed.append)
    outputs = [fe.step(pcm) for pcm in audio(60, seed=9)]
    assert status == ['spoken']
    # Word feedback and frontend/text's say_id: the pieces said while the request was current.
    said = [o for o in outputs if o.say_id]
    assert said and {o.say_id for o in said} == {'k1'}
    assert fed == [o.text.strip() for o in said if o.text.strip()]
    assert not outputs[-1].say_id, 'once spoken, the text is no longer part of the request'
    if flavour == 'moshi':  # guided: what is said is the request (fed piece by piece)
        assert 'arrived at the kitch' in ''.join(o.text for o in said)
    tokens = models.tokenizer.encode('arrived at the kitchen')
    if flavour == 'kame':
        assert [o.oracle_token for o in outputs[:len(tokens) + 1]] == \
            [models.lm.text_card] + tokens
    else:
        assert 'arrived at the kitchen' in ''.join(o.text for o in outputs)
    fe.say('k2', 'a long announcement that will be cut short', status.append)
    fe.on_oracle(OracleEvent('oracle.reset', 1, 1, 0))
    assert status == ['spoken', 'interrupted']
    fe.say('k3', 'an announcement a behaviour cancels', status.append)
    assert not fe.cancel_say('k2'), 'k2 is over'
    assert fe.cancel_say('k3')
    assert status == ['spoken', 'interrupted', 'cancelled']
    after = [fe.step(pcm) for pcm in audio(12, seed=3)]
    if flavour == 'kame':  # nothing more of it is fed to the front-end
        cancelled = set(models.tokenizer.encode('an announcement a behaviour cancels'))
        assert not {o.oracle_token for o in after} & cancelled
    else:
        assert 'behaviour cancels' not in ''.join(o.text for o in after)
    fe.stop()
