"""Exercises that teach (issue 21, item 5): in every set at least half of the points
(public and hidden tests together) go to exercises that need thought.

An exercise's ``kind`` says what it asks for.  ``formula`` means the result is shown on the
page, in the docstring or in the chapter section it points to, so coding it is transcription;
every other kind (a derivation whose result is not displayed, a proof step, a whole
algorithm, an experiment whose conclusion the student states, an error not corrected in the
chapter, a concept) needs thought.  Declaring a kind honestly is the author's duty
(``CONTRIBUTING.md``); this test keeps the balance once it is declared, and fails the moment a
set's transcription points outweigh the rest.
"""

from pathlib import Path

import pytest

from linclf_grader import available_sets, get_set
from linclf_grader.framework import KINDS, load_private_tests

ROOT = Path(__file__).resolve().parents[1]
RECALL = {"formula"}


def points_by_exercise(set_name):
    exset = get_set(set_name)
    points = {name: exset.max_points(name) for name in exset.exercises}
    for t in load_private_tests(ROOT / "exercises" / "solutions", exset):
        points[t.exercise] += t.points
    return exset, points


def test_recall_is_the_only_kind_that_needs_no_thought():
    assert RECALL < set(KINDS)


@pytest.mark.parametrize("set_name", sorted(available_sets()))
def test_at_least_half_the_points_need_thought(set_name):
    exset, points = points_by_exercise(set_name)
    thought = sum(p for name, p in points.items() if exset.exercises[name].kind not in RECALL)
    total = sum(points.values())
    assert total > 0
    assert thought >= total / 2, (
        f"{set_name}: {thought:g} of {total:g} points need thought; the rest are transcription"
        f" ({', '.join(n for n, e in exset.exercises.items() if e.kind in RECALL)})")


@pytest.mark.parametrize("set_name", sorted(available_sets()))
def test_every_exercise_has_a_hidden_test(set_name):
    """A table of the public tests' inputs and outputs (students can read them) earns full
    marks on an exercise with no hidden test; every exercise has one on other inputs."""
    exset = get_set(set_name)
    hidden = {t.exercise for t in load_private_tests(ROOT / "exercises" / "solutions", exset)}
    missing = [name for name in exset.exercises if name not in hidden]
    assert not missing, f"{set_name}: no hidden test for {', '.join(missing)}"
    for name, ex in exset.exercises.items():
        declared = sum(1 for t in load_private_tests(ROOT / "exercises" / "solutions", exset)
                       if t.exercise == name)
        assert ex.hidden_tests == declared, (name, ex.hidden_tests, declared)
