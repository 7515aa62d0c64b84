# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""When a headless run has answered every final: by order of arrival, not utterance ids."""
from kame_ros.records.answers import AnswerLedger


def test_each_final_waits_for_its_answer():
    ledger = AnswerLedger()
    ledger.final(0)
    ledger.final(1)
    assert ledger.waiting() == [0, 1]
    ledger.answer(0)
    assert ledger.waiting() == [1]
    ledger.answer(1)
    assert ledger.waiting() == []


def test_a_final_cut_short_is_answered_by_the_next_ones_reply():
    ledger = AnswerLedger()
    for utterance in (3, 4, 5):  # "What is the capital?" / "of France." / "Tell me."
        ledger.final(utterance)
    ledger.answer(4)
    assert ledger.waiting() == [5]


def test_a_restarted_stt_numbering_from_zero_again_still_waits():
    ledger = AnswerLedger()
    for utterance in (0, 1, 2):
        ledger.final(utterance)
        ledger.answer(utterance)
    ledger.final(0)  # the STT node was restarted: its utterances count from 0 again
    assert ledger.waiting() == [0]
    ledger.final(1)
    ledger.answer(0)
    assert ledger.waiting() == [1]
    ledger.answer(1)
    assert ledger.waiting() == []


def test_an_answer_that_overtakes_its_final_counts_when_the_final_comes():
    ledger = AnswerLedger()
    ledger.final(0)
    ledger.answer(1)  # the oracle's topic delivered first
    assert ledger.waiting() == [0]
    ledger.final(1)
    assert ledger.waiting() == []
