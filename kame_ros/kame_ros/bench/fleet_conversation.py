# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
One robot's recorded transcript stream (its STT's partials and finals), for the fleet benchmark.

Eight of the knowledge benchmark's questions, spoken by hibari with 7 s
after each (the time to be answered), went through the whole agent once
(``kame_ros_agent --input conversation.wav --out rec``, code 8d17bf7,
this 2-core machine); these are its ``stt.partial`` and ``stt.final``
events from ``rec/events.jsonl``: seconds from the input's start, final or
not, and the text, Whisper's errors on the partials included ("What is
the capital of frame?"). A replay of it gives the server what one robot
gives it: several guesses per question, then the final.
"""

# (seconds from the start, final, text)
TRANSCRIPTS = (
    (1.48, False, 'What is the cap?'),
    (1.97, False, 'What is the capital of frame?'),
    (2.51, False, 'What is the capital of France?'),
    (2.57, True, 'What is the capital of France?'),
    (10.54, False, 'How many legs?'),
    (11.09, False, 'How many legs does a spot?'),
    (11.55, False, 'How many legs does a spider have?'),
    (12.06, True, 'How many legs does a spider have?'),
    (20.00, False, 'What is the largest'),
    (20.50, False, 'What is the largest plant?'),
    (21.00, False, 'What is the largest planet in the'),
    (21.51, False, 'What is the largest planet in the solar system?'),
    (22.18, True, 'What is the largest planet in the solar system?'),
    (30.08, False, 'who wrote Romeo.'),
    (30.59, False, 'who wrote Romeo and Julie.'),
    (31.09, False, 'who wrote Romeo and Juliet.'),
    (31.21, True, 'who wrote Romeo and Juliet.'),
    (39.29, False, 'What is the long?'),
    (39.75, False, 'What is the longest river?'),
    (40.27, False, 'What is the longest river in Africa?'),
    (40.81, True, 'What is the longest river in Africa?'),
    (48.77, False, 'which organ'),
    (49.47, False, 'which organ pumps blood.'),
    (49.86, False, 'which organ pumps blood through the bottom.'),
    (50.30, False, 'which organ pumps blood through the body.'),
    (50.33, True, 'which organ pumps blood through the body.'),
    (58.51, False, 'What language?'),
    (58.87, False, 'What language is spoken?'),
    (59.50, False, 'What language is spoken in Brazil?'),
    (59.85, True, 'What language is spoken in Brazil?'),
    (67.92, False, 'What is the fact?'),
    (68.45, False, 'What is the fastest land?'),
    (68.96, False, 'What is the fastest land animal?'),
    (69.37, True, 'What is the fastest land animal?'),
)
