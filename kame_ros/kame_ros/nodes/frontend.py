# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
frontend: the robot's voice.

Microphone frames and the oracle stream in; speech and the words being
said out. The agent-wide hooks (mute, say, speaking state) are created
here because this node owns the voice, but live in ``ros/agent_hooks.py``.

A lifecycle node: models load and warm up in ``configure``. Frames are
processed on a dedicated thread, one output frame per input frame (full
duplex), so ROS callbacks only enqueue. If compute falls behind, the
oldest queued input frames are dropped (counted) to keep latency bounded:
every frame's compute time and deadline misses go to /diagnostics.
"""
import numpy as np
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from std_msgs.msg import Bool

from kame_ros.audio.frames import AudioFrame, FRAME_NS
from kame_ros.frontend.engine import FrontEndConfig, FrontEndEngine
from kame_ros.frontend.factory import build_frontend
from kame_ros.oracle.events import OracleEvent
from kame_ros.ros.agent_hooks import AgentHooks
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.lifecycle import (enable_autostart, Interfaces,
                                    refuse_changes_while_configured)
from kame_ros.ros.params import declare, declare_settings
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.text_io import TextInput, TextOutput
from kame_ros.ros.topics import (FRONTEND_TEXT, MIC_AUDIO, ORACLE_EVENTS, SPEAKER_AUDIO,
                                 STT_FINAL, USER_SPEAKING)
from kame_ros.settings import check
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.messages import AgentText
from kame_ros.worker_thread import DropOldestWorker


class FrontEndNode(LifecycleNode):
    """Runs Moshi/KAME (or the TTS fallback) on the 80 ms audio clock."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters and every member; they are read, and models load, in configure."""
        super().__init__('frontend', **kwargs)
        self._read_parameters()
        self.engine: FrontEndEngine | None = None
        self.error = ''
        self.frames_out = 0
        self.worker: DropOldestWorker | None = None
        self.hooks: AgentHooks | None = None
        self.audio_in: AudioInput | None = None
        self.out: AudioOutput | None = None
        self.text_out: TextOutput | None = None
        self.oracle_in: TextInput | None = None
        self.final_in: TextInput | None = None
        self.interfaces = Interfaces(self)
        self.diagnostics = Diagnostics(self, self._health)
        refuse_changes_while_configured(self, lambda: self.engine is not None)
        enable_autostart(self)

    def _read_parameters(self) -> None:
        """Declare (first call) and read every parameter."""
        self.config = declare_settings(self, FrontEndConfig)
        self.max_queue_frames = declare(
            self, 'max_queue_frames', 4,
            'Input frames allowed to wait; older ones are dropped to bound latency', 1, 100)

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Read the parameters, load and warm up the backend (slow), create the topics."""
        self._read_parameters()
        log = self.get_logger()
        try:
            check(self.config)
            self.engine = build_frontend(self.config, log.info)
            log.info(f'warming up: {self.engine.warmup():.1f} s')
        except (RuntimeError, ValueError, OSError, ImportError) as err:
            # (CheckpointError and ExportError are RuntimeErrors with a clear message)
            self.engine, self.error = None, f'{type(err).__name__}: {err}'
            log.error(f'cannot configure the front-end: {self.error}')
            return TransitionCallbackReturn.FAILURE
        self.error = ''
        self.worker = DropOldestWorker('frontend-loop', self._process, self.max_queue_frames,
                                       self._on_drop)
        track = self.interfaces.track
        self.out = track(AudioOutput(self, SPEAKER_AUDIO, 'speaker_link', lifecycle=True))
        self.text_out = track(TextOutput(self, FRONTEND_TEXT, lifecycle=True))
        self.hooks = AgentHooks(self, self.interfaces, self.engine.say, self.engine.cancel_say,
                                lambda: self.worker is not None and self.worker.running)
        self.audio_in = track(AudioInput(self, MIC_AUDIO, self._hear))
        self.oracle_in = track(TextInput(self, ORACLE_EVENTS, self._on_oracle))
        self.final_in = track(TextInput(self, STT_FINAL, self._on_final))
        self.interfaces.subscription(USER_SPEAKING, self._on_user_speaking)
        return super().on_configure(state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start the frame loop."""
        result = super().on_activate(state)
        self.hooks.activate()
        self.engine.start()
        self.worker.start()
        config = self.config
        moshi = config.backend == 'moshi'
        self.get_logger().info(f'front-end active ({config.backend}'
                               f'{", " + self.engine.mode if moshi else ""}'
                               f'{", onnxruntime" if moshi and config.runtime == "onnx" else ""})')
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the frame loop; frames heard while inactive are neither queued nor answered."""
        self.hooks.deactivate()
        self._halt()
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Destroy the topics and the service, release the models."""
        self.interfaces.release()
        self.audio_in = self.worker = self.engine = self.hooks = None
        self.out = self.text_out = self.oracle_in = self.final_in = None
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the frame loop whatever the state."""
        self.close()
        return super().on_shutdown(state)

    def _halt(self) -> None:
        if self.worker is not None and self.worker.stop():
            self.worker.clear()
            self.engine.stop()

    def _hear(self, frame: AudioFrame) -> None:
        if self.worker is not None and self.worker.running:
            self.worker.put(frame)

    def _on_drop(self, frame: AudioFrame) -> None:
        # A dropped input frame still gets its output frame (silence): frames out = frames in.
        self.engine.budget.dropped += 1
        self._publish_frame(np.zeros(frame.samples.shape, np.int16), frame.stamp_ns)

    def _on_final(self, event: TranscriptEvent) -> None:
        self.hooks.turn_ended()
        if self.hooks.enabled and self.worker is not None and self.worker.running:
            self.engine.on_turn_end(event)

    def _on_user_speaking(self, msg: Bool) -> None:
        self.hooks.user_speaking(msg.data)
        if self.engine is not None:
            self.engine.on_user_speaking(msg.data)

    def _on_oracle(self, event: OracleEvent) -> None:
        if self.hooks.enabled:
            self.engine.on_oracle(event)

    def _process(self, frame: AudioFrame) -> None:
        result = self.engine.step(frame.samples)
        pcm = result.pcm if result.pcm is not None and self.hooks.enabled else \
            np.zeros_like(frame.samples)
        self._publish_frame(pcm, frame.stamp_ns)
        if result.filler:
            self.text_out.publish(AgentText(result.frame, None, result.filler, filler=True))
        if result.text:
            self.text_out.publish(AgentText(result.frame, result.text_token, result.text,
                                            say_id=result.say_id))

    def _publish_frame(self, pcm: np.ndarray, input_stamp_ns: int) -> None:
        # An output frame answers the input frame that just completed: play it one frame on.
        self.out.publish(pcm, input_stamp_ns + FRAME_NS)
        self.frames_out += 1
        self.hooks.output(pcm)

    def _health(self) -> Health:
        if self.engine is None:
            return Health(ERROR if self.error else WARN, self.error or 'not configured')
        values = {'backend': self.config.backend, 'runtime': self.config.runtime,
                  'enabled': self.hooks.enabled, 'say_goals': self.hooks.says.goals,
                  'say_rejected': self.hooks.says.rejected,
                  'frames_in': self.worker.received if self.worker is not None else 0,
                  'frames_out': self.frames_out, **self.engine.stats()}
        if self.audio_in is not None:
            values.update(self.audio_in.drops.as_values())
        values.update({f'say_{status}': n for status, n in self.hooks.says.results.items()})
        budget = self.engine.budget
        level = WARN if budget.misses or budget.dropped else OK
        return Health(level, f'{budget.misses} deadline misses in {budget.frames} frames',
                      values)

    def close(self) -> None:
        """Stop the frame loop before the node goes away."""
        if self.engine is not None:
            self._halt()


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([FrontEndNode], args)
