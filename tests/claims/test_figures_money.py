"""The figure check reads money the way English newsrooms write it: currency and scale."""

from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text, language="en"):
    return [figure.key for figure in extract_figures(text, language=language)]


def labels(figures):
    return [figure.label for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("The project overran by £1.2bn, the auditors said.", "GBP", 1_200_000_000),
        ("The council set aside £1.2 million for repairs.", "GBP", 1_200_000),
        ("The start-up raised $40m in its latest round.", "USD", 40_000_000),
        ("The fund is worth 40 billion dollars.", "USD", 40_000_000_000),
        ("It wrote off 1,200 million pounds of debt.", "GBP", 1_200_000_000),
        ("Eurozone bank assets passed €3tn last year.", "EUR", 3_000_000_000_000),
        ("The deal, worth USD 40m, closed on Friday.", "USD", 40_000_000),
        ("The deal was worth 40m USD in cash.", "USD", 40_000_000),
        ("Brussels fined the group EUR 1.2bn on Tuesday.", "EUR", 1_200_000_000),
        ("A stake of 2.5bn EUR changed hands.", "EUR", 2_500_000_000),
        ("The airline lost US$40 million in the quarter.", "USD", 40_000_000),
        ("The company raised $1.2B from investors.", "USD", 1_200_000_000),
        ("Its market value hit $1.2 bn in June.", "USD", 1_200_000_000),
        ("Tickets cost £20 each.", "GBP", 20),
        ("Petrobras paid R$ 2,5 bi in dividends.", "BRL", 2_500_000_000),
        ("Ottawa pledged C$500m for the bridge.", "CAD", 500_000_000),
        ("Canberra set aside A$2bn for defence.", "AUD", 2_000_000_000),
        ("The plan costs five million pounds.", "GBP", 5_000_000),
        ("Aid reached forty billion dollars.", "USD", 40_000_000_000),
        ("Salaries rose by $5k a year.", "USD", 5_000),
    ],
)
def test_a_money_figure_has_its_currency_as_unit_and_its_scale_in_the_value(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


@pytest.mark.parametrize(
    ("before", "after", "unit"),
    [
        ("R$ 40", "40 R$", "BRL"),
        ("USD 40", "40 USD", "USD"),
        ("EUR 40", "40 EUR", "EUR"),
        ("€40", "40 €", "EUR"),
        ("$40", "40 $", "USD"),
    ],
)
def test_a_currency_before_or_after_the_number_is_the_same_unit(before, after, unit):
    assert (
        keys(f"it cost {before} in all") == keys(f"it cost {after} in all") == [(unit, Decimal(40))]
    )


def test_a_currency_symbol_before_the_next_number_is_not_the_previous_ones():
    assert keys("in 2025 R$ 3 bi", "pt-br") == [("", Decimal(2025)), ("BRL", Decimal(3 * 10**9))]


def test_the_currency_symbol_and_scale_are_part_of_the_figures_text():
    (figure,) = extract_figures("The project overran by £1.2bn, the auditors said.")
    assert figure.text == "£1.2bn"
    assert labels([figure]) == ["1,200,000,000 GBP"]


def test_a_glued_multiplier_without_a_currency_is_still_a_name():
    assert extract_figures("On Llama 1B, the canonical workload") == []
    assert extract_figures("It served 3bn people.") == []
    assert extract_figures("a 70K context window") == []


def test_a_glued_multiplier_before_a_currency_word_is_a_scale():
    assert keys("a 1.2bn dollars loan") == [("USD", Decimal(1_200_000_000))]


def test_a_spaced_abbreviation_without_a_currency_is_not_a_scale():
    assert keys("the 40 m sprint") == [("", Decimal(40))]


def test_a_money_range_shares_its_currency_and_scale():
    assert keys("The round raised $40–50m.") == [
        ("USD", Decimal(40_000_000)),
        ("USD", Decimal(50_000_000)),
    ]
    assert keys("from 1.5 to 2 million tokens") == [
        ("count:token", Decimal(1_500_000)),
        ("count:token", Decimal(2_000_000)),
    ]


def test_a_range_whose_first_endpoint_is_larger_when_scaled_keeps_its_own_value():
    assert keys("between 500 and 2 million tokens") == [
        ("count:token", Decimal(500)),
        ("count:token", Decimal(2_000_000)),
    ]


def test_a_statement_billion_against_evidence_million_warns():
    missing = missing_figures("The overrun was £1.2bn.", ["The overrun was £1.2 million."])
    assert [figure.text for figure in missing] == ["£1.2bn"]


def test_a_statement_millions_against_evidence_billions_warns():
    missing = missing_figures("The fund holds $40m.", ["The fund holds 40 billion dollars."])
    assert [figure.text for figure in missing] == ["$40m"]


def test_the_same_currency_in_another_currency_warns():
    assert labels(missing_figures("a €5m grant", ["a $5m grant"])) == ["5,000,000 EUR"]
    assert labels(missing_figures("R$ 3 bi", ["US$ 3 bi"], language="pt")) == ["3,000,000,000 BRL"]


@pytest.mark.parametrize(
    ("statement", "evidence"),
    [
        ("an overrun of £1.2bn", "an overrun of 1,200 million pounds"),
        ("an overrun of £1.2bn", "an overrun of GBP 1.2bn"),
        ("a $40m round", "a round of 40 million dollars"),
        ("a $40m round", "a round of USD 40,000,000"),
        ("a $40m round", "a round of US$40 million"),
        ("assets of €3tn", "assets of 3 trillion euros"),
        ("a five million pound fine", "a £5m fine"),
    ],
)
def test_the_same_amount_written_two_ways_does_not_warn(statement, evidence):
    assert missing_figures(statement, [evidence]) == []


def test_a_bare_evidence_amount_does_not_support_a_statement_currency():
    assert labels(missing_figures("a $40m round", ["a round of 40 million"])) == ["40,000,000 USD"]


def test_a_bare_statement_amount_is_supported_by_the_amount_in_a_currency():
    assert missing_figures("a round of 40 million", ["a $40m round"]) == []
