"""The figure check reads Portuguese, of Brazil and of Portugal."""

import datetime
from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text, language="pt-br"):
    return [figure.key for figure in extract_figures(text, language=language)]


def texts(figures):
    return [figure.text for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("A inflação oficial subiu 3,2% em março.", "%", "3.2"),
        ("O desemprego caiu 3,2 por cento no trimestre.", "%", "3.2"),
        ("A Petrobras lucrou R$ 2,5 bi no trimestre.", "BRL", "2500000000"),
        ("O programa custará R$ 300 mi por ano.", "BRL", "300000000"),
        ("O rombo chegou a R$ 1,2 tri.", "BRL", "1200000000000"),
        ("A empresa captou US$ 40 bilhões.", "USD", "40000000000"),
        ("O banco emprestou R$ 1.234,5 milhões.", "BRL", "1234500000"),
        ("O município tem 1.234 habitantes.", "", "1234"),
        ("A taxa Selic caiu 0,5 ponto percentual.", "pp", "0.5"),
        ("A Selic caiu 1,5 pontos percentuais.", "pp", "1.5"),
        ("As vendas cresceram 2,6 vezes.", "×", "2.6"),
        ("O aplicativo abre em 3 segundos.", "s", "3"),
        ("Foram 3 mil inscritos.", "", "3000"),
        ("A dívida soma 2,5 bilhões de reais.", "BRL", "2500000000"),
    ],
)
def test_a_brazilian_sentence_yields_its_figure(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("O Estado gastou 2,5 mil milhões de euros.", "EUR", 2_500_000_000),
        ("A dívida pública ultrapassa um bilião de euros.", "EUR", 10**12),
        ("O défice foi de 1 234,5 milhões de euros.", "EUR", 1_234_500_000),
    ],
)
def test_a_portuguese_sentence_from_portugal_yields_its_figure(sentence, unit, value):
    assert keys(sentence, language="pt") == [(unit, Decimal(value))]


def test_the_brazilian_bilhao_is_a_thousand_million_and_the_portuguese_biliao_a_million_million():
    assert keys("2 bilhões") == [("", Decimal(2 * 10**9))]
    assert keys("2 biliões", language="pt") == [("", Decimal(2 * 10**12))]
    assert keys("2 mil milhões", language="pt") == [("", Decimal(2 * 10**9))]


def test_bi_and_mi_are_scales_after_a_number():
    assert keys("2 bi") == [("", Decimal(2 * 10**9))]
    assert keys("300 mi") == [("", Decimal(300 * 10**6))]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("São dois milhões de eleitores.", "", 2_000_000),
        ("Chegaram trezentos mil turistas.", "", 300_000),
        ("O preço subiu vinte e cinco por cento.", "%", 25),
        ("Custou duzentos e cinquenta mil reais.", "BRL", 250_000),
        ("Ganhou um milhão de reais.", "BRL", 1_000_000),
    ],
)
def test_portuguese_numbers_in_words_are_read_up_to_the_millions(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_a_portuguese_number_in_words_without_a_scale_or_unit_is_not_a_figure():
    assert extract_figures("Foi um dia com três reuniões.", language="pt-br") == []


def test_portuguese_dates_are_dates():
    assert keys("Em 1º de maio de 2026, o governo anunciou.") == [
        ("date", datetime.date(2026, 5, 1))
    ]
    assert keys("em 27 de outubro de 2026") == [("date", datetime.date(2026, 10, 27))]


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("O lucro foi de R$ 2,5 bi.", "lucro de 2,5 bilhões de reais"),
        ("O lucro foi de R$ 2,5 bi.", "lucro de BRL 2.500.000.000"),
        ("A inflação foi de 3,2%.", "inflação de 3,2 por cento"),
        ("Foram dois milhões de eleitores.", "2 milhões de eleitores"),
    ],
)
def test_the_same_portuguese_figure_written_two_ways_does_not_warn(statement, evidence):
    assert missing_figures(statement, [evidence], language="pt-br") == []


@pytest.mark.parametrize(
    ("statement", "evidence", "reported"),
    [
        ("O lucro foi de R$ 2,5 bi.", "lucro de R$ 2,5 mi", "R$ 2,5 bi"),
        ("O lucro foi de R$ 2,5 bi.", "lucro de US$ 2,5 bi", "R$ 2,5 bi"),
        ("A inflação foi de 3,2%.", "inflação de 2,3%", "3,2%"),
    ],
)
def test_a_portuguese_figure_that_differs_from_the_evidence_warns(statement, evidence, reported):
    assert texts(missing_figures(statement, [evidence], language="pt-br")) == [reported]
