"""The figure check reads French: spaced thousands, decimal comma, milliards, words."""

import datetime
from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text):
    return [figure.key for figure in extract_figures(text, language="fr")]


def texts(figures):
    return [figure.text for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("L'inflation a atteint 3,2 % sur un an.", "%", "3.2"),
        ("Le chômage a reculé de 3,2 pour cent.", "%", "3.2"),
        ("La commune compte 1 234,5 hectares.", "", "1234.5"),
        ("La commune compte 12 345 habitants.", "", "12345"),
        ("La ville compte 20\u202f000 habitants.", "", "20000"),
        ("Le plan coûte 2,5 milliards d'euros.", "EUR", "2500000000"),
        ("Le budget atteint 3 M€.", "EUR", "3000000"),
        ("Le déficit s'élève à 2,5 Md€.", "EUR", "2500000000"),
        ("Le billet coûte 20 000 €.", "EUR", "20000"),
        ("La dette dépasse 1,2 billion d'euros.", "EUR", "1200000000000"),
        ("Le taux a baissé de 0,5 point de pourcentage.", "pp", "0.5"),
        ("Le trafic a été multiplié par 2,6 fois.", "×", "2.6"),
        ("Le chargement prend 3 secondes.", "s", "3"),
        ("L'État a versé 1,5 million de dollars.", "USD", "1500000"),
    ],
)
def test_a_french_sentence_yields_its_figure(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_french_spaced_thousands_group_is_read_as_a_grouping():
    assert keys("1 234 567 habitants") == [("", Decimal(1234567))]


def test_the_french_milliard_is_a_thousand_million_and_the_billion_a_million_million():
    assert keys("2 milliards") == [("", Decimal(2 * 10**9))]
    assert keys("2 billions") == [("", Decimal(2 * 10**12))]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("Le taux atteint quatre-vingt-dix pour cent.", "%", 90),
        ("Il a gagné soixante-dix pour cent des voix.", "%", 70),
        ("Il reste soixante et onze pour cent.", "%", 71),
        ("Ils sont deux millions à manifester.", "", 2_000_000),
        ("Mille personnes ont signé.", "", 1000),
        ("Une prime de deux cents euros.", "EUR", 200),
        ("Un budget de trois milliards d'euros.", "EUR", 3_000_000_000),
        ("Une hausse de trois pour cent.", "%", 3),
    ],
)
def test_french_numbers_in_words_are_read_up_to_the_millions(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_french_number_in_words_without_a_scale_or_unit_is_not_a_figure():
    assert extract_figures("Un jour, trois amis sont venus.", language="fr") == []


def test_french_dates_are_dates():
    assert keys("Le 1er octobre 2026, le décret est paru.") == [
        ("date", datetime.date(2026, 10, 1))
    ]
    assert keys("le 27 octobre 2026") == [("date", datetime.date(2026, 10, 27))]


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("L'inflation a atteint 3,2 %.", "une inflation de 3,2 pour cent"),
        ("Le plan coûte 2,5 milliards d'euros.", "un plan de 2 500 millions d'euros"),
        ("Le plan coûte 2,5 milliards d'euros.", "un plan de 2,5 Md€"),
        ("Ils sont deux millions.", "ils sont 2 000 000"),
    ],
)
def test_the_same_french_figure_written_two_ways_does_not_warn(statement, evidence):
    assert missing_figures(statement, [evidence], language="fr") == []


@pytest.mark.parametrize(
    ("statement", "evidence", "reported"),
    [
        (
            "Le plan coûte 2,5 milliards d'euros.",
            "un plan de 2,5 millions d'euros",
            "2,5 milliards d'euros",
        ),
        (
            "Le plan coûte 2,5 milliards d'euros.",
            "un plan de 2,5 billions d'euros",
            "2,5 milliards d'euros",
        ),
        ("L'inflation a atteint 3,2 %.", "une inflation de 3,2 points de pourcentage", "3,2 %"),
    ],
)
def test_a_french_figure_that_differs_from_the_evidence_warns(statement, evidence, reported):
    assert texts(missing_figures(statement, [evidence], language="fr")) == [reported]
