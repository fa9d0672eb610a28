"""factcheck.languages: the content languages, their search configurations, detection."""

import pytest
from django.utils import translation

from factcheck.languages import (
    BY_CODE,
    CONTENT_LANGUAGES,
    DETECTION_CHARS,
    LANGUAGE_CHOICES,
    OTHER,
    detect_language,
    language_name,
    search_configuration,
    written_without_spaces,
)

PARAGRAPHS = {
    "es": (
        "La inflación subió un 3,2 % en marzo, según el instituto nacional de estadística, "
        "que atribuyó el aumento a los precios de la energía y de los alimentos."
    ),
    "pt": (
        "A inflação subiu 3,2% em março, segundo o instituto nacional de estatística, "
        "que atribuiu o aumento aos preços da energia e dos alimentos."
    ),
    "fr": (
        "L'inflation a augmenté de 3,2 % en mars, selon l'institut national de la statistique, "
        "qui attribue la hausse aux prix de l'énergie et de l'alimentation."
    ),
    "de": (
        "Die Inflation stieg im März um 3,2 Prozent, teilte das Statistische Bundesamt mit, "
        "das den Anstieg auf die Preise für Energie und Lebensmittel zurückführte."
    ),
    "en": (
        "Inflation rose 3.2 percent in March, the national statistics office said, "
        "putting the increase down to the prices of energy and food."
    ),
    "ja": "東京都の人口は増えたと、総務省が発表した。食料品とエネルギーの価格が上昇した。",
    "zh": "国家统计局表示，三月份通货膨胀率上升了百分之三点二，主要原因是能源和食品价格上涨。",
    "ar": (
        "ارتفع معدل التضخم بنسبة 3.2 في المئة في مارس، حسب المعهد الوطني للإحصاء، "
        "الذي عزا الزيادة إلى أسعار الطاقة والغذاء."
    ),
}


@pytest.mark.parametrize(("code", "text"), PARAGRAPHS.items())
def test_a_paragraph_is_detected_in_its_language(code, text):
    assert detect_language(text) == code


@pytest.mark.parametrize("text", ["inflación económica", "Hello world", "東京", "", "12 345 678"])
def test_a_text_too_short_to_tell_has_no_language(text):
    assert detect_language(text) == ""


def test_a_text_the_detector_is_unsure_of_has_no_language():
    # Names and figures only: no language's words.
    assert detect_language("Trainium2 B200 H100 GB200 NVL72 TPUv5e MI300X") == ""


def test_only_the_beginning_of_a_long_text_is_read():
    text = PARAGRAPHS["fr"] * (DETECTION_CHARS // len(PARAGRAPHS["fr"]) + 1)

    assert detect_language(text + PARAGRAPHS["de"] * 200) == "fr"


def test_only_listed_languages_are_ever_detected():
    # Catalan: close to Spanish, French and Italian, none of which it is.
    text = (
        "La inflació va pujar un 3,2 % al març, segons l'institut nacional d'estadística, "
        "que va atribuir l'augment als preus de l'energia i dels aliments."
    )

    assert detect_language(text) in {"", *BY_CODE}


@pytest.mark.parametrize(
    ("code", "configuration"),
    [
        ("es", "factcheck_spanish"),
        ("pt", "factcheck_portuguese"),
        ("fr", "factcheck_french"),
        ("de", "factcheck_german"),
        ("en", "factcheck_english"),
        ("ja", "factcheck_simple"),
        ("zh", "factcheck_simple"),
        (OTHER, "factcheck_simple"),
        # A language no longer listed is searched word for word.
        ("tlh", "factcheck_simple"),
        # Not known: as every passage was indexed before texts had a language.
        ("", "english"),
    ],
)
def test_each_language_is_searched_with_its_own_configuration(code, configuration):
    assert search_configuration(code) == configuration


def test_the_choices_offer_every_language_and_not_known_first():
    assert LANGUAGE_CHOICES[0][0] == ""
    assert [code for code, _name in LANGUAGE_CHOICES[1:]] == [
        lang.code for lang in CONTENT_LANGUAGES
    ]
    assert len(BY_CODE) == len(CONTENT_LANGUAGES)


def test_language_names_are_translated():
    with translation.override("en"):
        english = str(language_name("de"))

    assert english == "German"
    assert language_name("") == ""
    assert language_name("tlh") == language_name(OTHER)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("東京都", True), ("北京", True), ("ภาษาไทย", True), ("inflación", False), ("التضخم", False)],
)
def test_scripts_written_without_spaces_are_told_apart(text, expected):
    assert written_without_spaces(text) is expected
