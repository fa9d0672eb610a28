"""
The languages a desk can give a text (a source's version, a case), what
PostgreSQL's text search makes of each, and a guess at a text's language.

The list is short on purpose: the languages desks write and quote most, each
with a stemmer of its own in PostgreSQL where there is one, plus Arabic,
Chinese and Japanese, whose scripts the interface or the search must handle,
and "other" for the rest (searched word for word, without stemming). A
language PostgreSQL stems but the list leaves out is searched as "other" is.

A text's language is stored as its code here ("es", "pt", …; "und" for
another language; "" when nobody knows it). The codes are BCP 47 tags, so
they can go into ClaimReview's ``inLanguage`` and an HTML ``lang`` as they are
("und" and "" are better left out of both).
"""

import functools
import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

#: The code of a language the list does not name ("undetermined" in BCP 47).
OTHER = "und"


@dataclass(frozen=True)
class ContentLanguage:
    code: str
    name: str
    #: The PostgreSQL text search configuration a text in it is indexed with
    #: (migration 0011 creates them: the built-in one, after unaccent).
    search_configuration: str
    #: Written without spaces between words: the search looks for its words
    #: inside runs of characters, not as whole words.
    without_spaces: bool = False


CONTENT_LANGUAGES = (
    ContentLanguage("en", _("English"), "factcheck_english"),
    ContentLanguage("es", _("Spanish"), "factcheck_spanish"),
    ContentLanguage("pt", _("Portuguese"), "factcheck_portuguese"),
    ContentLanguage("fr", _("French"), "factcheck_french"),
    ContentLanguage("de", _("German"), "factcheck_german"),
    ContentLanguage("it", _("Italian"), "factcheck_italian"),
    ContentLanguage("nl", _("Dutch"), "factcheck_dutch"),
    ContentLanguage("ru", _("Russian"), "factcheck_russian"),
    ContentLanguage("ar", _("Arabic"), "factcheck_arabic"),
    ContentLanguage("zh", _("Chinese"), "factcheck_simple", without_spaces=True),
    ContentLanguage("ja", _("Japanese"), "factcheck_simple", without_spaces=True),
    ContentLanguage(OTHER, _("Another language"), "factcheck_simple"),
)
BY_CODE = {language.code: language for language in CONTENT_LANGUAGES}

#: For a model field's ``choices``: "" (not known) first.
LANGUAGE_CHOICES = [("", _("Not known")), *((lang.code, lang.name) for lang in CONTENT_LANGUAGES)]

#: How text whose language is not known ("") is indexed: as every passage was
#: before texts had a language, so that entries written then are found as before.
UNKNOWN_LANGUAGE_CONFIGURATION = "english"
#: How a code the list does not hold (a language dropped from it) is indexed.
OTHER_CONFIGURATION = "factcheck_simple"

#: The languages written without spaces between words.
WITHOUT_SPACES = frozenset(lang.code for lang in CONTENT_LANGUAGES if lang.without_spaces)

#: Scripts written without spaces between words: Han, Hiragana, Katakana (with
#: their punctuation and half-width forms), Thai, Lao, Khmer, Myanmar.
SPACELESS_SCRIPT = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3000-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)

#: What the detector reads of a text: its beginning is plenty, and bounds the time.
DETECTION_CHARS = 4000
#: Fewer words than this (characters of a script without spaces counting one
#: each) say too little to tell a language.
DETECTION_MIN_WORDS = 3
#: The detector's probability (among the listed languages) below which it is
#: not believed.
DETECTION_MIN_CONFIDENCE = 0.9
_WORD = re.compile(r"[^\W\d_]+")


def search_configuration(code):
    """The PostgreSQL text search configuration a text in the language ``code`` is indexed with."""
    if not code:
        return UNKNOWN_LANGUAGE_CONFIGURATION
    language = BY_CODE.get(code)
    return language.search_configuration if language else OTHER_CONFIGURATION


def language_name(code):
    """The name to show for ``code`` (translated), or "" for a text whose language is not known."""
    if not code:
        return ""
    language = BY_CODE.get(code)
    return language.name if language else BY_CODE[OTHER].name


def written_without_spaces(text):
    """Whether ``text`` holds characters of a script written without spaces between words."""
    return SPACELESS_SCRIPT.search(text) is not None


@functools.cache
def _identifier():
    """py3langid's model, loaded on first use (it takes a moment), restricted to the list."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    # An identifier of our own: py3langid's module-level one is shared by whoever imports it.
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([lang.code for lang in CONTENT_LANGUAGES if lang.code != OTHER])
    return identifier


def _word_count(text):
    spaceless = len(SPACELESS_SCRIPT.findall(text))
    return spaceless + len(_WORD.findall(SPACELESS_SCRIPT.sub(" ", text)))


def detect_language(text):
    """
    The code of the listed language ``text`` is most likely written in, or ""
    when it is too short to tell or the detector is not confident. Reads the
    first ``DETECTION_CHARS`` characters. A text in a language not listed may
    come out as the nearest listed one: the desk can correct it.
    """
    sample = (text or "")[:DETECTION_CHARS]
    if _word_count(sample) < DETECTION_MIN_WORDS:
        return ""
    code, confidence = _identifier().classify(sample)
    return code if confidence >= DETECTION_MIN_CONFIDENCE else ""
