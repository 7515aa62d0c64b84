# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""The audio front end before the STT: WebRTC's stages, the echo reference's timing, settings."""
import threading
import time

import numpy as np
import pytest

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES, FRAME_SECONDS
from kame_ros.audio.mic_processing import MicProcessingConfig, MicProcessor, REFERENCE_WAIT_S
from kame_ros.bench.hearing import (default_front_end, hear, question_stream, room, Stream,
                                    white, with_noise)
from kame_ros.bench.knowledge import espeak_voice
from kame_ros.stt.engine import hear as hear_frame
from kame_ros.stt.whisper_engine import WhisperStt
from polling import wait_for
from speech_fixtures import hibari_speech


def run(processor: MicProcessor, mic: np.ndarray, speaker: np.ndarray | None = None,
        reference_after_s: float | None = None):
    """Feed both streams; ``reference_after_s``: at real time, each speaker frame that late."""
    out, late = [], []
    t0 = time.monotonic()
    for k in range(len(mic) // FRAME_SAMPLES):
        if reference_after_s is not None:
            time.sleep(max(0.0, t0 + k * FRAME_SECONDS - time.monotonic()))
        span = slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
        if speaker is not None:
            ref = AudioFrame(k, k * FRAME_NS, speaker[span])
            if reference_after_s is None:
                processor.reference(ref)
            else:  # a separate subscription, a moment behind the microphone's
                late.append(threading.Timer(reference_after_s, processor.reference, (ref,)))
                late[-1].start()
        out.append(processor.process(AudioFrame(k, k * FRAME_NS, mic[span])).samples)
    for timer in late:
        timer.join()
    return np.concatenate(out).astype(np.float64)


def removed_db(echo: np.ndarray, out: np.ndarray, span: slice) -> float:
    return 10 * np.log10(np.mean(echo[span].astype(np.float64) ** 2) / np.mean(out[span] ** 2))


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


def test_aec_follows_a_reverberant_room_and_keeps_the_user(reverberant_echo):
    speaker, mic, echo, user_at, user_n = reverberant_echo
    out = run(MicProcessor(MicProcessingConfig(noise_suppression='off')), mic, speaker)
    settled = slice(3 * 24000, user_at - 12000)  # after AEC3 converged, before the user
    assert removed_db(echo, out, settled) > 30  # measured: 60 dB (one delay + gain: 9 dB)
    # Raw until the path is found (within 1.5 s, next test), then cancelled at once.
    assert removed_db(echo, out, slice(36000, 60000)) > 15, 'from the second after'
    user = slice(user_at, user_at + user_n)
    assert np.std(out[user]) > 0.3 * np.std(mic[user].astype(np.float64)), 'the user passes'


def test_a_reference_that_comes_late_is_waited_for(reverberant_echo):
    """The speaker frame arriving just after the microphone's is awaited: the echo goes."""
    speaker, mic, echo, _, _ = reverberant_echo
    processor = MicProcessor(MicProcessingConfig(noise_suppression='off'))
    n = 5 * 24000  # five seconds at real time
    out = run(processor, mic[:n], speaker[:n], reference_after_s=0.015)
    # measured: 0 dB removed when the frame went on without its reference
    assert removed_db(echo, out, slice(3 * 24000, n)) > 30
    assert processor.stats()['echo_reference_late'] == 0


def test_a_reference_later_than_the_bound_is_counted_not_awaited(reverberant_echo):
    speaker, mic, _, _, _ = reverberant_echo
    processor = MicProcessor(MicProcessingConfig(noise_suppression='off'))
    frames = 25
    run(processor, mic[:frames * FRAME_SAMPLES], speaker[:frames * FRAME_SAMPLES],
        reference_after_s=REFERENCE_WAIT_S + 0.015)
    assert processor.stats()['echo_reference_late'] >= frames - 2


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


@pytest.mark.parametrize('echo_cancel', [True, False])
def test_every_frame_is_timed_for_diagnostics(echo_cancel):
    processor = MicProcessor(MicProcessingConfig(echo_cancel=echo_cancel,
                                                 noise_suppression='webrtc', gain_control=True))
    run(processor, np.zeros(FRAME_SAMPLES * 5, np.int16), np.zeros(FRAME_SAMPLES * 5, np.int16))
    stats = processor.stats()
    assert stats['mic_over_budget'] == 0 and 0 < stats['mic_ms_max'] < 80
    assert ('echo_reference_late' in stats) == echo_cancel


@pytest.mark.parametrize('settings,reason', [
    ({'noise_suppression': 'rnnoise'}, 'noise_suppression must be one of off, webrtc'),
    ({'noise_level': 4}, r'noise_level must be in \[0, 3\]'),
    ({'noise_level': -1}, r'noise_level must be in \[0, 3\]'),
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


def test_the_default_hears_a_noisy_question_that_whisper_alone_mishears():
    """White noise at 10 dB SNR: the table's 36% -> 17% (docs/measurements.md), one question."""
    text = 'What is the capital of France?'
    speech, layout = question_stream([(text, 'espeak-us', espeak_voice('en-us')(text))])
    noisy = Stream(with_noise(speech, layout, white(len(speech), np.random.default_rng(0)), 10),
                   None, layout)
    alone = hear(None, noisy, '')
    default = hear(default_front_end(), noisy, '')
    assert alone.errors > 0, 'Whisper tiny.en alone mishears it (measured: 1 of 6 words)'
    assert default.errors == 0 and not default.missed, 'WebRTC NS in front: every word'


def test_an_echo_path_is_heard_and_the_echo_cancelled(reverberant_echo):
    """A room between speaker and microphone: heard at once, and still heard under a user."""
    speaker, mic, echo, user_at, user_n = reverberant_echo
    processor = MicProcessor(MicProcessingConfig(noise_suppression='off'))
    states = []
    for k in range(len(mic) // FRAME_SAMPLES):
        span = slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
        processor.reference(AudioFrame(k, k * FRAME_NS, speaker[span]))
        processor.process(AudioFrame(k, k * FRAME_NS, mic[span]))
        states.append(processor.echo_path.heard)
    first = states.index(True)
    assert first * FRAME_SECONDS <= 1.5, 'heard within the first second and a half'
    assert all(states[first:]), 'a user talking over the echo does not hide it'
    assert processor.stats()['echo_path'] == 'heard'
    # Frames passed raw while the speaker played from the start: the STT is told from when.
    assert processor.echo_found == 1 and 0 <= processor.take_echo_found() <= 0.4e9
    assert processor.take_echo_found() is None, 'told once'


@pytest.mark.parametrize('lead_s,delay_s,gain', [(0.0, 0.04, 0.5), (1.0, 0.15, 0.5),
                                                 (1.0, 0.25, 0.2)])
def test_the_robot_is_not_heard_before_its_echo_path_is_found(lead_s, delay_s, gain):
    """
    Issue 41: the microphone passes raw until the echo path is found, and the robot is not heard.

    A robot greets as it starts (``lead_s`` 0), or talks a second in: the
    path is found within a few frames of the speaker's first sound, and
    until then the user is not said to speak; what leaked raw opens no
    utterance (the frames kept before a VAD start are dropped too), so no
    final: the robot does not answer itself.
    """
    agent = hibari_speech('Okay. The capital of France is Paris, a large city on the Seine.')
    speaker = np.concatenate([np.zeros(int(lead_s * 24000)), agent,
                              np.zeros(3 * 24000)]).astype(np.float64)
    n = len(speaker) // FRAME_SAMPLES * FRAME_SAMPLES
    echo = room(speaker, np.random.default_rng(2), delay_s=delay_s, gain=gain)
    mic = int16(echo[:n] + white(n, np.random.default_rng(4)) * 30)
    speaker = int16(speaker[:n])
    processor = default_front_end()
    finals, speaking, found = [], [], []
    stt = WhisperStt(lambda event: finals.append(event.text) if event.final else None)
    stt.load(lambda step: None)
    try:
        for k in range(n // FRAME_SAMPLES):
            span = slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
            processor.reference(AudioFrame(k, k * FRAME_NS, speaker[span]))
            speaking.append(hear_frame(processor, stt, AudioFrame(k, k * FRAME_NS, mic[span])))
            found.append(processor.echo_path.heard)
            assert wait_for(lambda: stt.idle, 10)
    finally:
        stt.close()
    onset = np.flatnonzero(np.abs(speaker) > 300)[0] / 24000
    assert processor.echo_found == 1, processor.stats()
    assert (found.index(True) + 1) * FRAME_SECONDS - onset <= 0.4, 'found within 0.4 s'

    assert finals == [] and not any(speaking), (finals, speaking.index(True))


@pytest.mark.parametrize('mic_kind,user_first', [
    ('user', False), ('user', True), ('silence', False), ('noise', False)])
def test_no_echo_path_passes_the_user_over_the_agent_untouched(mic_kind, user_first):
    """
    The speaker plays but the microphone never hears it (a file, a bag, a headset).

    The microphone passes as it came, also before anything is decided (the
    user talking over the agent's first words: ``user_first``): AEC3's
    output, with nothing to cancel, had lowered the user talking over the agent.
    """
    rng = np.random.default_rng(3)
    agent = hibari_speech('The capital of France is Paris, a large city on the river Seine, '
                          'famous for its museums, its food and its long history.')
    user = hibari_speech('No, stop, what is the capital of Japan?')
    n = len(agent) // FRAME_SAMPLES * FRAME_SAMPLES
    mic = {'user': np.zeros(n), 'silence': np.zeros(n),
           'noise': white(n, rng) * 200}[mic_kind]
    user_at = 4800 if user_first else n - len(user) - 4800
    if mic_kind == 'user':
        mic[user_at:user_at + len(user)] += user
    mic = int16(mic)
    processor = MicProcessor(MicProcessingConfig(noise_suppression='off'))
    out = run(processor, mic, agent[:n])
    decided = processor.echo_path
    assert decided.heard is False, decided.score
    assert processor.stats()['echo_path'] == 'not heard'
    over = slice(user_at, user_at + len(user))
    np.testing.assert_array_equal(out[over], mic[over].astype(np.float64))
