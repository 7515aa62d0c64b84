# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The audio front end before the STT: WebRTC's stages, the hand-written canceller, settings."""
import numpy as np
import pytest

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES
from kame_ros.audio.mic_processing import MicProcessingConfig, MicProcessor
from kame_ros.bench.hearing import room
from polling import wait_for
from speech_fixtures import hibari_speech


def run(processor: MicProcessor, mic: np.ndarray, speaker: np.ndarray | None = None):
    out = []
    for k in range(len(mic) // FRAME_SAMPLES):
        span = slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
        if speaker is not None:
            processor.reference(AudioFrame(k, k * FRAME_NS, speaker[span]))
        out.append(processor.process(AudioFrame(k, k * FRAME_NS, mic[span])).samples)
    return np.concatenate(out).astype(np.float64)


def int16(x):
    return np.clip(np.rint(x), -32768, 32767).astype(np.int16)


@pytest.fixture(scope='module')
def reverberant_echo():
    """Play the agent's reply through a room (delay, reflections); a user speaks over it."""
    agent = hibari_speech('The capital of France is Paris, a large city on the river Seine, '
                          'famous for its museums, its food and its long history.')
    user = hibari_speech('Stop talking and come here.')
    speaker = np.concatenate([agent, agent]).astype(np.float64)
    echo = room(speaker, np.random.default_rng(1), delay_s=0.04, gain=0.5)
    mic = echo.copy()
    user_at = len(agent) + 24000
    mic[user_at:user_at + len(user)] += user
    n = len(mic) // FRAME_SAMPLES * FRAME_SAMPLES
    return int16(speaker[:n]), int16(mic[:n]), int16(echo[:n]), user_at, len(user)


def test_webrtc_aec_follows_a_reverberant_room_and_keeps_the_user(reverberant_echo):
    speaker, mic, echo, user_at, user_n = reverberant_echo
    out = run(MicProcessor(MicProcessingConfig(echo_canceller='webrtc')), mic, speaker)
    settled = slice(3 * 24000, user_at - 12000)  # after AEC3 converged, before the user
    left = 10 * np.log10(np.mean(echo[settled].astype(np.float64) ** 2)
                         / np.mean(out[settled] ** 2))
    hand = run(MicProcessor(MicProcessingConfig(echo_canceller='delay_gain')), mic, speaker)
    hand_left = 10 * np.log10(np.mean(echo[settled].astype(np.float64) ** 2)
                              / np.mean(hand[settled] ** 2))
    assert left > 30 and left > hand_left + 20, (left, hand_left)  # measured: 60 and 9 dB
    user = slice(user_at, user_at + user_n)
    assert np.std(out[user]) > 0.3 * np.std(mic[user].astype(np.float64)), 'the user passes'


def test_noise_suppression_lowers_the_noise_between_words():
    rng = np.random.default_rng(0)
    speech = hibari_speech('Please bring me a glass of water.')
    quiet = np.zeros(24000 * 2)
    clean = np.concatenate([quiet, speech, quiet])
    mic = int16(clean + rng.normal(0, 300, len(clean)))
    out = run(MicProcessor(MicProcessingConfig(echo_cancel=False, noise_suppression='webrtc',
                                               noise_level=2)), mic)
    gap = slice(24000, 2 * 24000)  # noise only, after a second to learn it
    assert np.std(out[gap]) < 0.6 * np.std(mic[gap].astype(np.float64))  # measured: 0.45
    words = slice(2 * 24000, 2 * 24000 + len(speech))
    assert np.std(out[words]) > 0.5 * np.std(speech.astype(np.float64)), 'speech passes'


@pytest.mark.parametrize('canceller', ['webrtc', 'delay_gain'])
def test_every_frame_is_timed_for_diagnostics(canceller):
    processor = MicProcessor(MicProcessingConfig(echo_canceller=canceller,
                                                 noise_suppression='webrtc', gain_control=True))
    run(processor, np.zeros(FRAME_SAMPLES * 5, np.int16), np.zeros(FRAME_SAMPLES * 5, np.int16))
    stats = processor.stats()
    assert stats['mic_over_budget'] == 0 and 0 < stats['mic_ms_max'] < 80
    assert ('echo_delay_ms' in stats) == (canceller == 'delay_gain'), 'what it found, if it ran'


@pytest.mark.parametrize('settings,reason', [
    ({'echo_canceller': 'speex'}, 'echo_canceller must be one of webrtc, delay_gain'),
    ({'noise_suppression': 'rnnoise'}, 'noise_suppression must be one of off, webrtc'),
    ({'noise_level': 4}, r'noise_level must be in \[0, 3\]'),
    ({'echo_max_delay_s': 0.0}, r'echo_max_delay_s must be in \[0.05, 2.0\]'),
])
def test_bad_settings_are_refused_with_the_reason(settings, reason):
    with pytest.raises(ValueError, match=reason):
        MicProcessor(MicProcessingConfig(**settings))


def test_the_stt_node_refuses_bad_stages_with_the_reason(processes):
    """An unknown stage fails configure with the reason; an out-of-range level ends the node."""
    unknown = processes.start('stt', '--ros-args', '-p', 'noise_suppression:=speex')
    assert wait_for(lambda: 'cannot configure the STT' in processes.log(unknown), 30)
    assert 'noise_suppression must be one of off, webrtc' in processes.log(unknown)
    level = processes.start('stt', '--ros-args', '-p', 'noise_level:=9')
    assert level.wait(timeout=30) != 0
    lines = processes.log(level).strip().splitlines()
    assert 'Traceback' not in processes.log(level) and 'noise_level' in lines[-1], lines
