import text_utils


def test_word_count():
    assert text_utils.word_count("  one two\tthree\n") == 3


def test_title_case():
    assert text_utils.title_case("hELLO wORLD") == "Hello World"
