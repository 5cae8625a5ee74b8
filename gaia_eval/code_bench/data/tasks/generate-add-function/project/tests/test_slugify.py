import text_utils


def test_simple_title():
    assert text_utils.slugify("Hello, World!") == "hello-world"


def test_accents_are_folded():
    assert text_utils.slugify("  Crème brûlée ") == "creme-brulee"


def test_max_length_cuts_at_a_hyphen():
    assert text_utils.slugify("The quick brown fox", max_length=12) == "the-quick"
