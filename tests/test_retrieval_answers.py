"""Answer grading (docs/retrieval-rag.md): the spec's test vectors and the edge rules."""

from __future__ import annotations

import pytest

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.retrieval import answers as A

NUMERIC_PASS = [
    ("$1577.00", "$1,577 million"),
    ("$1577.00", "About $1.577 billion"),
    ("24.26", "roughly 24.3"),
    ("1.9%", "1.9 percent"),
    ("1.9%", "0.019 of revenue"),
    ("-0.02", "(0.02)"),
    ("1998", "founded in 1998"),
    ("-3.5%", "Sales declined 3.5%"),
]
NUMERIC_FAIL = [
    ("0.66", "0.70"),
    ("$1577.00", "$1,373 million"),
    ("$1577.00", "I cannot find that in the documents."),
    ("-3.5%", "Sales rose 3.5%"),
    ("20.2%", "fiscal 2020"),
    ("12", "1,200 basis points"),
]


@pytest.mark.parametrize(("gold", "reply"), NUMERIC_PASS)
def test_numeric_vectors_that_must_pass(gold: str, reply: str) -> None:
    assert A.numeric_match(gold, reply)


@pytest.mark.parametrize(("gold", "reply"), NUMERIC_FAIL)
def test_numeric_vectors_that_must_fail(gold: str, reply: str) -> None:
    assert not A.numeric_match(gold, reply)


def test_numeric_tolerance_is_one_percent_of_the_gold() -> None:
    assert A.numeric_match("100", "it is 100.99")
    assert not A.numeric_match("100", "it is 101.01")
    assert A.numeric_match("100", "it is 99.01")
    assert not A.numeric_match("100", "it is 98.99")


def test_numeric_percent_scales_only_when_exactly_one_side_has_percent() -> None:
    # Both sides "%": 19% is not 0.19%.
    assert not A.numeric_match("0.19%", "19%")
    # Neither side: 19 is not 0.19.
    assert not A.numeric_match("0.19", "19")
    assert A.numeric_match("19%", "a share of 0.19")


def test_numeric_any_number_of_the_reply_counts_and_first_of_the_gold_is_the_target() -> None:
    assert A.numeric_match("2,400 MHz (boost 2,600)", "clock 1,000 then 2400 MHz")
    assert not A.numeric_match("2,400 MHz (boost 2,600)", "only 2,600")


def test_numeric_sign_rule_positive_gold_accepts_parenthesised_outflow() -> None:
    assert A.numeric_match("1234", "cash used (1,234)")
    assert A.numeric_match("-5", "it fell by 5")
    assert A.numeric_match("-5", "\u22125")  # Unicode minus
    assert not A.numeric_match("-5", "the downside is 5")  # "downside" is not "down"


def test_year_like_number_never_matches_a_non_year_gold() -> None:
    assert not A.numeric_match("2020000", "in 2020 thousand")  # 2020 x 1e3, but a year
    assert A.numeric_match("2020000", "2,020,000 in total")


def test_numeric_gold_without_a_number_is_a_labelling_error() -> None:
    with pytest.raises(InvalidInputError, match="holds no number"):
        A.numeric_match("about half", "50%")


@pytest.mark.parametrize(
    "gold", ["$1577.00", "24.26", "1.9%", "-0.02", "(1,234)", "1998", " 12 ", "\u22121.5"]
)
def test_numeric_gold_detection_accepts_number_shapes(gold: str) -> None:
    assert A.is_numeric_gold(gold)


@pytest.mark.parametrize("gold", ["AES converted inventory 9.5 times", "2,400 MHz", "MI300X", ""])
def test_numeric_gold_detection_rejects_text(gold: str) -> None:
    assert not A.is_numeric_gold(gold)


def test_number_flags() -> None:
    (n,) = A.numbers("(12.5%)")
    assert (n.value, n.negative, n.percent, n.year_like) == (12.5, True, True, False)
    (y,) = A.numbers("in 1998")
    assert y.year_like and not y.negative
    assert not A.numbers("1999")[0].negative
    assert not A.numbers("2100")[0].year_like
    assert not A.numbers("19981")[0].year_like


# ---- exact -------------------------------------------------------------------------------


def test_normalize_is_squad_style_and_unicode_safe() -> None:
    assert A.normalize("  The  Quick, brown-fox! ") == "quick brown fox"
    assert A.normalize("ＡＢＣ") == "abc"  # NFKC full-width
    assert A.normalize("答案是北京。") == "答案是北京"
    assert A.normalize("¿Dónde está?") == "dónde está"
    assert A.normalize("an apple a day") == "apple day"


@pytest.mark.parametrize(
    ("gold", "reply"),
    [
        ("2x", "about 12x faster"),
        ("six", "sixty of them"),
        ("No", "I do not know"),
    ],
)
def test_exact_needs_whole_ascii_tokens(gold: str, reply: str) -> None:
    assert not A.exact_match(gold, [], reply)


@pytest.mark.parametrize(
    ("gold", "reply"),
    [
        ("北京", "答案是北京。"),
        ("2x", "It is 2x faster."),
        ("The MI300X", "the answer: mi300x!"),
        ("six", "Six."),
        ("São Paulo", "It was São Paulo, Brazil"),
    ],
)
def test_exact_matches_in_the_reply(gold: str, reply: str) -> None:
    assert A.exact_match(gold, [], reply)


def test_exact_matches_an_alias_and_a_later_occurrence() -> None:
    assert A.exact_match("Gemini", ["Project Gemini"], "it was project gemini")
    assert A.exact_match("six", [], "sixty or six")
    assert not A.exact_match("the", [], "the answer")  # empty after normalisation


def test_token_f1() -> None:
    assert A.token_f1("the quick fox", "quick fox") == 1.0
    assert A.token_f1("quick brown fox", "quick fox jumps") == pytest.approx(2 / 3)
    assert A.token_f1("fox", "") == 0.0


# ---- judge, grade, outcome ---------------------------------------------------------------


def test_parse_judge_finds_the_object_and_never_reads_garbage_as_false() -> None:
    assert A.parse_judge('Sure. {"correct": true}') is True
    assert A.parse_judge('{"reason": "x"} then {"correct": false}') is False
    for bad in ("no", '{"correct": "yes"}', "{not json}", ""):
        with pytest.raises(A.JudgeReplyError):
            A.parse_judge(bad)


def test_judge_prompt_carries_question_reference_and_candidate() -> None:
    p = A.judge_prompt("Q?", "REF", "CAND")
    assert "Q?" in p and "REF" in p and "CAND" in p and '"correct"' in p


def test_grade_by_type() -> None:
    assert A.grade("numeric", "1.9%", [], "0.019") is True
    assert A.grade("exact", "Paris", ["City of Paris"], "It is Paris.") is True
    assert A.grade("exact", "Paris", [], "It is Lyon.") is False
    assert A.grade("judge", "a long answer", [], "anything") is None
    with pytest.raises(InvalidInputError, match="answer_type"):
        A.grade("fuzzy", "x", [], "x")


@pytest.mark.parametrize(
    ("correct", "in_context", "expected"),
    [
        (True, True, "correct"),
        (True, False, "correct_without_evidence"),
        (False, True, "generation_miss"),
        (False, False, "retrieval_miss"),
        (None, True, "unscored"),
        (None, False, "unscored"),
    ],
)
def test_outcome(correct: bool | None, in_context: bool, expected: str) -> None:
    assert A.outcome(correct, in_context) == expected
