# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Is the user done? Smart Turn v3.2 (pipecat-ai's end-of-turn model) on the turn's audio.

Silence alone cannot tell "What is the capital of ... France?" from "What
is the capital of France?": both pause. Smart Turn hears the words and the
prosody of the last 8 s of the turn (a Whisper-tiny encoder with a
classifier head, trained on complete and cut-off turns) and returns the
probability that the turn is complete. The voice-agent frameworks run it
when the VAD hears a short pause (pipecat: 0.2 s): complete ends the turn
at once; incomplete waits for more speech or a long silence.

Inputs as the model was trained: 16 kHz mono float, the last 8 s (zeros
before a shorter turn), Whisper's 80-bin log-mel features normalised per
utterance, computed by ``transformers``' WhisperFeatureExtractor. The model
file is pinned (``kame_ros.models``, carried by the ``pipecat-ai`` wheel).
"""
import numpy as np

from kame_ros.models import model_file

MODEL = 'smart-turn-v3.2'
RATE = 16000
WINDOW_S = 8.0  # the model hears the turn's last 8 s
COMPLETE = 0.5  # the model's own decision threshold (pipecat's)


class SmartTurn:
    """The end-of-turn model: ``probability(audio)`` that the turn in ``audio`` is complete."""

    def __init__(self, threads: int = 1) -> None:
        """Open the pinned model (ModelError if the file is missing or altered)."""
        import onnxruntime as ort
        from transformers import WhisperFeatureExtractor
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry('session.intra_op.allow_spinning', '0')
        self.session = ort.InferenceSession(str(model_file(MODEL)), options,
                                            providers=['CPUExecutionProvider'])
        self.features = WhisperFeatureExtractor(feature_size=80, sampling_rate=RATE)

    def probability(self, audio: np.ndarray) -> float:
        """Return P(complete) for a turn: float samples at 16 kHz, its end the latest sound."""
        window = int(WINDOW_S * RATE)
        audio = np.asarray(audio, np.float32)[-window:]
        audio = np.pad(audio, (window - len(audio), 0))
        features = self.features(audio, sampling_rate=RATE, return_tensors='np',
                                 padding='max_length', max_length=window, truncation=True,
                                 do_normalize=True).input_features.astype(np.float32)
        return float(self.session.run(None, {'input_features': features})[0].ravel()[0])

    def complete(self, audio: np.ndarray, threshold: float = COMPLETE) -> bool:
        """Tell whether the turn in ``audio`` reads as finished."""
        return self.probability(audio) > threshold
