"""The figure check reads Spanish: decimal comma, thousands points, long scale, words."""

import datetime
from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text):
    return [figure.key for figure in extract_figures(text, language="es")]


def texts(figures):
    return [figure.text for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("La inflación interanual subió al 3,2 % en marzo.", "%", "3.2"),
        ("El paro bajó un 3,2 por ciento.", "%", "3.2"),
        ("La deuda alcanzó los 1.234,5 millones de euros.", "EUR", "1234500000"),
        ("El Gobierno destinará 1.200 millones de euros a la obra.", "EUR", "1200000000"),
        ("El déficit llegó a 3 mil millones de dólares.", "USD", "3000000000"),
        ("La deuda pública supera el billón de euros: 1,5 billones.", "", "1500000000000"),
        ("El municipio tiene 1.234 habitantes.", "", "1234"),
        ("El municipio tiene 12 345 habitantes.", "", "12345"),
        ("El índice cayó 1,5 puntos porcentuales.", "pp", "1.5"),
        ("El tráfico se multiplicó por 2,6 veces.", "×", "2.6"),
        ("La respuesta tardó 3 segundos.", "s", "3"),
        ("Las exportaciones sumaron 250.000 toneladas.", "", "250000"),
        ("Una subida de 0,125 puntos.", "", "0.125"),
        ("El fondo tiene 2,5 mil millones de euros.", "EUR", "2500000000"),
        ("Costó 3,50 €.", "EUR", "3.5"),
        ("Costó 1.234,5 €.", "EUR", "1234.5"),
        ("Pagó US$ 40 millones.", "USD", "40000000"),
    ],
)
def test_a_spanish_sentence_yields_its_figure(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_spanish_decimal_comma_is_read_as_a_decimal():
    assert keys("un 1,5 por ciento") == [("%", Decimal("1.5"))]
    assert keys("1,234") == [("", Decimal("1.234"))]


def test_a_spanish_thousands_point_is_read_as_a_grouping():
    assert keys("1.234") == [("", Decimal(1234))]
    assert keys("1.234.567") == [("", Decimal(1234567))]


def test_spanish_billon_is_the_long_scale_and_mil_millones_a_thousand_million():
    assert keys("2 billones") == [("", Decimal(2 * 10**12))]
    assert keys("2 mil millones") == [("", Decimal(2 * 10**9))]
    assert keys("3 mil") == [("", Decimal(3000))]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("Hay tres millones de parados.", "", 3_000_000),
        ("Llegaron doscientos cincuenta mil visitantes.", "", 250_000),
        ("El paro subió un veintitrés por ciento.", "%", 23),
        ("La obra costó tres mil millones de euros.", "EUR", 3_000_000_000),
        ("Cobró un millón de dólares.", "USD", 1_000_000),
        ("Votaron dos millones trescientos mil electores.", "", 2_300_000),
        ("Subió treinta y dos por ciento.", "%", 32),
    ],
)
def test_spanish_numbers_in_words_are_read_up_to_the_millions(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


@pytest.mark.parametrize(
    "sentence",
    [
        "Hubo un problema con los datos.",
        "Llegaron tres amigos.",
        "Millones de personas lo vieron.",
    ],
)
def test_a_spanish_number_in_words_without_a_scale_or_unit_is_not_a_figure(sentence):
    assert extract_figures(sentence, language="es") == []


def test_spanish_dates_are_dates_and_their_digits_not_numbers():
    assert keys("El 27 de octubre de 2026 se publicó.") == [("date", datetime.date(2026, 10, 27))]
    assert keys("en octubre de 2026") == [("month-year", datetime.date(2026, 10, 1))]


def test_spanish_ranges_share_the_scale_and_unit():
    assert keys("de 2 a 3 millones de euros") == [
        ("EUR", Decimal(2_000_000)),
        ("EUR", Decimal(3_000_000)),
    ]


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("La inflación fue del 3,2 %.", "la inflación se situó en el 3,2 por ciento"),
        ("Costará 1.200 millones de euros.", "un coste de 1,2 mil millones de euros"),
        ("Costará 1.200 millones de euros.", "un coste de EUR 1.200.000.000"),
        ("Votaron tres millones de personas.", "votaron 3.000.000 de personas"),
        ("Cayó 1,5 puntos porcentuales.", "cayó 1,5 p. p."),
    ],
)
def test_the_same_spanish_figure_written_two_ways_does_not_warn(statement, evidence):
    assert missing_figures(statement, [evidence], language="es") == []


@pytest.mark.parametrize(
    ("statement", "evidence", "reported"),
    [
        ("La inflación fue del 3,2 %.", "la inflación fue del 2,3 %", "3,2 %"),
        (
            "Costará 1.200 millones de euros.",
            "costará 1.200 millones de dólares",
            "1.200 millones de euros",
        ),
        (
            "Costará 1.200 millones de euros.",
            "costará 1.200 billones de euros",
            "1.200 millones de euros",
        ),
        ("Cayó 1,5 puntos porcentuales.", "cayó un 1,5 %", "1,5 puntos porcentuales"),
    ],
)
def test_a_spanish_figure_that_differs_from_the_evidence_warns(statement, evidence, reported):
    assert texts(missing_figures(statement, [evidence], language="es")) == [reported]


def test_a_spanish_statement_is_supported_by_english_evidence():
    statement = "La deuda creció un 3,2 % hasta 1.200 millones de euros."
    assert (
        missing_figures(statement, [("debt grew 3.2 per cent to €1.2bn", "en")], language="es")
        == []
    )
