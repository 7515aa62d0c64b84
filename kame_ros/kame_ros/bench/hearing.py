# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
How well the agent hears in a real room: word errors and end of turn, per condition and front end.

Spoken questions (hibari and espeak-ng voices) are mixed with white noise,
babble (six other talkers) and a fan-like hum at 20/10/5/0 dB SNR, or
with the agent's own voice coming back through a simulated room (delay,
reverberation, gain) while the user speaks over it. Each mixture runs
through an audio front end (none, WebRTC's AEC3 / NS / AGC2 from
``pywebrtc-audio``, RNNoise, DeepFilterNet3) and the real streaming STT
(Silero VAD + Whisper), fed as a replay: after each 80 ms frame the
benchmark waits until the engine is idle, so the words do not depend on
this machine's load. End of turn is counted in the audio's time (the
frame at which the final came, after the question's last loud sample);
the Whisper compute per utterance on this machine is reported beside it.
The echo stream opens with the agent talking alone (its reply, twice): a
final there, or any final that holds none of the user's speech, is the
agent hearing itself.

The command is ``hearing_cli.py``'s; the echo stream with a speaker that
reacts to the user (barge-in) is ``barge_in.py``'s.
"""
from dataclasses import dataclass, field
from pathlib import Path
import time
from typing import Callable

import numpy as np
from scipy.signal import fftconvolve

from kame_ros.audio.frames import AudioFrame, FRAME_NS, FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE
from kame_ros.audio.mic_processing import MicProcessingConfig, MicProcessor
from kame_ros.audio.speaker_reference import SpeakerReference
from kame_ros.bench.denoisers import DENOISERS
from kame_ros.bench.knowledge import espeak_voice
from kame_ros.bench.knowledge_set import QUESTIONS
from kame_ros.stt.whisper_engine import WhisperStt
from kame_ros.tools.evaluate import hibari_voice

LEAD_S, TRAIL_S = 1.0, 2.5  # around each question: time for the VAD, then for the turn to end
LOUD = 300  # int16: a sample louder than this is the voice, not its trailing silence
SNRS = (20, 10, 5, 0)
GROUPS = ('clean', 'white', 'babble', 'hum', 'echo')
BASE_CONDITIONS = ('clean', 'white 10 dB', 'babble 10 dB', 'hum 10 dB', 'echo (barge-in)')
VOICES = {'hibari': hibari_voice, 'espeak-us': lambda: espeak_voice('en-us'),
          'espeak-scotland': lambda: espeak_voice('en-gb-scotland')}
AGENT_REPLY = ('The capital of France is Paris, a city on the Seine with about two million '
               'people, famous for its museums and its food.')
BABBLE = ['The meeting has been moved to Thursday afternoon.', 'Could you pass me the salt?',
          'I think the train leaves at half past nine.', 'We should paint the kitchen blue.',
          'My sister lives near the harbour.', 'The results will be ready next week.']


@dataclass
class Clip:
    """One spoken question inside a stream: where its speech is, what was said."""

    text: str
    voice: str
    start_s: float
    end_s: float


@dataclass
class Stream:
    """One condition: what the mic hears, what the speaker plays, where the questions are."""

    mic: np.ndarray
    speaker: np.ndarray | None
    layout: list[Clip]
    # Echo conditions, for a speaker that reacts (bench/barge_in.py): the mic without the echo,
    # the room's response from speaker to mic (scaled), the replies' planned starts (samples).
    speech: np.ndarray | None = None
    response: np.ndarray | None = None
    plan: list[tuple[int, np.ndarray]] = field(default_factory=list)


@dataclass
class Result:
    """One row x condition: per-clip word errors, turn ends, and the echo heard as the user."""

    errors: int = 0
    words: int = 0
    turn_s: list[float] = field(default_factory=list)
    missed: int = 0  # questions with no final at all
    own_words: int = 0  # finals with none of the user's speech in them (echo rows)
    stt_s_per_utterance: float = 0.0
    frontend_ms: float = 0.0  # the front end's compute per 80 ms frame, median

    @property
    def wer(self) -> float:
        """Return the word error rate over the condition's questions."""
        return self.errors / max(self.words, 1)


def white(n: int, rng: np.random.Generator) -> np.ndarray:
    """Return white noise."""
    return rng.standard_normal(n)


def hum(n: int, rng: np.random.Generator) -> np.ndarray:
    """Return a fan: mains hum and its harmonics over low, rumbling broadband noise."""
    t = np.arange(n) / SAMPLE_RATE
    tones = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 6.3)) / k
                for k, f in enumerate((50, 100, 150, 200, 300), start=1))
    rumble = fftconvolve(rng.standard_normal(n), np.hanning(48) / 24, mode='same')
    return tones + 2.0 * rumble


