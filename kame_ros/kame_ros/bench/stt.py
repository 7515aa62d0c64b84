# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Benchmark the embedded streaming STT in real time: RTF, word-to-partial latency, end of turn.

Neural-TTS sentences (hibari) are streamed at the microphone's pace through
the real WhisperStt (Silero VAD + Whisper tiny.en). Word end times come from
a forced reading of each clean sentence (Whisper word timestamps). Latency
of a word = time the first transcript containing it (in order) was emitted
minus the end of that word; end of turn = final emitted minus end of speech.
The baseline row is the default configuration; others change one knob.

    kame_ros_bench_stt --out out/bench_stt
"""
import argparse
from pathlib import Path
import time

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, int16_to_float, SAMPLE_RATE
from kame_ros.audio.resample import resample
from kame_ros.stt.engine import SttConfig
from kame_ros.stt.whisper_engine import WhisperStt
from kame_ros.words import words

SENTENCES = ['What is the capital of France?', 'Please bring me a glass of water.',
             'How many legs does a spider have?', 'Turn left at the end of the corridor.',
             'Can you tell me the weather for tomorrow?', 'The battery is almost empty.']
GAP_S = 1.5


def build_stream():
    """Concatenated utterances and, per word, its end time in the stream (s)."""
    from faster_whisper import WhisperModel
    from hibari import Hibari

    from kame_ros.audio.frames import float_to_int16
    from kame_ros.stt.whisper_engine import embedded_whisper_dir
    tts = Hibari()
    aligner = WhisperModel(embedded_whisper_dir(), device='cpu', compute_type='int8')
    gap = np.zeros(int(GAP_S * SAMPLE_RATE), np.int16)
    pieces, timed, t = [gap], [], GAP_S
    for sentence in SENTENCES:
        clip, _ = float_to_int16(tts(sentence, seed=0))
        segs, _ = aligner.transcribe(resample(int16_to_float(clip), SAMPLE_RATE, 16000),
                                     language='en', word_timestamps=True)
        aligned = [w for s in segs for w in s.words]
        timed.append([(words(w.word)[0], t + w.end) for w in aligned if words(w.word)])
        pieces += [clip, gap]
        t += (len(clip) + len(gap)) / SAMPLE_RATE
    return np.concatenate(pieces), timed


def run(audio: np.ndarray, timed: list, **engine_kwargs) -> dict:
    """Stream in real time through a fresh engine; measure."""
    events = []
    t0 = [0.0]
    stt = WhisperStt(lambda e: events.append((time.perf_counter() - t0[0], e)), **engine_kwargs)
    stt.load(lambda s: None)
    t0[0] = time.perf_counter()
    for k in range(len(audio) // FRAME_SAMPLES):
        stt.accept(AudioFrame(k, k * 80_000_000,
                              audio[k * FRAME_SAMPLES:(k + 1) * FRAME_SAMPLES]))
        delay = t0[0] + (k + 1) * 0.08 - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    time.sleep(3.0)
    stt.close()
    word_lat, turn_lat, partial_gaps = [], [], []
    for utt, utt_words in enumerate(timed):
        mine = [(t, e) for t, e in events if e.utterance_id == utt]
        stamps = [t for t, e in mine if not e.final]
        partial_gaps += list(np.diff(stamps))
        for i, (_, end) in enumerate(utt_words):
            prefix = [w for w, _ in utt_words[:i + 1]]
            hit = next((t for t, e in mine if words(e.text)[:i + 1] == prefix), None)
            if hit is not None:
                word_lat.append((hit - end) * 1e3)
        final = next((t for t, e in mine if e.final), None)
        if final is not None:
            turn_lat.append((final - utt_words[-1][1]) * 1e3)
    return {'rtf': stt.compute_seconds / max(stt.audio_seconds, 1e-9),
            'word_ms': word_lat, 'turn_ms': turn_lat,
            'partial_gap_ms': np.array(partial_gaps) * 1e3,
            'words': sum(len(w) for w in timed), 'finals': sum(e.final for _, e in events)}


def main(argv: list[str] | None = None) -> None:
    """Print the table and write Markdown + PNG."""
    parser = argparse.ArgumentParser(description=__doc__.strip().split('\n')[0])
    parser.add_argument('--out', type=Path, default=Path('out/bench_stt'))
    opts = parser.parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    print('[bench] synthesizing and aligning sentences...', flush=True)
    audio, timed = build_stream()
    configs = [(f'default (partials {SttConfig.partial_interval_s} s, '
                f'end {SttConfig.end_silence_s} s)', {}),
               ('end of turn after 0.4 s silence', {'end_silence_s': 0.4}),
               ('partials every 1.0 s', {'partial_interval_s': 1.0})]
    results = {}
    for name, kwargs in configs:
        print(f'[bench] {name}: {len(audio) / SAMPLE_RATE:.0f} s of audio in real time...',
              flush=True)
        results[name] = run(audio, timed, **kwargs)
    base = np.median(results[configs[0][0]]['word_ms'])
    lines = ['| run | RTF | word end -> partial p50 ms | p95 ms | p50 / baseline | '
             'partial interval p50 ms | end of turn p50 ms | p95 ms | words found | finals |',
             '|---|---|---|---|---|---|---|---|---|---|']
    for name, r in results.items():
        w, e = np.asarray(r['word_ms']), np.asarray(r['turn_ms'])
        gap = np.median(r['partial_gap_ms']) if len(r['partial_gap_ms']) else float('nan')
        lines.append(f'| {name} | {r["rtf"]:.2f} | {np.median(w):.0f} | '
                     f'{np.percentile(w, 95):.0f} | {np.median(w) / base:.2f} | {gap:.0f} | '
                     f'{np.median(e):.0f} | {np.percentile(e, 95):.0f} | '
                     f'{len(w)}/{r["words"]} | {r["finals"]}/{len(SENTENCES)} |')
    report = '\n'.join(lines)
    print('\nEmbedded STT (Silero VAD + Whisper tiny.en), real-time stream of hibari speech\n')
    print(report)
    (opts.out / 'stt.md').write_text(report + '\n')
    plot(results, opts.out / 'stt.png')
    print(f'\nwrote {opts.out}/stt.md and stt.png')


def plot(results: dict, path: Path) -> None:
    """Distributions of word-to-partial and end-of-turn latency per configuration."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    names = list(results)
    a.boxplot([results[n]['word_ms'] for n in names], vert=False, tick_labels=names)
    a.set_xlabel('word end -> first transcript containing it, ms')
    b.boxplot([results[n]['turn_ms'] for n in names], vert=False, tick_labels=[''] * len(names))
    b.set_xlabel('end of speech -> final, ms')
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == '__main__':
    main()
