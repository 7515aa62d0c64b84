# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The oracle's prompt: predict the user's point early, answer short and speakable.

The LLM often sees a sentence cut off mid-way; asking it to predict the
point and reply anyway is what lets the front-end speak knowledgeably
before the user has finished. Replies are capped (KAME: <= 30 words) so the
oracle stream fits the time the front-end takes to say it. The prompt is
kept short on purpose: small on-robot models (SmolLM2-135M) lose the
question under a long system prompt.
"""
from collections import deque
from dataclasses import dataclass

SYSTEM_PROMPT = ('You are a helpful robot. The user may still be speaking; guess their question '
                 'and answer it in one short spoken sentence of at most {max_words} words.')


@dataclass(frozen=True)
class Turn:
    """One finished exchange kept in memory."""

    user: str
    robot: str


class PromptBuilder:
    """Builds chat messages from the system prompt, robot context and memory."""

    def __init__(self, system_prompt: str = SYSTEM_PROMPT, max_words: int = 30,
                 max_turns: int = 6) -> None:
        """``max_turns`` finished exchanges are remembered (oldest forgotten first)."""
        self.system_prompt = system_prompt
        self.max_words = max_words
        self.history: deque[Turn] = deque(maxlen=max_turns)
        self.context = ''

    def remember(self, user: str, robot: str) -> None:
        """Add a finished exchange to the conversation memory."""
        if user.strip() and robot.strip():
            self.history.append(Turn(user.strip(), robot.strip()))

    def messages(self, user_text: str, final: bool) -> list[dict[str, str]]:
        """Chat messages for one generation."""
        system = self.system_prompt.format(max_words=self.max_words)
        if self.context.strip():
            system += f'\nCurrent robot state: {self.context.strip()}'
        messages = [{'role': 'system', 'content': system}]
        for turn in self.history:
            messages += [{'role': 'user', 'content': turn.user},
                         {'role': 'assistant', 'content': turn.robot}]
        text = user_text.strip() if final else f'{user_text.strip()} ...'
        messages.append({'role': 'user', 'content': text})
        return messages
