"""The figure check reads Arabic text: Western and Arabic-Indic digits, ٫ ٬ ٪ and scale words."""

from decimal import Decimal

import pytest

from claims.figures import extract_figures, missing_figures


def keys(text):
    return [figure.key for figure in extract_figures(text, language="ar")]


def texts(figures):
    return [figure.text for figure in figures]


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("ارتفع التضخم إلى ٣٫٢٪ في مارس.", "%", "3.2"),
        ("ارتفع التضخم إلى 3.2% في مارس.", "%", "3.2"),
        ("ارتفع التضخم بنسبة 3.2 في المئة.", "%", "3.2"),
        ("ارتفع التضخم بنسبة ٣٫٢ بالمئة.", "%", "3.2"),
        ("بلغ عدد السكان ١٬٢٣٤٫٥ ألف نسمة.", "", "1234500"),
        ("بلغ عدد السكان 1,234 نسمة.", "", "1234"),
        ("خصصت الحكومة 3 مليارات دولار للمشروع.", "USD", "3000000000"),
        ("خصصت الحكومة ٣ مليارات دولار للمشروع.", "USD", "3000000000"),
        ("بلغت الصادرات 40 مليون يورو.", "EUR", "40000000"),
        ("بلغت قيمة الصفقة $40m.", "USD", "40000000"),
    ],
)
def test_an_arabic_sentence_yields_its_figure(sentence, unit, value):
    assert keys(sentence) == [(unit, Decimal(value))]


def test_arabic_indic_separators_are_never_ambiguous():
    assert keys("١٬٢٣٤") == [("", Decimal(1234))]
    assert keys("١٫٢٣٤") == [("", Decimal("1.234"))]


def test_an_arabic_figure_in_arabic_indic_digits_matches_the_same_figure_in_western_digits():
    assert missing_figures("ارتفع التضخم إلى ٣٫٢٪", ["ارتفع التضخم إلى 3.2%"], language="ar") == []


def test_an_arabic_figure_that_differs_from_the_evidence_warns():
    missing = missing_figures("خصصت ٣ مليارات دولار", ["خصصت ٣ ملايين دولار"], language="ar")
    assert texts(missing) == ["٣ مليارات دولار"]


def test_arabic_number_words_are_not_read():
    assert extract_figures("ثلاثة ملايين دولار", language="ar") == []
