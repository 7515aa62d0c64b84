# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
oracle: KAME's back-end node, transcripts + robot context in, oracle stream out.

A lifecycle node: the model loads in ``configure`` (with progress in the
log), generation runs in ``active``. The LLM sees the conversation as both
sides said it: final transcripts, the current partial, and the front-end's
own words from ``frontend/text``; each generation's messages go out on
``oracle/prompt`` (what the reference writes to conversation.txt). All
LLM work happens on the engine's threads, so a slow, hung or dead backend
never blocks this node's callbacks.
With an ``intents`` allowlist it also proposes robot commands for final
utterances on ``agent/intents`` (kame_ros.oracle.intents), scored on their
own worker thread by a float copy of the model: int8 dynamic quantization
moves per-token log-probabilities by about a nat, more than the margin the
decision rests on (docs/measurements.md, "Figures behind the code").
"""
import statistics

from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn

from kame_ros.oracle.backends.base import BackendError
from kame_ros.oracle.backends.factory import BackendConfig, build_backend, make_backend
from kame_ros.oracle.engine import OracleEngine
from kame_ros.oracle.events import OracleEvent
from kame_ros.oracle.intents import IntentProposer, parse_allowlist
from kame_ros.oracle.prompt import PromptBuilder, SYSTEM_PROMPT
from kame_ros.oracle.scheduler import OracleScheduler, Restart, SchedulerConfig
from kame_ros.ros.diagnostics import Diagnostics, ERROR, Health, OK, WARN
from kame_ros.ros.lifecycle import (enable_autostart, Interfaces,
                                    refuse_changes_while_configured)
from kame_ros.ros.params import declare, declare_settings, declare_strings
from kame_ros.ros.spin import run_nodes
from kame_ros.ros.text_io import TextInput, TextOutput
from kame_ros.ros.topics import (FRONTEND_TEXT, INTENTS, ORACLE_EVENTS, ORACLE_PROMPT,
                                 ROBOT_CONTEXT, STT_FINAL, STT_PARTIAL)
from kame_ros.settings import check
from kame_ros.stt.events import TranscriptEvent
from kame_ros.wire.drops import DropLedger
from kame_ros.wire.messages import AgentText, OraclePrompt, RobotContext
from kame_ros.worker_thread import DropOldestWorker

MAX_CONTEXT_CHARS = 2000
MAX_INTENT_QUEUE = 4
# Scores intents when the oracle runs the embedded default or an offboard server.
INTENT_MODEL = 'smollm2-135m'


class OracleNode(LifecycleNode):
    """Streams the LLM's latest candidate reply as reset/append/done events."""

    def __init__(self, **kwargs) -> None:
        """Declare parameters and every member; they are read, and models load, in configure."""
        super().__init__('oracle', **kwargs)
        self._read_parameters()
        self.engine: OracleEngine | None = None
        self.intents: IntentProposer | None = None
        self.intent_worker: DropOldestWorker[TranscriptEvent] | None = None
        self.intent_counts = {'published': 0, 'below_threshold': 0, 'errors': 0}
        self.robot_context = ''
        self.context_drops = DropLedger()
        self.error = ''
        self._closed = False
        self.inputs: list[TextInput] = []
        self.events_out: TextOutput | None = None
        self.intents_out: TextOutput | None = None
        self.prompt_out: TextOutput | None = None
        self.interfaces = Interfaces(self)
        self.diagnostics = Diagnostics(self, self._health)
        refuse_changes_while_configured(self, lambda: self.engine is not None)
        enable_autostart(self)

    def _read_parameters(self) -> None:
        """Declare (first call) and read every parameter."""
        self.backend_config = declare_settings(self, BackendConfig)
        self.max_tokens = declare(self, 'max_tokens', 60, 'Longest reply in tokens', 1, 1024)
        self.generation_nice = declare(self, 'generation_nice', 10,
                                       'CPU niceness of generations on partial transcripts: '
                                       'the STT, on shared cores, ends the turn on time', 0, 19)
        self.hold_guesses = declare(self, 'hold_guesses', False,
                                    'Stop a guess once its opening is written; the final that '
                                    'confirms it has the rest written (a shared server; needs '
                                    'llm_backend openai and a server that continues a reply)')
        self.max_words = declare(self, 'max_words', 30, 'Reply length asked for in the prompt',
                                 1, 200)
        self.max_turns = declare(self, 'max_turns', 1, 'Finished exchanges remembered', 0, 100)
        self.system_prompt = declare(self, 'system_prompt', '',
                                     'System prompt ({max_words} is filled in); empty = default')
        self.scheduler_config = declare_settings(self, SchedulerConfig)
        self.intent_entries = declare_strings(
            self, 'intents', "Allowlisted robot commands, 'name(arg) = description' each, e.g. "
            "'navigate_to(kitchen) = go to the kitchen'; unset = no intents")
        self.intent_min_score = declare(self, 'intent_min_score', 1.5,
                                        'How clearly (nats/token above a neutral sentence) '
                                        'the LLM must prefer a command to publish it', 0.0, 10.0)

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Read the parameters, build and load the backend (slow: weights), create the topics."""
        self._read_parameters()
        try:
            check(self.backend_config)
            check(self.scheduler_config)
            backend = build_backend(self.backend_config)
            backend.load(lambda step: self.get_logger().info(f'[{backend.name}] {step}'))
            prompt = PromptBuilder(self.system_prompt or SYSTEM_PROMPT, self.max_words,
                                   self.max_turns)
            engine = OracleEngine(backend, self._publish, OracleScheduler(self.scheduler_config),
                                  prompt, self.max_tokens, self._publish_prompt,
                                  self.generation_nice, self.hold_guesses)
            self._configure_intents()
        except (BackendError, ValueError) as err:
            self.error = str(err)
            self.get_logger().error(f'cannot configure the oracle: {err}')
            return TransitionCallbackReturn.FAILURE
        self.error = ''
        self.events_out = self.interfaces.track(TextOutput(self, ORACLE_EVENTS, lifecycle=True))
        self.intents_out = self.interfaces.track(TextOutput(self, INTENTS, lifecycle=True))
        self.prompt_out = self.interfaces.track(TextOutput(self, ORACLE_PROMPT, lifecycle=True))
        self.engine = engine
        self.inputs = [self.interfaces.track(TextInput(self, topic, callback)) for topic, callback
                       in ((STT_PARTIAL, self._on_transcript), (STT_FINAL, self._on_transcript),
                           (FRONTEND_TEXT, self._on_agent_text),
                           (ROBOT_CONTEXT, self._on_context))]
        return super().on_configure(state)

    def _configure_intents(self) -> None:
        """Parse the allowlist (a typo fails configure) and load the scoring model."""
        if not self.intent_entries:
            return
        allowlist = parse_allowlist(self.intent_entries)
        # A float copy of the oracle's own model, or of the small embedded one: the 1.5B
        # default would be 6 GB in float (hooks.md).
        config = self.backend_config
        model = config.model if config.backend != 'openai' and config.model else INTENT_MODEL
        scorer = make_backend('transformers', model, quantization='none', threads=config.threads)
        scorer.load(lambda step: self.get_logger().info(f'[intents] {step}'))
        self.intents = IntentProposer(scorer, allowlist, self.intent_min_score)
        self.intent_worker = DropOldestWorker('oracle-intents', self._propose, MAX_INTENT_QUEUE)
        self.get_logger().info('intents allowed: '
                               + ', '.join(spec.command for spec in allowlist))

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start the scheduler's poller (and the intent worker)."""
        self.engine.start()
        if self.intent_worker is not None:
            self.intent_worker.start()
        self.get_logger().info('oracle active')
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop polling and cancel the running reply."""
        self.engine.stop()
        if self.intent_worker is not None:
            self.intent_worker.stop()
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Destroy the topics and release the model."""
        self.interfaces.release()
        self.inputs = []
        self.events_out = self.intents_out = self.prompt_out = None
        self.engine.backend.close()
        self.engine = None
        if self.intents is not None:
            self.intents.backend.close()
            self.intents = self.intent_worker = None
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop generating whatever the state."""
        self.close()
        return super().on_shutdown(state)

    def _on_transcript(self, event: TranscriptEvent) -> None:
        if self.engine is not None:
            self.engine.submit(event)
        if event.final and self.intent_worker is not None:
            self.intent_worker.put(event)

    def _on_agent_text(self, event: AgentText) -> None:
        if self.engine is not None and not event.filler:
            self.engine.hear_agent(event.text)

    def _publish_prompt(self, restart: Restart, messages: list[dict[str, str]]) -> None:
        out = self.prompt_out
        if self._closed or out is None:
            return
        out.publish(OraclePrompt(restart.reply_id, restart.utterance_id, restart.final,
                                 self.engine.epoch if self.engine else 0, messages))

    def _propose(self, event: TranscriptEvent) -> None:
        """Score the allowlist for one final utterance (intent worker thread)."""
        try:
            intent = self.intents.propose(event.text, event.utterance_id,
                                          self.robot_context)
        except BackendError as err:
            self.intent_counts['errors'] += 1
            self.get_logger().error(f'intent scoring failed: {err}')
            return
        if intent is None:
            self.intent_counts['below_threshold'] += 1
            return
        if self._closed:
            return
        self.intent_counts['published'] += 1
        self.get_logger().info(f'intent {intent.spec.command} (score {intent.score:.2f}) '
                               f'for {event.text!r}')
        self.intents_out.publish(intent.message())

    def _on_context(self, context: RobotContext) -> None:
        if self.engine is None:
            return
        text = context.text
        if len(text) > MAX_CONTEXT_CHARS or not text.isprintable():
            self._drop_context('bad_text', f'{len(text)} chars, must be printable and '
                               f'<= {MAX_CONTEXT_CHARS}')
            return
        self.robot_context = text
        self.engine.set_context(text)

    def _drop_context(self, reason: str, detail: str) -> None:
        if self.context_drops.record(f'context_{reason}'):
            self.get_logger().warning(f'robot context dropped ({reason}): {detail[:200]}')

    def _publish(self, event: OracleEvent) -> None:
        out = self.events_out  # a generation thread may outlive the node by one piece
        if not self._closed and out is not None:
            out.publish(event)

    def _health(self) -> Health:
        if self.engine is None:
            return Health(ERROR if self.error else WARN, self.error or 'not configured')
        s = self.engine.stats
        first = list(s.first_piece_s)
        values = {**self.engine.backend.stats(), 'restarts': s.restarts,
                  'completed': s.completed, 'answered': s.answered, 'cancelled': s.cancelled,
                  'failed': s.failed, 'promoted': s.promoted,
                  'promote_refused': s.promote_refused, 'held': s.held,
                  'continued': s.continued,
                  'cut_prompt_leak': s.cut_prompt_leak, 'cut_repetition': s.cut_repetition,
                  'cut_echo': s.cut_echo, 'backoffs': s.backoffs,
                  'held_by_backoff': s.held_by_backoff, 'finals_retried': s.finals_retried,
                  **{f'server_{kind}': n for kind, n in s.server_faults.items()},
                  'rate_limited': self.engine.scheduler.rate_limited,
                  'first_piece_ms_p50': f'{statistics.median(first) * 1e3:.0f}' if first else '',
                  'last_error': s.last_error}
        for ledger in [text_in.drops for text_in in self.inputs] + [self.context_drops]:
            for key, n in ledger.as_values().items():
                values[key] = values.get(key, 0) + n
        if self.intent_worker is not None:
            values.update({f'intents_{k}': v for k, v in self.intent_counts.items()})
            values['intents_dropped'] = self.intent_worker.dropped
        return Health(WARN if s.last_error else OK, s.last_error or 'ok', values)

    def close(self) -> None:
        """Stop generation threads before the node goes away; nothing is published after."""
        self._closed = True
        if self.engine is not None:
            self.engine.stop()
        if self.intent_worker is not None:
            self.intent_worker.stop()


def main(args: list[str] | None = None) -> None:
    """Console entry point."""
    run_nodes([OracleNode], args)
