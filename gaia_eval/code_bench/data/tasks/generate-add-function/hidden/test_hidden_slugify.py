import pytest

import text_utils


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("a -- b", "a-b"),
        ("", ""),
        ("---", ""),
        ("Top 10 Tips", "top-10-tips"),
        ("snake_case_name", "snake-case-name"),
        ("Ærøskøbing", "rskbing"),
        ("日本 guide", "guide"),
        ("ÉCOLE", "ecole"),
        ("already-a-slug", "already-a-slug"),
    ],
)
def test_slugs(text, slug):
    assert text_utils.slugify(text) == slug


def test_max_length_exactly_fits():
    assert text_utils.slugify("the quick", max_length=9) == "the-quick"


def test_max_length_never_ends_in_a_hyphen():
    assert text_utils.slugify("ab cd ef", max_length=6) == "ab-cd"


def test_first_word_longer_than_max_length_is_cut_hard():
    assert text_utils.slugify("abcdefghij klm", max_length=5) == "abcde"


def test_max_length_none_keeps_everything():
    assert text_utils.slugify("a b c d e f g", max_length=None) == "a-b-c-d-e-f-g"
