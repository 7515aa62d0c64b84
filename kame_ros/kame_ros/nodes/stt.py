# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
stt: streaming speech-to-text for the oracle, partials while the user speaks.

A lifecycle node: the engine loads in ``configure``. Microphone frames are
queued by the subscription callback; on a worker thread they go through
the audio front end (echo cancelling, noise suppression, gain:
kame_ros.audio.mic_processing) and into the engine (bounded queue: under
overload the oldest frames are dropped and counted, the recognizer never
stalls the executor). The engine, its
settings and its rebuild after a failure are kame_ros.stt.engine's; the
front-end does not depend on this node, so the robot keeps talking while
the STT is down.
"""
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from std_msgs.msg import Bool

from kame_ros.audio.frames import AudioFrame
from kame_ros.audio.mic_processing import MicProcessingConfig, MicProcessor
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.lifecycle import (enable_autostart, Interfaces,
                                    refuse_changes_while_configured)
from kame_ros.ros.params import declare, declare_settings
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.text_io import TextOutput
from kame_ros.ros.topics import (AGENT_ENABLED, MIC_AUDIO, SPEAKER_AUDIO, STT_FINAL,
                                 STT_PARTIAL, USER_SPEAKING)
from kame_ros.settings import check
from kame_ros.stt.engine import hear, RebuildingEngine, SttConfig
from kame_ros.stt.errors import SttError
from kame_ros.stt.events import TranscriptEvent
from kame_ros.worker_thread import DropOldestWorker

MAX_QUEUE = 50


class SttNode(LifecycleNode):
    """Publishes partial and final transcripts and the user-speaking flag."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters and every member; they are read and the engine loads in configure."""
        super().__init__('stt', **kwargs)
        self._read_parameters()
        self.engine: RebuildingEngine | None = None
        self.mic: MicProcessor | None = None
        self.partial_out: TextOutput | None = None
        self.final_out: TextOutput | None = None
        self.speaking_pub = None
        self.audio_in: AudioInput | None = None
        self.error = ''
        self.listening = True
        self.partials = 0
        self.finals = 0
        self._speaking = False
        self._closed = False
        self.worker = DropOldestWorker('stt-feed', self._process, MAX_QUEUE)
        self.interfaces = Interfaces(self)
        self.diagnostics = Diagnostics(self, self._health)
        refuse_changes_while_configured(self, lambda: self.engine is not None)
        enable_autostart(self)

    def _read_parameters(self) -> None:
        """Declare (first call) and read every parameter."""
        self.config = declare_settings(self, SttConfig)
        self.mic_config = declare_settings(self, MicProcessingConfig)
        self.engine_retry_s = declare(self, 'engine_retry_s', 2.0,
                                      'Wait between attempts to rebuild a failed engine',
                                      0.1, 60.0)

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Read the parameters, build and load the engine, create the topics."""
        self._read_parameters()
        log = self.get_logger()
        engine = RebuildingEngine(self.config, self._emit, self.engine_retry_s,
                                  lambda step: log.info(f'[{self.config.engine}] {step}'),
                                  log.error)
        try:
            check(self.config)
            self.mic = MicProcessor(self.mic_config)
            engine.load()
        except (SttError, ValueError) as err:
            self.error = str(err)
            log.error(f'cannot configure the STT: {err}')
            return TransitionCallbackReturn.FAILURE
        self.engine, self.error = engine, ''
        self.partial_out = self.interfaces.track(TextOutput(self, STT_PARTIAL, lifecycle=True))
        self.final_out = self.interfaces.track(TextOutput(self, STT_FINAL, lifecycle=True))
        self.speaking_pub = self.interfaces.publisher(USER_SPEAKING)
        self.audio_in = self.interfaces.track(AudioInput(self, MIC_AUDIO, self._hear))
        self.interfaces.subscription(AGENT_ENABLED,
                                     lambda msg: setattr(self, 'listening', msg.data))
        if self.mic_config.echo_cancel:
            self.interfaces.track(AudioInput(self, SPEAKER_AUDIO, self.mic.reference))
        return super().on_configure(state)

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
        """Release the engine (it emits nothing after), then destroy the topics."""
        if self.engine is not None:
            self.engine.close()
        self.engine = None
        self.interfaces.release()
        self.audio_in = self.partial_out = self.final_out = self.speaking_pub = None
        self.mic = None
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Release everything whatever the state."""
        self.close()
        return super().on_shutdown(state)

    def _hear(self, frame: AudioFrame) -> None:
        if self.worker.running:
            self.worker.put(frame)

    def _process(self, frame: AudioFrame) -> None:
        if not self.listening:  # muted through agent/enable: hear nothing
            return
        speaking = hear(self.mic, self.engine, frame)
        if speaking != self._speaking:
            self._speaking = speaking
            self.speaking_pub.publish(Bool(data=speaking))

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
        values = {'listening': self.listening, **self.engine.stats(),
                  'partials': self.partials, 'finals': self.finals,
                  'queue_drops': self.worker.dropped, 'queued': len(self.worker)}
        if self.mic is not None:
            values.update(self.mic.stats())
        if self.audio_in is not None:
            values.update(self.audio_in.drops.as_values())
        health = self.engine.health
        if not self.engine.up:
            return Health(ERROR, health.error, values)
        if health.failures:
            return Health(WARN, f'recovered; last {health.last_failure}', values)
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
