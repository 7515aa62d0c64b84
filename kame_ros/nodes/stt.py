# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
stt: streaming speech-to-text for the oracle, partials while the user speaks.

A lifecycle node: the engine loads in ``configure``. Microphone frames are
queued by the subscription callback and fed to the engine on a worker
thread (bounded queue: under overload the oldest frames are dropped and
counted, the recognizer never stalls the executor). An engine that fails
at run time (an exception from the recognizer: a model's position table
exhausted by a long stream, a GPU error) is dropped and rebuilt from its
files on the worker thread, retried every ``engine_retry_s`` while that
fails; frames heard meanwhile are counted as ``engine_down`` drops. The
front-end does not depend on this node, so the robot keeps talking.
"""
import time

from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from std_msgs.msg import Bool

from kame_ros.audio.echo import EchoCanceller
from kame_ros.audio.frames import AudioFrame
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.lifecycle import (enable_autostart, Interfaces,
                                    refuse_changes_while_configured)
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.text_io import TextOutput
from kame_ros.ros.topics import (AGENT_ENABLED, MIC_AUDIO, SPEAKER_AUDIO, STT_FINAL,
                                 STT_PARTIAL, USER_SPEAKING)
from kame_ros.stt.errors import SttError
from kame_ros.stt.events import TranscriptEvent
from kame_ros.stt.sherpa_engine import MODEL_TYPES, SherpaStt
from kame_ros.stt.whisper_engine import WhisperStt
from kame_ros.wire.worker import FrameWorker

ENGINES = ('whisper', 'sherpa_onnx')
MAX_QUEUE = 50


class SttNode(LifecycleNode):
    """Publishes partial and final transcripts and the user-speaking flag."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters; they are read and the engine loads in configure."""
        super().__init__('stt', **kwargs)
        self._read_parameters()
        self.engine = None
        self.echo: EchoCanceller | None = None
        self.engine_failures = 0
        self.last_failure = ''
        self.engine_down_drops = 0
        self._retry_at: float | None = None
        self.error = ''
        self.listening = True
        self.partials = 0
        self.finals = 0
        self._speaking = False
        self._closed = False
        self.worker = FrameWorker('stt-feed', self._process, MAX_QUEUE)
        self.interfaces = Interfaces(self)
        self.audio_in: AudioInput | None = None
        self.diagnostics = Diagnostics(self, self._health)
        refuse_changes_while_configured(self, lambda: self.engine is not None)
        enable_autostart(self)

    def _read_parameters(self) -> None:
        """Declare (first call) and read every parameter."""
        self.engine_kind = declare(self, 'engine', 'whisper',
                                   'whisper (embedded, Silero VAD + tiny.en) or sherpa_onnx')
        self.model = declare(self, 'model', '',
                             'whisper: CTranslate2 model dir ("" = embedded tiny.en); '
                             'sherpa_onnx: model directory')
        self.model_type = declare(self, 'model_type', 'auto',
                                  f'sherpa_onnx model type: {", ".join(MODEL_TYPES)}')
        self.threads = declare(self, 'threads', 2, 'CPU threads for the recognizer', 1, 64)
        self.partial_interval_s = declare(self, 'partial_interval_s', 0.5,
                                          'whisper: new audio between partial reads', 0.1, 5.0)
        self.end_silence_s = declare(self, 'end_silence_s', 0.8,
                                     'Silence that ends the user turn', 0.1, 5.0)
        self.complete_silence_s = declare(
            self, 'complete_silence_s', 0.25,
            'whisper: silence that ends the turn when the transcript so far ends a sentence',
            0.1, 5.0)
        self.max_utterance_s = declare(self, 'max_utterance_s', 20.0,
                                       'Longest utterance before a forced final', 1.0, 120.0)
        self.echo_cancel = declare(self, 'echo_cancel', True,
                                   "Remove the robot's own voice (audio/speaker) from the mic")
        self.echo_max_delay_s = declare(self, 'echo_max_delay_s', 0.5,
                                        'Longest speaker-to-mic delay searched', 0.05, 2.0)
        self.engine_retry_s = declare(self, 'engine_retry_s', 2.0,
                                      'Wait between attempts to rebuild a failed engine',
                                      0.1, 60.0)

    def _build_engine(self) -> None:
        """Create and load the configured engine (raises SttError)."""
        if self.engine_kind == 'whisper':
            engine = WhisperStt(self._emit, self.model, self.partial_interval_s,
                                self.end_silence_s, self.max_utterance_s, self.threads,
                                complete_silence_s=self.complete_silence_s)
        elif self.engine_kind == 'sherpa_onnx':
            engine = SherpaStt(self._emit, self.model, self.model_type, self.threads,
                               self.end_silence_s, self.max_utterance_s)
        else:
            raise SttError(f'unknown engine {self.engine_kind!r}; one of {ENGINES}')
        engine.load(lambda step: self.get_logger().info(f'[{self.engine_kind}] {step}'))
        self.engine, self.error = engine, ''

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Read the parameters, build and load the engine, create the topics."""
        self._read_parameters()
        try:
            self._build_engine()
        except SttError as err:
            self.engine, self.error = None, str(err)
            self.get_logger().error(f'cannot configure the STT: {err}')
            return TransitionCallbackReturn.FAILURE
        self.echo = EchoCanceller(self.echo_max_delay_s) if self.echo_cancel else None
        self.partial_out = self.interfaces.track(TextOutput(self, STT_PARTIAL, lifecycle=True))
        self.final_out = self.interfaces.track(TextOutput(self, STT_FINAL, lifecycle=True))
        self.speaking_pub = self.interfaces.publisher(USER_SPEAKING)
        self.audio_in = self.interfaces.track(AudioInput(self, MIC_AUDIO, self._hear))
        self.interfaces.subscription(AGENT_ENABLED,
                                     lambda msg: setattr(self, 'listening', msg.data))
        if self.echo is not None:
            self.interfaces.track(AudioInput(self, SPEAKER_AUDIO, self.echo.reference))
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start feeding the engine."""
        result = super().on_activate(state)
        self._speaking = False
        self.speaking_pub.publish(Bool(data=False))
        self.worker.start()
        self.get_logger().info('stt active')
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop feeding the engine; audio heard while inactive is not queued."""
        self.worker.stop()
        self.worker.clear()
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Destroy the topics and release the engine."""
        self.interfaces.release()
        self.audio_in = None
        if self.engine is not None:
            self.engine.close()
        self.engine = None
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything whatever the state."""
        self.close()
        return TransitionCallbackReturn.SUCCESS

    def _hear(self, frame: AudioFrame) -> None:
        if self.worker.running:
            self.worker.put(frame)

    def _process(self, frame: AudioFrame) -> None:
        if not self.listening:  # muted through agent/enable: hear nothing
            return
        if self.echo is not None:
            frame = self.echo.process(frame)
        if self._retry_at is not None and not self._rebuild():
            self.engine_down_drops += 1
            return
        try:
            speaking = self.engine.accept(frame)
        except Exception as err:  # noqa: B902 - any recognizer failure is survived
            self._engine_failed(err)
            speaking = False
        if speaking != self._speaking:
            self._speaking = speaking
            self.speaking_pub.publish(Bool(data=speaking))

    def _engine_failed(self, err: Exception) -> None:
        """Drop the failed engine; the worker rebuilds it at the next frame."""
        self.engine_failures += 1
        self.error = self.last_failure = f'engine failed: {type(err).__name__}: {err}'
        self.get_logger().error(f'{self.error} (failure {self.engine_failures}); rebuilding')
        self.engine.close()
        self._retry_at = time.monotonic()

    def _rebuild(self) -> bool:
        """Try to rebuild the engine when a retry is due; returns whether it is back."""
        if time.monotonic() < self._retry_at:
            return False
        try:
            self._build_engine()
        except SttError as err:
            self.error = f'engine down: {err}'
            self.get_logger().error(f'{self.error}; next try in {self.engine_retry_s:.1f} s')
            self._retry_at = time.monotonic() + self.engine_retry_s
            return False
        self._retry_at = None
        self.get_logger().info(f'engine rebuilt after failure {self.engine_failures}')
        return True

    def _emit(self, event: TranscriptEvent) -> None:
        """Publish a transcript (engine worker thread); never after the node closed."""
        if self._closed or self.engine is None:
            return
        out = self.final_out if event.final else self.partial_out
        out.publish(event)
        if event.final:
            self.finals += 1
        else:
            self.partials += 1

    def _health(self) -> Health:
        if self.engine is None:
            return Health(ERROR if self.error else WARN, self.error or 'not configured')
        values = {'engine': self.engine_kind, 'listening': self.listening,
                  'engine_up': self._retry_at is None, 'engine_failures': self.engine_failures,
                  'drop_engine_down': self.engine_down_drops,
                  'partials': self.partials, 'finals': self.finals,
                  'queue_drops': self.worker.dropped, 'queued': len(self.worker)}
        if isinstance(self.engine, WhisperStt):
            audio = max(self.engine.audio_seconds, 1e-9)
            values.update(failures=self.engine.failures, early_finals=self.engine.early_finals,
                          reused_finals=self.engine.reused_finals,
                          rtf=round(self.engine.compute_seconds / audio, 3))
        if self.echo is not None:
            values.update({f'echo_{k}': round(v, 2) if isinstance(v, float) else v
                           for k, v in vars(self.echo.stats).items()})
        if self.audio_in is not None:
            values.update(self.audio_in.drops.as_values())
        if self._retry_at is not None:
            return Health(ERROR, self.error, values)
        if self.engine_failures:
            return Health(WARN, f'recovered; last {self.last_failure}', values)
        return Health(WARN if self.worker.dropped else OK, 'ok', values)

    def close(self) -> None:
        """Stop the worker and the engine; nothing is published after this."""
        self._closed = True
        self.worker.stop()
        if self.engine is not None:
            self.engine.close()


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([SttNode], args)
