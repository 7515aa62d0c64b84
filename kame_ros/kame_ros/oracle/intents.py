# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
Intents: robot commands the oracle LLM proposes, only ever from an allowlist.

Safety comes from construction, not from parsing the LLM's words: the LLM
never writes a command. It scores each allowlisted command's plain-language
description ("go to the kitchen") as the continuation of "The robot
should" after the user's final sentence, and the best one is published only
if it clearly beats how likely that description is after a neutral
sentence (pointwise mutual information, nats per token). Whatever the user
says (including "output open_door(front)"), the only strings that can come
out are the allowlist's. Scoring instead of free generation is also what
makes this work on a 135 M model that will not follow an output format.
Only final transcripts are scored: acting on half a sentence ("go to the
kitchen... no, don't") is unsafe.
"""
from dataclasses import dataclass
import re

from kame_ros.oracle.backends.base import LLMBackend
from kame_ros.wire.messages import IntentMessage

ENTRY = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)\s*=\s*(\S.*?)\s*$')
SYSTEM = 'Say what the robot should do.'
PREFIX = 'The robot should'
NEUTRAL_TEXT = 'Hi.'


@dataclass(frozen=True)
class IntentSpec:
    """One allowlisted command and the words that describe it."""

    name: str
    args: tuple[str, ...]
    description: str

    @property
    def command(self) -> str:
        """Return the command as written in the allowlist, e.g. ``navigate_to(kitchen)``."""
        return f'{self.name}({", ".join(self.args)})'


@dataclass(frozen=True)
class Intent:
    """A proposed command, tied to the utterance it came from."""

    spec: IntentSpec
    score: float
    utterance_id: int
    user_text: str

    def message(self) -> IntentMessage:
        """Return what is published on ``agent/intents``."""
        return IntentMessage(self.spec.command, self.spec.name, list(self.spec.args),
                             self.spec.description, round(self.score, 3), self.utterance_id,
                             self.user_text)


def parse_allowlist(entries: list[str]) -> list[IntentSpec]:
    """
    Parse ``"name(arg, ...) = description"`` entries.

    Raises ValueError naming the first bad or duplicated entry: a typo in a
    safety allowlist must stop the node, not be skipped.
    """
    specs: list[IntentSpec] = []
    for entry in entries:
        match = ENTRY.match(entry)
        if match is None:
            raise ValueError(f'bad intent entry {entry!r}: expected '
                             "'name(arg, ...) = description', e.g. "
                             "'navigate_to(kitchen) = go to the kitchen'")
        name, args, description = match.groups()
        spec = IntentSpec(name, tuple(a.strip() for a in args.split(',') if a.strip()),
                          description)
        if any(s.command == spec.command for s in specs):
            raise ValueError(f'intent {spec.command} listed twice')
        specs.append(spec)
    return specs


class IntentProposer:
    """Lets the LLM pick at most one allowlisted command for a final utterance."""

    def __init__(self, backend: LLMBackend, allowlist: list[IntentSpec],
                 min_score: float = 1.5) -> None:
        """``min_score``: how far (nats/token) the best must beat its neutral likelihood."""
        self.backend = backend
        self.allowlist = allowlist
        self.min_score = min_score
        self._baseline: list[float] | None = None
        self.last_scores: dict[str, float] = {}

    def _scores(self, user_text: str, context: str) -> list[float]:
        system = f'{SYSTEM}\nCurrent robot state: {context}' if context.strip() else SYSTEM
        messages = [{'role': 'system', 'content': system}, {'role': 'user', 'content': user_text}]
        return self.backend.score(messages, PREFIX,
                                  [' ' + s.description for s in self.allowlist])

    def propose(self, user_text: str, utterance_id: int, context: str = '') -> Intent | None:
        """Return the best allowlisted command if the LLM clearly proposes one, else None."""
        if not self.allowlist or not user_text.strip():
            return None
        if self._baseline is None:
            self._baseline = self._scores(NEUTRAL_TEXT, '')
        lift = [s - b for s, b in zip(self._scores(user_text.strip(), context), self._baseline)]
        self.last_scores = {spec.command: v for spec, v in zip(self.allowlist, lift)}
        best = max(range(len(lift)), key=lift.__getitem__)
        if lift[best] < self.min_score:
            return None
        return Intent(self.allowlist[best], lift[best], utterance_id, user_text.strip())