def babble(n: int, rng: np.random.Generator, talkers: list[np.ndarray]) -> np.ndarray:
    """Return six other talkers at once, each looped from its own offset."""
    out = np.zeros(n)
    for clip in talkers:
        x = np.tile(clip.astype(np.float64), n // len(clip) + 2)
        start = int(rng.integers(len(clip)))
        out += x[start:start + n]
    return out


def room_response(rng: np.random.Generator, delay_s: float = 0.03, rt60_s: float = 0.3,
                  direct_to_reverberant_db: float = 6.0) -> np.ndarray:
    """Return a room's response from speaker to microphone: a direct path, then reflections."""
    n = int(rt60_s * SAMPLE_RATE)
    tail = rng.standard_normal(n) * np.exp(-6.9 * np.arange(n) / n)
    tail *= np.sqrt(10 ** (-direct_to_reverberant_db / 10) / np.sum(tail[1:] ** 2))
    tail[0] = 1.0  # the direct path
    return np.concatenate([np.zeros(int(delay_s * SAMPLE_RATE)), tail])


def room(far: np.ndarray, rng: np.random.Generator, delay_s: float = 0.03,
         rt60_s: float = 0.3, gain: float = 1.0, direct_to_reverberant_db: float = 6.0
         ) -> np.ndarray:
    """Return the speaker's sound at the microphone through a room."""
    response = room_response(rng, delay_s, rt60_s, direct_to_reverberant_db)
    return gain * fftconvolve(far.astype(np.float64), response)[:len(far)]


def power(x: np.ndarray) -> float:
    """Return the mean square of ``x``."""
    return float(np.mean(np.square(x, dtype=np.float64)))


def question_stream(clips: list[tuple[str, str, np.ndarray]]) -> tuple[np.ndarray, list[Clip]]:
    """Lay the questions out one after another, with quiet before and after each."""
    pieces, layout, t = [], [], 0.0
    for text, voice, audio in clips:
        lead, trail = np.zeros(int(LEAD_S * SAMPLE_RATE)), np.zeros(int(TRAIL_S * SAMPLE_RATE))
        pieces += [lead, audio.astype(np.float64), trail]
        loud = np.flatnonzero(np.abs(audio) > LOUD)  # the voice's own silence is not speech
        layout.append(Clip(text, voice, t + LEAD_S + loud[0] / SAMPLE_RATE,
                           t + LEAD_S + (loud[-1] + 1) / SAMPLE_RATE))
        t += LEAD_S + (len(audio) + len(trail)) / SAMPLE_RATE
    return np.concatenate(pieces), layout


def with_noise(speech: np.ndarray, layout: list[Clip], noise: np.ndarray,
               snr_db: float) -> np.ndarray:
    """Add ``noise`` scaled so the questions' speech is ``snr_db`` above it."""
    spoken = np.concatenate([speech[int(c.start_s * SAMPLE_RATE):int(c.end_s * SAMPLE_RATE)]
                             for c in layout])
    scale = np.sqrt(power(spoken) / (power(noise) * 10 ** (snr_db / 10)))
    return speech + scale * noise


def with_echo(speech: np.ndarray, layout: list[Clip], reply: np.ndarray,
              rng: np.random.Generator) -> Stream:
    """Return the agent talking alone (its reply, twice), then over each question (barge-in)."""
    gap = np.zeros(SAMPLE_RATE)
    alone = np.concatenate([reply, gap, reply, gap, gap])
    shift = len(alone) / SAMPLE_RATE
    layout = [Clip(c.text, c.voice, c.start_s + shift, c.end_s + shift) for c in layout]
    speech = np.concatenate([np.zeros(len(alone)), speech])
    speaker = np.zeros(len(speech))
    plan = [(0, reply), (len(reply) + len(gap), reply)]
    for clip in layout:
        start = int((clip.start_s - LEAD_S * 0.8) * SAMPLE_RATE)
        plan.append((start, reply[:len(speech) - start]))
    for start, audio in plan:
        speaker[start:start + len(audio)] = audio
    response = room_response(rng)
    echo = fftconvolve(speaker, response)[:len(speaker)]
    spoken = np.concatenate([speech[int(c.start_s * SAMPLE_RATE):int(c.end_s * SAMPLE_RATE)]
                             for c in layout])
    # Normal volume: the agent's voice reaches the mic as loud as the user's (0 dB).
    scale = np.sqrt(power(spoken) / max(power(echo[speaker != 0]), 1e-9))
    return Stream(speech + scale * echo, speaker, layout, speech, scale * response, plan)


def to_int16(x: np.ndarray) -> np.ndarray:
    """Return samples as int16, clipped like a sound card."""
    return np.clip(np.rint(x), -32768, 32767).astype(np.int16)


def word_errors(reference: str, heard: str) -> tuple[int, int]:
    """Return (substitutions + deletions + insertions, reference words), by jiwer."""
    import jiwer

    from kame_ros.words import words
    ref, hyp = ' '.join(words(reference)), ' '.join(words(heard))
    if not hyp:
        return len(ref.split()), len(ref.split())
    out = jiwer.process_words(ref, hyp)
    return out.substitutions + out.deletions + out.insertions, len(ref.split())


def hear(processor, stream: Stream, model: str) -> Result:
    """Run one stream through the front end and the STT as a replay; score every question."""
    heard: list[tuple[float, object]] = []
    fed = [0]
    stt = WhisperStt(lambda event: heard.append((fed[0] * FRAME_SECONDS, event)), model)
    stt.load(lambda step: None)
    mic16 = to_int16(stream.mic)
    far16 = to_int16(stream.speaker) if stream.speaker is not None else None
    costs = []
    for k in range(len(mic16) // FRAME_SAMPLES):
        span = slice(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES)
        frame = AudioFrame(k, k * FRAME_NS, mic16[span])
        if processor is not None:
            if far16 is not None:
                processor.reference(AudioFrame(k, k * FRAME_NS, far16[span]))
            t0 = time.perf_counter()
            frame = processor.process(frame)
            costs.append(time.perf_counter() - t0)
            found = processor.take_echo_found() if isinstance(processor, MicProcessor) else None
            if found is not None:  # as the stt node does
                stt.discard(found)
        stt.accept(frame)
        fed[0] = k + 1
        while not stt.idle:
            time.sleep(0.001)
    stt.close()
    return score(heard, stream.layout, stt.compute_seconds / len(stream.layout),
                 float(np.median(costs)) * 1e3 if costs else 0.0)


def score(heard: list, layout: list[Clip], stt_s: float, frontend_ms: float) -> Result:
    """Word errors and turn end per question; finals that hold no question are counted."""
    finals = [(t, e) for t, e in heard if e.final and e.text.strip()]
    result = Result(stt_s_per_utterance=stt_s, frontend_ms=frontend_ms)
    used = set()
    for clip in layout:
        mine = [(i, t, e) for i, (t, e) in enumerate(finals)
                if e.audio_end_ns / 1e9 > clip.start_s - 0.2
                and e.audio_start_ns / 1e9 < clip.end_s + 0.2]
        used.update(i for i, _, _ in mine)
        errors, n = word_errors(clip.text, ' '.join(e.text for _, _, e in mine))
        result.errors += errors
        result.words += n
        if mine:
            result.turn_s.append(mine[-1][1] - clip.end_s)
        else:
            result.missed += 1
    result.own_words = len(finals) - len(used)
    return result


def noise_rows() -> dict[str, Callable[[], object]]:
    """Return the front ends weighed against noise: none, WebRTC's, and the two neural ones."""
    off = {'echo_cancel': False}
    return {'none': lambda: None,
            'webrtc ns': lambda: MicProcessor(MicProcessingConfig(**off,
                                                                  noise_suppression='webrtc')),
            'webrtc ns+agc': lambda: MicProcessor(MicProcessingConfig(
                **off, noise_suppression='webrtc', gain_control=True)),
            **DENOISERS}


def echo_rows() -> dict[str, Callable[[], object]]:
    """Return the echo cancelling weighed: none, WebRTC's AEC3 alone (the default adds NS)."""
    return {'none': lambda: None,
            'webrtc aec': lambda: MicProcessor(MicProcessingConfig(noise_suppression='off'))}


def default_front_end() -> MicProcessor:
    """Return the stt node's own front end, as its parameters' defaults build it."""
    return MicProcessor(MicProcessingConfig())


class OneWebrtcProcessor:
    """AEC3 and NS in one WebRTC processor: the default's stages as first built, compared."""

    def __init__(self) -> None:
        """Build one processor with both stages."""
        from pywebrtc_audio import AudioProcessor
        self.speaker = SpeakerReference()
        self._apm = AudioProcessor(sample_rate=SAMPLE_RATE, echo_cancellation=True,
                                   noise_suppression=True, ns_level=1)

    def reference(self, frame: AudioFrame) -> None:
        """Take one frame the speaker plays."""
        self.speaker.add(frame)

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the frame through both stages at once."""
        return AudioFrame(frame.seq, frame.stamp_ns,
                          self._apm.process(frame.samples, self.speaker.window(frame.stamp_ns)))


def all_rows() -> dict[str, Callable[[], object]]:
    """Return the front ends run on every condition: the default, and its one-processor twin."""
    return {'webrtc aec+ns, one processor': OneWebrtcProcessor, 'default': default_front_end}


ROWS = ('none', 'webrtc ns', 'webrtc ns+agc', *DENOISERS, 'webrtc aec',
        'webrtc aec+ns, one processor', 'default')


def conditions(speech: np.ndarray, layout: list[Clip], talkers: list[np.ndarray],
               reply: np.ndarray) -> dict[str, Stream]:
    """Return every condition's stream."""
    rng = np.random.default_rng(0)
    n = len(speech)
    noises = {'white': white(n, rng), 'babble': babble(n, rng, talkers), 'hum': hum(n, rng)}
    out = {'clean': Stream(speech, None, layout)}
    for kind, noise in noises.items():
        for snr in SNRS:
            out[f'{kind} {snr} dB'] = Stream(with_noise(speech, layout, noise, snr), None, layout)
    out['echo (barge-in)'] = with_echo(speech, layout, reply, rng)
    return out


def synthesize(count: int) -> tuple[np.ndarray, list[Clip], list[np.ndarray], np.ndarray]:
    """Speak the first ``count`` held-out questions in every voice; babble and the reply too."""
    speakers = {name: make() for name, make in VOICES.items()}
    clips = [(q.text, name, speak(q.text)) for q in QUESTIONS[:count]
             for name, speak in speakers.items()]
    speech, layout = question_stream(clips)
    others = [espeak_voice(v)(text) for v, text in
              zip(('en-us', 'en-gb', 'en-us+f3', 'en-gb+m3', 'en-us+m5', 'en-gb+f4'), BABBLE)]
    return speech, layout, others, speakers['hibari'](AGENT_REPLY)


def run_rows(rows: dict[str, Callable[[], object]], streams: dict[str, Stream],
             model: str, label: str) -> dict[tuple[str, str], Result]:
    """Run every front end in ``rows`` over every stream; print progress."""
    results = {}
    for name, make in rows.items():
        for condition, stream in streams.items():
            t0 = time.perf_counter()
            results[(f'{name}{label}', condition)] = hear(make(), stream, model)
            r = results[(f'{name}{label}', condition)]
            print(f'[bench] {name}{label} / {condition}: WER {r.wer:.0%}, '
                  f'{time.perf_counter() - t0:.0f} s', flush=True)
    return results


def report(results: dict[tuple[str, str], Result]) -> str:
    """Markdown: WER per condition, then turn end, compute and echo heard per row."""
    rows = list(dict.fromkeys(r for r, _ in results))
    conds = list(dict.fromkeys(c for _, c in results))
    lines = ['| front end | ' + ' | '.join(conds) + ' |', '|---' * (len(conds) + 1) + '|']
    for row in rows:
        cells = [f'{results[(row, c)].wer:.0%}' if (row, c) in results else '' for c in conds]
        lines.append(f'| {row} | ' + ' | '.join(cells) + ' |')
    lines += ['', '| front end | end of turn p50 s | p95 s | questions with no final | '
              'finals with no user speech (echo) | Whisper s per question | '
              'front end ms per 80 ms frame |', '|---|---|---|---|---|---|---|']
    for row in rows:
        mine = [r for (name, _), r in results.items() if name == row]
        turns = [t for r in mine for t in r.turn_s]
        echo = [r.own_words for (name, c), r in results.items() if name == row and 'echo' in c]
        lines.append(f'| {row} | {np.median(turns):.2f} | {np.percentile(turns, 95):.2f} | '
                     f'{sum(r.missed for r in mine)} | {sum(echo) if echo else ""} | '
                     f'{np.mean([r.stt_s_per_utterance for r in mine]):.2f} | '
                     f'{np.median([r.frontend_ms for r in mine]):.2f} |')
    return '\n'.join(lines)


def plot(results: dict[tuple[str, str], Result], path: Path) -> None:
    """Word error rate against SNR per noise, one line per front end; the echo row as bars."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    rows = list(dict.fromkeys(r for r, _ in results))
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.8), sharey=True)
    for ax, kind in zip(axes, ('white', 'babble', 'hum')):
        for row in rows:
            points = [(snr, results[(row, f'{kind} {snr} dB')].wer * 100) for snr in SNRS
                      if (row, f'{kind} {snr} dB') in results]
            if points:
                ax.plot(*zip(*points), marker='o', label=row)
        ax.set_title(kind)
        ax.set_xlabel('SNR, dB')
        ax.invert_xaxis()
    axes[0].set_ylabel('word error rate, %')
    if axes[0].lines:
        axes[0].legend(fontsize=7)
    echo = [(row, results[(row, 'echo (barge-in)')].wer * 100) for row in rows
            if (row, 'echo (barge-in)') in results]
    axes[3].barh([r for r, _ in echo], [w for _, w in echo])
    axes[3].set_title('agent speaking (barge-in)')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
