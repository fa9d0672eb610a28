"""The figure check reads German: thousands points, Milliarden, Mrd., compound number words."""

import datetime
from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text):
    return [figure.key for figure in extract_figures(text, language="de")]


def texts(figures):
    return [figure.text for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("Die Inflation stieg auf 3,2 Prozent.", "%", "3.2"),
        ("Die Arbeitslosenquote sank um 3,2 %.", "%", "3.2"),
        ("Der Bund investiert 3,5 Milliarden Euro.", "EUR", "3500000000"),
        ("Der Konzern verlor 3,5 Mrd. Euro.", "EUR", "3500000000"),
        ("Die Stadt hat 1,2 Mio. Einwohner.", "", "1200000"),
        ("Die Gemeinde zählt 1.234 Einwohner.", "", "1234"),
        ("Das Paket kostet 1.234,5 Millionen Euro.", "EUR", "1234500000"),
        ("Der Zins fiel um 1,5 Prozentpunkte.", "pp", "1.5"),
        ("Die Schulden liegen bei 2 Billionen Euro.", "EUR", "2000000000000"),
        ("Der Umsatz wuchs 2,6-fach.", "×", "2.6"),
        ("Die Seite lädt in 3 Sekunden.", "s", "3"),
        ("Die Firma zahlte 40 Mio. US-Dollar.", "USD", "40000000"),
        ("Der Preis beträgt 1'234.50 Franken.", "CHF", "1234.5"),
    ],
)
def test_a_german_sentence_yields_its_figure(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_german_number_after_a_capitalised_noun_is_not_a_name():
    assert keys("Im Jahr 2025 stieg die Zahl der Anträge.") == [("", Decimal(2025))]


def test_a_german_label_word_still_names_a_number():
    assert extract_figures("siehe Abbildung 3 und Tabelle 4", language="de") == []


def test_the_german_milliarde_is_a_thousand_million_and_the_billion_a_million_million():
    assert keys("2 Milliarden") == [("", Decimal(2 * 10**9))]
    assert keys("2 Mrd.") == [("", Decimal(2 * 10**9))]
    assert keys("2 Billionen") == [("", Decimal(2 * 10**12))]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("Die Quote stieg auf zweiundzwanzig Prozent.", "%", 22),
        ("Es kamen drei Millionen Besucher.", "", 3_000_000),
        ("Tausend Menschen demonstrierten.", "", 1000),
        ("Es gab dreihundertfünfzigtausend Anträge.", "", 350_000),
        ("Der Staat zahlte zwei Milliarden Euro.", "EUR", 2_000_000_000),
        ("Die Miete stieg um sechzehn Prozent.", "%", 16),
    ],
)
def test_german_numbers_in_words_are_read_up_to_the_millions(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_spaced_und_between_german_number_words_ends_the_number():
    assert keys("drei und vier Prozent") == [("%", Decimal(4))]


def test_a_german_number_in_words_without_a_scale_or_unit_is_not_a_figure():
    assert extract_figures("Ein Mann und drei Frauen kamen.", language="de") == []


def test_german_dates_are_dates():
    assert keys("Am 27. Oktober 2026 wurde es bekannt.") == [("date", datetime.date(2026, 10, 27))]


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("Die Inflation lag bei 3,2 Prozent.", "eine Inflation von 3,2 %"),
        ("Der Bund investiert 3,5 Milliarden Euro.", "Investitionen von 3,5 Mrd. Euro"),
        ("Der Bund investiert 3,5 Milliarden Euro.", "Investitionen von 3.500 Mio. €"),
        ("Es kamen drei Millionen Besucher.", "3 Mio. Besucher"),
    ],
)
def test_the_same_german_figure_written_two_ways_does_not_warn(statement, evidence):
    assert missing_figures(statement, [evidence], language="de") == []


@pytest.mark.parametrize(
    ("statement", "evidence", "reported"),
    [
        (
            "Der Bund investiert 3,5 Milliarden Euro.",
            "Investitionen von 3,5 Millionen Euro",
            "3,5 Milliarden Euro",
        ),
        (
            "Der Bund investiert 3,5 Milliarden Euro.",
            "Investitionen von 3,5 Billionen Euro",
            "3,5 Milliarden Euro",
        ),
        (
            "Der Zins fiel um 1,5 Prozentpunkte.",
            "der Zins fiel um 1,5 Prozent",
            "1,5 Prozentpunkte",
        ),
    ],
)
def test_a_german_figure_that_differs_from_the_evidence_warns(statement, evidence, reported):
    assert texts(missing_figures(statement, [evidence], language="de")) == [reported]
