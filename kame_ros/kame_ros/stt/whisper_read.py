# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
One Whisper read of one utterance, on a window fitted to it instead of Whisper's 30 s.

faster-whisper pads every read to Whisper's 30 s window, and the encoder's
cost is the window's, not the speech's: on this 2-core machine a 2 s
question costs 0.43 s of encoder in a 0.54 s read, a 0.9 s partial 0.60 s.
CTranslate2's Whisper encoder takes a shorter window (as whisper.cpp's
``audio_ctx`` does), so a read here hears the speech and ``PAD_S`` of
silence after it: 0.24 s for either. Whisper pads with silence too (zeros,
normalised together with the speech), so the padding is done the same way,
only shorter. The decode is capped at ``TOKENS_PER_S`` per second of audio:
with a short window Whisper tiny sometimes repeats the sentence until it
runs out of tokens.

Measured on the 56 knowledge-benchmark questions in three voices (168
reads, docs/latency.md "The Whisper window"): word error 9.0% with 13 s of
padding, 11.6% with faster-whisper's 30 s read; 9.2% with 8 s, 10.4% with
5 s, 12.8% with 3 s. 8 s misread the hearing benchmark's espeak-us "What is
the capital of France?" ("... capital and France?"), 13 s did not.

The features and tokenizer are faster-whisper's, the model call is
CTranslate2's ``Whisper.generate``; only the window length differs from
``WhisperModel.transcribe``.
"""
import numpy as np

RATE = 16000  # Whisper's input rate
PAD_S = 13.0  # silence read after the speech
WINDOW_S = 30.0  # Whisper's own window: the longest a read can be
TOKENS_PER_S = 6  # decode cap per second of audio (speech is ~3-4 tokens/s)
NO_SPEECH = 0.6  # a read Whisper itself calls non-speech above this says nothing


class WhisperReader:
    """Reads utterances with a loaded faster-whisper ``WhisperModel`` (English)."""

    def __init__(self, model) -> None:
        """Take the model's feature extractor, tokenizer and CTranslate2 Whisper."""
        from ctranslate2 import StorageView
        from faster_whisper.tokenizer import Tokenizer
        self.model = model
        self._storage = StorageView
        self.tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual,
                                   task='transcribe', language='en')
        self.prompt = [*self.tokenizer.sot_sequence, self.tokenizer.no_timestamps]

    def read(self, audio: np.ndarray) -> str:
        """Return the words in ``audio`` (float, 16 kHz): '' for non-speech."""
        window = int(WINDOW_S * RATE)
        audio = np.asarray(audio, np.float32)[-window:]
        padded = np.concatenate([audio, np.zeros(int(PAD_S * RATE), np.float32)])[:window]
        extractor = self.model.feature_extractor
        features = extractor(padded)[:, :extractor.nb_max_frames]
        result = self.model.model.generate(
            self._storage.from_array(np.ascontiguousarray(features[None])),
            [self.prompt], beam_size=1, max_length=int(8 + TOKENS_PER_S * len(audio) / RATE),
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=[-1])[0]
        if result.no_speech_prob >= NO_SPEECH:
            return ''
        return ' '.join(self.tokenizer.decode(result.sequences_ids[0]).split())
