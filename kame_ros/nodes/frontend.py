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
from pathlib import Path

import numpy as np
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from std_msgs.msg import Bool

from kame_ros.audio.frames import AudioFrame, FRAME_NS
from kame_ros.frontend.engine import FrontEndEngine, MODES
from kame_ros.oracle.events import KINDS, OracleEvent
from kame_ros.ros.agent_hooks import AgentHooks
from kame_ros.ros.audio_in import AudioInput
from kame_ros.ros.audio_out import AudioOutput
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.lifecycle import (enable_autostart, Interfaces,
                                    refuse_changes_while_configured)
from kame_ros.ros.params import declare
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.text_io import TextInput, TextOutput
from kame_ros.ros.topics import (FRONTEND_TEXT, MIC_AUDIO, ORACLE_EVENTS, SPEAKER_AUDIO,
                                 STT_FINAL, USER_SPEAKING)
from kame_ros.stt.events import FINAL, TranscriptEvent
from kame_ros.wire.messages import AgentText
from kame_ros.wire.worker import FrameWorker


class FrontEndNode(LifecycleNode):
    """Runs Moshi/KAME (or the TTS fallback) on the 80 ms audio clock."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters; they are read, and models load, in configure."""
        super().__init__('frontend', **kwargs)
        self._read_parameters()
        self.engine: FrontEndEngine | None = None
        self.error = ''
        self.frames_out = 0
        self.worker: FrameWorker | None = None
        self.hooks: AgentHooks | None = None
        self.audio_in: AudioInput | None = None
        self.interfaces = Interfaces(self)
        self.diagnostics = Diagnostics(self, self._health)
        refuse_changes_while_configured(self, lambda: self.engine is not None)
        enable_autostart(self)

    def _read_parameters(self) -> None:
        """Declare (first call) and read every parameter."""
        self.backend = declare(self, 'backend', 'moshi', 'moshi (Moshi/KAME) or tts (hibari)')
        self.checkpoint = declare(self, 'checkpoint', 'kyutai/moshiko-pytorch-bf16',
                                  'moshi: local checkpoint directory or Hugging Face repo')
        self.device = declare(self, 'device', 'cpu', 'moshi: torch device (cpu, cuda)')
        self.dtype = declare(self, 'dtype', 'float32', 'moshi: float32 or bfloat16')
        self.mode = declare(self, 'mode', 'auto',
                            f'moshi oracle mode: {", ".join(MODES)} (auto = kame if the '
                            'checkpoint has oracle_emb, else guided)')
        self.seed = declare(self, 'seed', 0, 'moshi: sampling seed', 0, 2**31 - 1)
        self.temp = declare(self, 'temp', 0.8, 'moshi: audio sampling temperature', 0.0, 2.0)
        self.temp_text = declare(self, 'temp_text', 0.7, 'moshi: text sampling temperature',
                                 0.0, 2.0)
        self.guide_min_ready_tokens = declare(
            self, 'guide_min_ready_tokens', 3,
            'guided: oracle tokens ready before the guide may take over', 1, 100)
        self.runtime = declare(self, 'runtime', 'torch',
                               'moshi: torch, or onnx (exported graphs on onnxruntime: '
                               'TensorRT -> CUDA -> CPU)')
        self.onnx_dir = declare(self, 'onnx_dir', '',
                                'onnx: exported graphs; exported there on first use; empty = '
                                '~/.cache/kame_ros/onnx/<checkpoint>-<precision>')
        self.onnx_precision = declare(self, 'onnx_precision', 'fp32',
                                      'onnx: fp32, int8 (dynamic, CPU), or the LM graphs in fp16 '
                                      'or int8w (weight-only int8)')
        self.trt_fp16 = declare(self, 'trt_fp16', False, 'onnx on TensorRT: fp16 engines')
        self.voice = declare(self, 'voice', 'heart', 'tts: hibari voice')
        self.acknowledgement = declare(self, 'acknowledgement', 'Okay.',
                                       'tts: said at once when the user finishes a turn')
        self.max_queue_frames = declare(
            self, 'max_queue_frames', 4,
            'Input frames allowed to wait; older ones are dropped to bound latency', 1, 100)

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Read the parameters, load and warm up the backend (slow), create the topics."""
        self._read_parameters()
        log = self.get_logger()
        try:
            # Each backend's modules are imported only when chosen: tts needs no torch.
            if self.backend == 'moshi':
                self.engine = self._moshi_engine()
            elif self.backend == 'tts':
                from kame_ros.frontend.tts_engine import TtsFrontEnd
                self.engine = TtsFrontEnd(self.voice, self.acknowledgement)
            else:
                raise ValueError(f'unknown backend {self.backend!r} (moshi or tts)')
            log.info(f'warming up: {self.engine.warmup():.1f} s')
        except (RuntimeError, ValueError, OSError, ImportError) as err:
            # (CheckpointError and ExportError are RuntimeErrors with a clear message)
            self.error = f'{type(err).__name__}: {err}'
            log.error(f'cannot configure the front-end: {self.error}')
            return TransitionCallbackReturn.FAILURE
        self.error = ''
        self.worker = FrameWorker('frontend-loop', self._process, self.max_queue_frames,
                                  self._on_drop)
        track = self.interfaces.track
        self.out = track(AudioOutput(self, SPEAKER_AUDIO, 'speaker_link', lifecycle=True))
        self.text_out = track(TextOutput(self, FRONTEND_TEXT, lifecycle=True))
        self.hooks = AgentHooks(self, self.interfaces, self.engine.say, self.engine.cancel_say)
        self.audio_in = track(AudioInput(self, MIC_AUDIO, self._hear))
        self.oracle_in = track(TextInput(self, ORACLE_EVENTS, self._on_oracle, KINDS,
                                         OracleEvent.from_event))
        self.final_in = track(TextInput(self, STT_FINAL, self._on_final, (FINAL,),
                                        TranscriptEvent.from_event))
        self.interfaces.subscription(USER_SPEAKING, self._on_user_speaking)
        return super().on_configure(state)

    def _moshi_engine(self) -> FrontEndEngine:
        """Load the Moshi/KAME checkpoint (torch, moshi) and build its engine."""
        from kame_ros.frontend.checkpoint import load_frontend_models
        from kame_ros.frontend.moshi_engine import MoshiFrontEnd, SamplingConfig
        models = load_frontend_models(self.checkpoint, self.device, self.dtype,
                                      lambda step: self.get_logger().info(f'[moshi] {step}'))
        return MoshiFrontEnd(models, self.mode,
                             SamplingConfig(temp=self.temp, temp_text=self.temp_text),
                             self.seed, self.guide_min_ready_tokens, self._exported(models))

    def _exported(self, models):
        """Return the onnxruntime graphs when ``runtime`` is onnx (exported on first use)."""
        if self.runtime == 'torch':
            return None
        if self.runtime != 'onnx':
            raise ValueError(f'unknown runtime {self.runtime!r} (torch or onnx)')
        from kame_ros.frontend.export.runtime import default_export_dir, load_or_export
        directory = Path(self.onnx_dir) if self.onnx_dir else default_export_dir(
            self.checkpoint, self.onnx_precision)
        return load_or_export(models, directory, self.onnx_precision, self.trt_fp16,
                              progress=lambda step: self.get_logger().info(f'[onnx] {step}'))

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start the frame loop."""
        result = super().on_activate(state)
        self.hooks.activate()
        self.engine.start()
        self.worker.start()
        self.get_logger().info(f'front-end active ({self.backend}'
                               f'{", " + self.engine.mode if self.backend == "moshi" else ""}'
                               f'{", onnxruntime" if self.runtime == "onnx" else ""})')
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the frame loop; frames heard while inactive are neither queued nor answered."""
        self._halt()
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Destroy the topics and the service, release the models."""
        self.interfaces.release()
        self.audio_in = self.worker = self.engine = self.hooks = None
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the frame loop whatever the state."""
        self.close()
        return TransitionCallbackReturn.SUCCESS

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
        if self.hooks.enabled and self.worker is not None and self.worker.running:
            self.engine.on_turn_end(event)

    def _on_user_speaking(self, msg: Bool) -> None:
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
            self.text_out.publish(AgentText(result.frame, result.text_token, result.text))

    def _publish_frame(self, pcm: np.ndarray, input_stamp_ns: int) -> None:
        # An output frame answers the input frame that just completed: play it one frame on.
        self.out.publish(pcm, input_stamp_ns + FRAME_NS)
        self.frames_out += 1
        self.hooks.output(pcm)

    def _health(self) -> Health:
        if self.engine is None:
            return Health(ERROR if self.error else WARN, self.error or 'not configured')
        values = {'backend': self.backend, 'runtime': self.runtime,
                  'enabled': self.hooks.enabled, 'say_requests': self.hooks.requests,
                  'frames_in': self.worker.received if self.worker is not None else 0,
                  'frames_out': self.frames_out, **self.engine.budget.summary()}
        for counter in ('acks', 'acks_skipped'):  # the tts front-end's turn-taking
            if hasattr(self.engine, counter):
                values[counter] = getattr(self.engine, counter)
        timeline = getattr(self.engine, 'timeline', None)
        if timeline is not None:
            values.update({f'oracle_{k}': v for k, v in vars(timeline.stats).items()})
        if self.audio_in is not None:
            values.update(self.audio_in.drops.as_values())
        values.update(self.hooks.drops.as_values())
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
