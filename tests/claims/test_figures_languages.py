"""The figure check's language argument: codes, the neutral reading, mixed-language evidence."""

from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text, language):
    return [figure.key for figure in extract_figures(text, language=language)]


def texts(figures):
    return [figure.text for figure in figures]


def test_the_language_defaults_to_english():
    assert keys("1.234 and 1,234", "en") == [("", Decimal("1.234")), ("", Decimal(1234))]
    assert [figure.key for figure in extract_figures("1.234 and 1,234")] == keys(
        "1.234 and 1,234", "en"
    )


@pytest.mark.parametrize("language", ["pt", "pt-br", "pt-BR", "pt_BR", "pt-pt"])
def test_every_portuguese_code_reads_portuguese(language):
    assert keys("R$ 2,5 bi e 1.234 votos", language) == [
        ("BRL", Decimal(2_500_000_000)),
        ("", Decimal(1234)),
    ]


@pytest.mark.parametrize("language", ["en", "es", "pt-br", "fr", "de", "ar", "it", "zh-hans", ""])
@pytest.mark.parametrize(
    ("written", "value"),
    [("1.234,5", "1234.5"), ("1,234.5", "1234.5"), ("1 234,5", "1234.5"), ("1'234.5", "1234.5")],
)
def test_an_unambiguous_number_is_read_the_same_in_every_language(language, written, value):
    assert keys(f"a total of {written} in all", language) == [("", Decimal(value))]


@pytest.mark.parametrize("language", ["en", "es", "pt-br", "fr", "de", "ar", "it"])
def test_a_decimal_comma_before_other_than_three_digits_is_read_in_every_language(language):
    assert keys("up 3,2 % on the year", language) == [("%", Decimal("3.2"))]


@pytest.mark.parametrize(
    ("language", "point", "comma"),
    [
        ("en", "1.234", "1234"),
        ("ar", "1.234", "1234"),
        ("es", "1234", "1.234"),
        ("pt-br", "1234", "1.234"),
        ("fr", "1234", "1.234"),
        ("de", "1234", "1.234"),
    ],
)
def test_a_single_separator_before_three_digits_is_read_as_the_language_writes_it(
    language, point, comma
):
    assert keys("x 1.234 y", language) == [("", Decimal(point))]
    assert keys("x 1,234 y", language) == [("", Decimal(comma))]


def test_an_unknown_language_reads_a_single_separator_before_three_digits_as_thousands():
    assert keys("x 1.234 y 1,234 z 1,5", "it") == [
        ("", Decimal(1234)),
        ("", Decimal(1234)),
        ("", Decimal("1.5")),
    ]


def test_an_unknown_language_reads_symbols_and_codes_but_no_words():
    assert keys("€3,5 e 12 % e USD 40m", "it") == [
        ("EUR", Decimal("3.5")),
        ("%", Decimal(12)),
        ("USD", Decimal(40_000_000)),
    ]
    assert keys("tre milioni", "it") == []


def test_scale_words_are_read_only_in_their_own_language():
    # A Portuguese "2 mi" is two million; in English it is two miles, not a figure scale.
    assert keys("2 mi", "pt-br") == [("", Decimal(2_000_000))]
    assert keys("2 mi", "en") == [("", Decimal(2))]


def test_evidence_may_be_in_another_language_than_the_statement():
    statement = "Inflation rose to 3.2 per cent and the plan costs €1.2bn."
    evidence = [
        ("La inflación subió al 3,2 %.", "es"),
        ("Le plan coûte 1,2 milliard d'euros.", "fr"),
    ]
    assert missing_figures(statement, evidence) == []


def test_evidence_strings_are_read_in_the_statements_language():
    assert missing_figures("Subió un 1.234 %.", ["subió un 1234 %"], language="es") == []
    assert texts(missing_figures("Rose 1.234 %.", ["rose 1234 %"])) == ["1.234 %"]


def test_mixed_evidence_of_strings_and_pairs_is_read_each_in_its_language():
    statement = "Der Bund investiert 3,5 Milliarden Euro, 2,6-mal so viel."
    evidence = ["2,6-mal so viel", ("an investment of €3.5bn", "en")]
    assert missing_figures(statement, evidence, language="de") == []
    missing = missing_figures(statement, [("an investment of €3.5m", "en")], language="de")
    assert texts(missing) == ["3,5 Milliarden Euro", "2,6-mal"]
