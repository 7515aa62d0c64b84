# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The robot engine: sherpa-onnx's streaming OnlineRecognizer with endpoint detection.

A true streaming model (zipformer transducer, or CTC) decodes each 80 ms
frame as it arrives and updates its hypothesis, so partials cost nothing
extra; sherpa's endpoint rules (trailing silence after speech, maximum
length) end the utterance. Model directory layouts:

* ``transducer``: encoder*.onnx, decoder*.onnx, joiner*.onnx, tokens.txt
  (the standard English streaming zipformer; ``kame_ros_fetch_sherpa_model``);
* ``wenet_ctc`` / ``zipformer2_ctc``: one model*.onnx (or ctc*.onnx) + tokens.txt.
"""
from pathlib import Path
import time
from typing import Any, Callable

from kame_ros.audio.frames import AudioFrame, FRAME_NS, int16_to_float, SAMPLE_RATE
from kame_ros.stt.engine import Emit, MODEL_TYPES, SttConfig, SttEngine
from kame_ros.stt.errors import SttError
from kame_ros.stt.utterance import UtteranceTracker


def _one(directory: Path, pattern: str) -> str:
    found = sorted(directory.glob(pattern))
    if not found:
        raise SttError(f'{directory}: no file matches {pattern}')
    int8 = [f for f in found if 'int8' in f.name]
    return str((int8 or found)[0])


class SherpaStt(SttEngine):
    """Streaming recognition with the real sherpa-onnx runtime."""

    name = 'sherpa_onnx'

    def __init__(self, emit: Emit, model_dir: str, model_type: str = SttConfig.model_type,
                 threads: int = SttConfig.threads,
                 end_silence_s: float = SttConfig.end_silence_s,
                 max_utterance_s: float = SttConfig.max_utterance_s) -> None:
        """Configure; ``load`` builds the recognizer."""
        if model_type not in MODEL_TYPES:
            raise SttError(f'model_type must be one of {MODEL_TYPES}, got {model_type!r}')
        self.emit = emit
        self.model_dir = Path(model_dir).expanduser()
        self.model_type = model_type
        self.threads = threads
        self.end_silence_s = end_silence_s
        self.max_utterance_s = max_utterance_s
        self._tracker = UtteranceTracker()
        self.recognizer = None
        self.stream = None
        self._stream_start_ns: int | None = None
        self.speaking = False
        self.audio_seconds = 0.0
        self.compute_seconds = 0.0

    @classmethod
    def from_config(cls, emit: Emit, config: SttConfig) -> 'SherpaStt':
        """Build with the settings sherpa-onnx uses (its model directory is required)."""
        return cls(emit, config.model, config.model_type, config.threads, config.end_silence_s,
                   config.max_utterance_s)

    def load(self, progress: Callable[[str], None]) -> None:
        """Create the OnlineRecognizer from the model directory."""
        try:
            import sherpa_onnx
        except ImportError as err:
            raise SttError('sherpa-onnx is not installed (pip install sherpa-onnx)') from err
        d = self.model_dir
        if not (d / 'tokens.txt').is_file():
            raise SttError(f'{d}: not a sherpa-onnx model directory (no tokens.txt)')
        kind = self.model_type
        if kind == 'auto':
            kind = 'transducer' if list(d.glob('joiner*.onnx')) else 'wenet_ctc'
        common = {'tokens': str(d / 'tokens.txt'), 'num_threads': self.threads,
                  'enable_endpoint_detection': True,
                  'rule1_min_trailing_silence': max(2.4, self.end_silence_s),
                  'rule2_min_trailing_silence': self.end_silence_s,
                  'rule3_min_utterance_length': self.max_utterance_s}
        progress(f'loading sherpa-onnx {kind} model from {d}')
        try:
            if kind == 'transducer':
                self.recognizer = sherpa_onnx.OnlineRecognizer.from_transducer(
                    encoder=_one(d, 'encoder*.onnx'), decoder=_one(d, 'decoder*.onnx'),
                    joiner=_one(d, 'joiner*.onnx'), **common)
            elif kind == 'wenet_ctc':
                self.recognizer = sherpa_onnx.OnlineRecognizer.from_wenet_ctc(
                    model=_one(d, '*.onnx'), **common)
            else:
                self.recognizer = sherpa_onnx.OnlineRecognizer.from_zipformer2_ctc(
                    model=_one(d, '*.onnx'), **common)
        except (RuntimeError, ValueError) as err:
            raise SttError(f'sherpa-onnx cannot load {d}: {err}') from err
        self.stream = self.recognizer.create_stream()
        progress('ready')

    def accept(self, frame: AudioFrame) -> bool:
        """Decode one frame; emits partials/finals; returns whether speech is ongoing."""
        if self._stream_start_ns is None:
            self._stream_start_ns = frame.stamp_ns
        t0 = time.perf_counter()
        self.stream.accept_waveform(SAMPLE_RATE, int16_to_float(frame.samples))
        while self.recognizer.is_ready(self.stream):
            self.recognizer.decode_stream(self.stream)
        self.compute_seconds += time.perf_counter() - t0
        self.audio_seconds += len(frame.samples) / SAMPLE_RATE
        text = self.recognizer.get_result(self.stream).strip()
        end_ns = frame.stamp_ns + FRAME_NS
        if text:
            if self._tracker.start_ns is None:
                # Token times are seconds since the last reset: the utterance starts at the first.
                first = (self.recognizer.get_result_all(self.stream).timestamps or [0.0])[0]
                self._tracker.begin(self._stream_start_ns + int(first * 1e9))
            event = self._tracker.partial(text, end_ns)
            if event is not None:
                self.emit(event)
        if self.recognizer.is_endpoint(self.stream):
            event = self._tracker.final(text, end_ns)
            if event is not None:
                self.emit(event)
            self.recognizer.reset(self.stream)
            self._stream_start_ns = None
            self.speaking = False
        else:
            self.speaking = bool(text)
        return self.speaking

    def discard(self, since_ns: int) -> bool:
        """Drop the utterance under way if it began at ``since_ns`` or later (see SttEngine)."""
        start = self._tracker.start_ns
        if start is None or start < since_ns:
            return False
        self._tracker.final('', start)  # closed with no words
        self.stream = self.recognizer.create_stream()  # a reset keeps the audio not yet decoded
        self._stream_start_ns = None
        self.speaking = False
        return True

    def stats(self) -> dict[str, Any]:
        """Return the real-time factor of decoding."""
        return {'rtf': round(self.compute_seconds / max(self.audio_seconds, 1e-9), 3)}

    def close(self) -> None:
        """Nothing to stop: decoding happens in the caller's thread."""
