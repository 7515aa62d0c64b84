# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""kame_ros_bench_knowledge: its scoring rules, its bad arguments, and a short real run."""
import json

import pytest

from cli_checks import fails_in_one_line_before_any_model
from kame_ros.bench.knowledge import score
from kame_ros.bench.knowledge_set import Question, QUESTIONS
from run_events import write_events

SPANS = [(1.0, 3.0), (12.0, 14.0)]
ASKED = [Question('What is the largest planet?', ('jupiter',), 'x'),
         Question('How many legs does a spider have?', ('eight', '8'), 'y')]


def test_a_right_answer_is_in_the_first_sentence_after_the_acknowledgement(tmp_path):
    write_events(tmp_path, [
        (3.2, 'stt.final', 'What is the largest planet?'),
        (3.4, 'frontend.text', ' Okay.'),
        (4.5, 'frontend.text', ' The largest'),
        (5.0, 'frontend.text', ' is Jupiter.'),
        (14.1, 'stt.final', 'How many legs does a spider have?'),
        (14.3, 'frontend.text', ' Okay.'),
        # The right number only in the second sentence: a list is not an answer.
        (15.5, 'frontend.text', ' Spiders have 6 legs.'),
        (16.5, 'frontend.text', ' Or 8.'),
    ])
    first, second = score(tmp_path, SPANS, ASKED)
    assert first.correct and first.heard == 'What is the largest planet?' and first.heard_exactly
    assert first.reply == 'The largest is Jupiter.' and first.reply_words == 4
    assert first.first_word_s == pytest.approx(1.5) and first.answer_s == pytest.approx(2.0)
    assert not second.correct and second.answer_s is None
    assert second.reply_words == 6 and second.first_word_s == pytest.approx(1.5)


def test_silence_is_no_reply_and_words_before_the_end_of_the_question_do_not_count(tmp_path):
    write_events(tmp_path, [(2.0, 'frontend.text', ' Jupiter.')])  # during the question
    first, second = score(tmp_path, SPANS, ASKED)
    assert (first.correct, first.reply_words, first.first_word_s) == (False, 0, None)
    assert second.reply == '' and second.heard == '' and not second.heard_exactly


def test_every_question_has_answers_and_a_source():
    assert len(QUESTIONS) >= 50 and len({q.text for q in QUESTIONS}) == len(QUESTIONS)
    for q in QUESTIONS:
        assert q.text.endswith('?') and q.answers and q.source.startswith('https://')
        assert all(a == a.lower() and ' ' not in a for a in q.answers)


@pytest.mark.parametrize('args, message', [
    (['--oracle', 'no-equals-sign'], 'expected LABEL=ROS_ARGS'),
    (['--questions', '0'], '--questions must be'),
    (['--voices', 'nobody'], 'invalid choice'),
    (['--realtime-factor', '-1'], '--realtime-factor must be >= 0'),
    (['--text', '--oracle', 'warm=-p oracle:temperature:=0.7'],
     "warm also sets 'oracle:temperature:=0.7': compare it without --text"),
    (['--text', '--oracle', 'mic=-p stt:model:=small.en'], "mic also sets 'stt:model:=small.en'"),
])
def test_bad_arguments_are_one_line_and_fail_before_any_model_loads(
        processes, tmp_path, args, message):
    fails_in_one_line_before_any_model(processes, 'kame_ros_bench_knowledge', tmp_path / 'k', args,
                                       message)


def test_two_spoken_questions_through_the_whole_agent(processes, tmp_path):
    pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')
    out = tmp_path / 'k'
    proc = processes.start('kame_ros_bench_knowledge', '--questions', '2', '--voices', 'hibari',
                           '--out', str(out))
    assert proc.wait(timeout=300) == 0, processes.log(proc)
    rows = json.loads((out / 'knowledge.json').read_text())
    assert [r['question'] for r in rows] == [q.text for q in QUESTIONS[:2]]
    for row, key in zip(rows, ('france', 'japan')):
        assert key in row['heard'].lower(), row
        assert row['reply_words'] > 0 and row['first_word_s'] > 0, row
    assert (out / 'knowledge.png').stat().st_size > 0
    assert '| qwen2.5-coder-1.5b (embedded) | hibari |' in (out / 'knowledge.md').read_text()


def test_text_mode_screens_a_model_without_speech_and_refuses_a_missing_one(processes, tmp_path):
    pytest.importorskip('llama_cpp', reason='scripts/setup.sh installs llama-cpp-python')
    out = tmp_path / 'text'
    proc = processes.start('kame_ros_bench_knowledge', '--text', '--questions', '3',
                           '--out', str(out))
    assert proc.wait(timeout=120) == 0, processes.log(proc)
    rows = json.loads((out / 'knowledge.json').read_text())
    assert [(r['voice'], r['heard']) for r in rows] == [('text', q.text) for q in QUESTIONS[:3]]
    assert all(r['reply_words'] > 0 for r in rows), rows
    proc = processes.start('kame_ros_bench_knowledge', '--text', '--oracle',
                           f'gone=-p oracle:model:={tmp_path / "gone.gguf"}', '--out', str(out))
    assert proc.wait(timeout=60) != 0
    log = processes.log(proc)
    assert 'gone: model not found' in log and 'Traceback' not in log, log
