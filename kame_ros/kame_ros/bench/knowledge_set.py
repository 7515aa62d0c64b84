# Copyright 2026 kame_ros developers
# SPDX-License-Identifier: Apache-2.0
"""
The knowledge benchmark's questions: short spoken facts with known answers and their sources.

Written for this benchmark (no QA set ships in a registry package we can
install here); each answer is the one the cited Wikipedia article states.
``answers`` are the words that count as right in the reply's first
sentence (digits and number words both, as an LLM writes either).
"""
from dataclasses import dataclass

WIKI = 'https://en.wikipedia.org/wiki/'


@dataclass(frozen=True)
class Question:
    """One spoken question, the words that answer it, and where the answer is written down."""

    text: str
    answers: tuple[str, ...]
    source: str


def _q(text: str, answers: str, article: str) -> Question:
    return Question(text, tuple(answers.split()), WIKI + article)


QUESTIONS = (
    _q('What is the capital of France?', 'paris', 'Paris'),
    _q('What is the capital of Japan?', 'tokyo', 'Tokyo'),
    _q('What is the capital of Italy?', 'rome', 'Rome'),
    _q('What is the capital of Germany?', 'berlin', 'Berlin'),
    _q('What is the capital of Spain?', 'madrid', 'Madrid'),
    _q('What is the capital of Canada?', 'ottawa', 'Ottawa'),
    _q('What is the capital of Australia?', 'canberra', 'Canberra'),
    _q('What is the capital of Egypt?', 'cairo', 'Cairo'),
    _q('What is the capital of Russia?', 'moscow', 'Moscow'),
    _q('What is the capital of China?', 'beijing', 'Beijing'),
    _q('What is the capital of England?', 'london', 'London'),
    _q('How many legs does a spider have?', 'eight 8', 'Spider'),
    _q('How many legs does an insect have?', 'six 6', 'Insect'),
    _q('How many days are in a week?', 'seven 7', 'Week'),
    _q('How many months are in a year?', 'twelve 12', 'Month'),
    _q('How many minutes are in an hour?', 'sixty 60', 'Hour'),
    _q('How many hours are in a day?', 'twenty 24', 'Day'),
    _q('How many continents are there?', 'seven 7', 'Continent'),
    _q('How many planets are in the solar system?', 'eight 8', 'Solar_System'),
    _q('What is the largest planet in the solar system?', 'jupiter', 'Jupiter'),
    _q('Which planet is closest to the sun?', 'mercury', 'Mercury_(planet)'),
    _q('Which planet is known as the red planet?', 'mars', 'Mars'),
    _q('What is the closest star to the Earth?', 'sun', 'Sun'),
    _q('What is the largest ocean on Earth?', 'pacific', 'Pacific_Ocean'),
    _q('What is the longest river in Africa?', 'nile', 'Nile'),
    _q('What is the tallest mountain in the world?', 'everest', 'Mount_Everest'),
    _q('What is the largest country by area?', 'russia', 'Russia'),
    _q('What is the freezing point of water in Celsius?', 'zero 0', 'Melting_point'),
    _q('What is the boiling point of water in Celsius?', 'hundred 100', 'Boiling_point'),
    _q('What is frozen water called?', 'ice', 'Ice'),
    _q('What gas do plants take in from the air?', 'carbon co2', 'Photosynthesis'),
    _q('What is the hardest natural material?', 'diamond diamonds', 'Diamond'),
    _q('Which organ pumps blood through the body?', 'heart', 'Heart'),
    _q('Who wrote Romeo and Juliet?', 'shakespeare', 'Romeo_and_Juliet'),
    _q('Who painted the Mona Lisa?', 'leonardo vinci', 'Mona_Lisa'),
    _q('Who developed the theory of relativity?', 'einstein', 'Theory_of_relativity'),
    _q('Who was the first president of the United States?', 'washington',
       'President_of_the_United_States'),
    _q('Who was the first person to walk on the moon?', 'armstrong', 'Neil_Armstrong'),
    _q('What is the largest mammal?', 'whale whales', 'Blue_whale'),
    _q('What is the fastest land animal?', 'cheetah cheetahs', 'Cheetah'),
    _q('Which animal is called the king of the jungle?', 'lion lions', 'Lion'),
    _q('What do bees make?', 'honey', 'Honey'),
    _q('What do caterpillars turn into?', 'butterfly butterflies moth moths', 'Caterpillar'),
    _q('What color is the sky on a clear day?', 'blue', 'Diffuse_sky_radiation'),
    _q('What color do you get when you mix blue and yellow?', 'green', 'Secondary_color'),
    _q('What is the opposite of hot?', 'cold', 'Cold'),
    _q('How many sides does a triangle have?', 'three 3', 'Triangle'),
    _q('How many sides does a hexagon have?', 'six 6', 'Hexagon'),
    _q('What is two plus three?', 'five 5', 'Addition'),
    _q('What is ten minus four?', 'six 6', 'Subtraction'),
    _q('What is three times four?', 'twelve 12', 'Multiplication'),
    _q('What language is spoken in Brazil?', 'portuguese', 'Brazil'),
    _q('What language is spoken in Mexico?', 'spanish', 'Mexico'),
    _q('What is the currency of Japan?', 'yen', 'Japanese_yen'),
    _q('What is the largest desert in Africa?', 'sahara', 'Sahara'),
    _q('How many players are on a soccer team on the field?', 'eleven 11',
       'Association_football'),
)
