# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The oracle's prompt: the conversation as both sides said it, then "guess and answer".

KAME's back-end LLM sees the whole conversation, the user's final
transcripts and current partial *and* what the front-end actually said
(SakanaAI/kame ``server_oracle.py``: ``add_to_conversation`` gets "user"
finals and "moshi" text tokens). Seeing its own earlier *candidates*
instead would be wrong: most were never spoken, and a barge-in cuts a
spoken one short. So the agent side is fed from ``frontend/text``.

The reference sends the conversation as one "user: ... / moshi: ..."
transcript; here it is sent as chat turns (user / assistant), the form
instruction-tuned models are trained on: small on-robot models
(SmolLM2-135M) lose the question inside a transcript-shaped message and a
long system prompt. Asking for a prediction of the user's point is what
lets the front-end speak knowledgeably before the user has finished;
replies are capped (KAME: <= 30 words) so they fit the time it takes to say them.

Partials and finals get the instructions that fit them: only a generation
on a partial is told the user may still be speaking. Told that about a
finished fragment ("What is the cap?"), a small model recites the
instruction instead of answering (``reply_guard.py`` makes sure no
instruction is ever spoken either way). That note goes after the user's
words, never into the system prompt: a final's prompt then starts with
everything its partial's prompt had, and llama.cpp reuses that evaluation
(docs/measurements.md, "Figures behind the code").
"""
from collections import deque
from dataclasses import dataclass

from kame_ros.words import looks_complete, words

# The wording that answered best on the embedded SmolLM2-135M (docs/measurements.md,
# "Figures behind the code").
SYSTEM_PROMPT = ('You are a helpful assistant on a robot. Answer in one short sentence of at most '
                 '{max_words} words.')
PARTIAL_NOTE = 'The user has not finished speaking: guess the rest of the question and answer it.'
USER = 'user'
AGENT = 'agent'
ROLES = {USER: 'user', AGENT: 'assistant'}


def unfinished(text: str) -> str:
    """Mark the user's words as a partial transcript, with the note that says so."""
    return f'{text} ... ({PARTIAL_NOTE})'


@dataclass
class Turn:
    """One side's contiguous speech: consecutive pieces of one speaker are merged."""

    speaker: str
    text: str


class PromptBuilder:
    """Builds chat messages from the system prompt, robot context and the conversation."""

    def __init__(self, system_prompt: str = SYSTEM_PROMPT, max_words: int = 30,
                 max_turns: int = 1) -> None:
        """Keep ``max_turns`` finished exchanges (user + agent turns), oldest forgotten first."""
        self.system_prompt = system_prompt
        self.max_words = max_words
        self.max_turns = max_turns
        # The remembered exchanges and the current one (the user's turn, the reply so far).
        self.turns: deque[Turn] = deque(maxlen=2 * max_turns + 2)
        self.context = ''

    def hear(self, speaker: str, text: str) -> None:
        """
        Add what ``speaker`` (USER or AGENT) said.

        User text comes as whole final transcripts; agent text as the
        front-end's pieces, which carry their own word spacing (" Par", "is").
        """
        if speaker not in ROLES:
            raise ValueError(f'unknown speaker {speaker!r}')
        if not text.strip():
            return
        if self.turns and self.turns[-1].speaker == speaker:
            joiner = '' if speaker == AGENT else ' '
            self.turns[-1].text += joiner + text
        else:
            self.turns.append(Turn(speaker, text))

    def instructions(self) -> list[str]:
        """Every instruction text a generation may be given (what a reply must never say)."""
        return [self.system_prompt.format(max_words=self.max_words), PARTIAL_NOTE]

    def messages(self, pending_user_text: str = '', final: bool = True,
                 note: bool = True) -> list[dict[str, str]]:
        """
        Chat messages for one generation.

        ``pending_user_text`` is the partial transcript not yet final (marked
        with "..." and the partial note, so the model knows the sentence may
        go on); a final transcript is already part of the conversation. A
        partial that reads as a finished sentence goes without the note
        (``note=False``): its prompt is then the one its final will have, so
        the guess is the very answer the final would get.
        """
        system = self.system_prompt.format(max_words=self.max_words)
        pending = pending_user_text.strip()
        if self.context.strip():
            system += f'\nCurrent robot state: {self.context.strip()}'
        messages = [{'role': 'system', 'content': system}]
        for turn in self._remembered():
            messages.append({'role': ROLES[turn.speaker], 'content': ' '.join(turn.text.split())})
        if pending and not final:
            said = unfinished(pending) if note else ' '.join(pending.split())
            if messages[-1]['role'] == ROLES[USER]:
                messages[-1]['content'] += f' {said}'
            else:
                messages.append({'role': ROLES[USER], 'content': said})
        return messages

    def _remembered(self) -> list[Turn]:
        """
        Return the turns a prompt carries: ``max_turns`` exchanges, then the current user turn.

        The current question is always asked, even with ``max_turns`` 0: a
        robot that answers unrelated questions can forget everything else (a
        small LLM copies its previous answers: "A spider has 13 planets").
        """
        turns = list(self.turns)
        current = 1 if turns and turns[-1].speaker == USER else 0
        history = turns[:len(turns) - current][-2 * self.max_turns:] if self.max_turns else []
        return history + turns[len(turns) - current:]


def cut_reply(messages: list[dict[str, str]]) -> str:
    """
    Return the agent's turn the user cut off, right before their current words, or ''.

    A turn that stops short of a sentence's end was interrupted: the user
    took the turn in the middle of it.
    """
    if len(messages) < 3 or [m['role'] for m in messages[-2:]] != ['assistant', 'user']:
        return ''
    return '' if looks_complete(messages[-2]['content']) else messages[-2]['content']


def echoes_cut_reply(messages: list[dict[str, str]], reply: str) -> bool:
    """
    Tell whether ``reply`` only repeats the start of the turn the user cut off.

    A small LLM shown its own cut-off turn ("The capital of") before the
    user's new question tends to copy it and stop there: no answer at all
    (issue 41's barge-in test, ~1 run in 4 on the 1.5B).
    """
    cut, said = words(cut_reply(messages)), words(reply)
    return bool(said) and cut[:len(said)] == said and not looks_complete(reply)


def without_cut_exchange(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Return the messages without the interrupted exchange: the new question replaced it."""
    if not cut_reply(messages):
        return messages
    first = -3 if messages[-3]['role'] == 'user' else -2  # the question it answered, if kept
    return messages[:first] + messages[-1:]
