"""
The figure check: which figures of a claim's statement are in none of its evidence.

A statement paraphrases quotations, and a paraphrase is where a figure can drift:
a "3.7×" that the source never wrote, a "50 seconds" where the source wrote a bare
"50". This module finds every figure of a text (a number and its unit), normalises
both, and reports the statement's figures that no evidence text supports. It is pure
Python with no Django import, so it can run anywhere; what to do with the result
(the claim page warns, it does not block) is the caller's business.

Every text is read in a language, a Django language code: "en" (the default), "es",
"pt", "pt-br" or "pt-pt", "fr", "de", "ar". Only the base language counts ("pt-br" is
"pt"); any other code reads the text language-neutrally: digits, symbols, currency
codes and English month names only, no words, and a lone "." or "," before exactly
three digits is a thousands separator ("1.234" and "1,234" are both 1234), as in most
languages that are not offered. The statement and each evidence text may be in
different languages; figures are compared after reading, so "3,2 %" in Spanish
supports "3.2 per cent" in English.

How a text is read, in order:

1. Dates are found first and masked, so their digits are not read again as numbers.
   "October 27, 2026", "Oct. 27 2026", "27 October 2026" and "2026-10-27" all become
   ``date(2026, 10, 27)`` with unit ``"date"``, in any language; so do "27 de octubre
   de 2026" (es), "27 de outubro de 2026" and "1º de maio" (pt), "27 octobre 2026" and
   "1er octobre" (fr), "27. Oktober 2026" (de), in their own language. A month and
   day without a year ("November 4") has unit ``"month-day"`` and a month and year
   ("October 2026") unit ``"month-year"``; their value is a ``datetime.date`` whose
   missing parts are placeholders (year 4, the first leap year, so February 29 is
   representable; day 1).
   Numeric slash dates (10/27/2026) are not read as dates: they are ambiguous.
2. Words that are themselves a ratio: "twice" and "thrice" (2×, 3×), "twofold",
   "tenfold" and the like.
3. Numbers, written in digits ("1,111", "9.0", "70,000") or spelled out ("one" to
   "ninety-nine", "a dozen", "half a dozen"), optionally scaled by "thousand",
   "million", "billion" or "trillion", followed by a unit.

Numbers in digits, in every language:

* Arabic-Indic digits (٠-٩, and the Persian ۰-۹) are digits; ``٫`` is always a
  decimal separator and ``٬`` a thousands separator ("١٬٢٣٤٫٥" is 1234.5).
* Groups of three digits may be separated by ".", ",", an apostrophe ("1'234.5"),
  a no-break, narrow no-break or thin space, and in Spanish, Portuguese, French and
  German by a plain space ("1 234"); in English a plain space groups only when a
  decimal part follows ("1 234,5"), since "the 3 100-metre races" are three races.
* Whatever the language, a number whose form says it all is read as it says: with
  two kinds of separator the last is the decimal one ("1.234,5", "1,234.5",
  "1 234,5", "1'234.5"); a separator used twice groups ("1.234.567"); a single "." or
  "," followed by other than three digits, after a zero or after more than three
  digits is decimal ("3,2 %", "1.25", "0,125", "1234,567").
* Only a single "." or "," before exactly three digits needs the language: "1.234" is
  1234 in Spanish, Portuguese, French and German and 1.234 in English and Arabic;
  "1,234" the other way round.

Scales are part of the value. Scale words, after digits or number words, per
language: English "thousand", "million", "billion" (10⁹), "trillion"; Spanish "mil",
"millón"/"millones", "mil millones" (10⁹), "billón"/"billones" (10¹², the long scale),
"mill."; Portuguese "mil", "milhão"/"milhões", "mi", "bilhão"/"bilhões" and "bi" (10⁹,
Brazil), "mil milhões" (10⁹, Portugal), "bilião"/"biliões" (10¹², Portugal),
"trilhão"/"trilhões" and "tri" (10¹²); French "mille", "million(s)", "milliard(s)",
"Md", "Mds" and "Mrd" (10⁹), "billion(s)" (10¹²); German "tausend", "Tsd.",
"Million(en)", "Mio.", "Milliarde(n)", "Mrd." (10⁹), "Billion(en)", "Bio." (10¹²);
Arabic "ألف", "مليون", "مليار" (10⁹), "تريليون" and their plurals. Money also takes the
abbreviations k, m/M, mn, mln, b/B, bn, tn, glued or spaced ("$40m", "£1.2bn",
"€3tn", "$1.2 bn", "3 M€", "R$2bi"), but only next to a currency: after a currency
symbol or code, or before a currency. Without one a glued multiplier stays a name
("Llama 1B", "3bn" alone) and a spaced "m" a metre.

Spelled-out numbers, per language (``claims.number_words`` for all but English):
Spanish "veintitrés", "doscientos cincuenta mil", "tres millones", "tres mil
millones"; Portuguese "dois milhões", "trezentos mil", "duzentos e cinquenta";
French "soixante-dix", "quatre-vingt-dix", "soixante et onze", "mille", "deux
millions"; German "zweiundzwanzig", "dreihundertfünfzigtausend", "drei Millionen".
Outside English a number in words is a figure only with a scale (a bare value,
"tres millones") or a unit ("veintitrés por ciento"): a lone "un", "um" or "ein" is
an article. Arabic number words are not read.

Units, normalised:

* ``"×"``: ×, a glued x ("2.6x"), "times", "fold" / "-fold". A spaced "x" is not a
  unit ("3 x 4" is usually a product). Every "N times" is read as a factor, also the
  rarer frequency sense ("ran five times"). Also "veces" (es), "vezes" (pt), "fois"
  (fr), "-fach" and "-mal" (de).
* ``"%"``: %, ٪, "percent", "per cent", "pct", "por ciento" (es), "por cento" (pt),
  "pour cent" (fr), "Prozent" (de), "في المئة" / "بالمئة" (ar); ``"pp"`` for
  percentage points: "percentage points", "pp", "p.p.", "puntos porcentuales",
  "pontos percentuais", "points de pourcentage", "Prozentpunkte". These words are read
  in any language.
* Currencies, as ISO codes: a currency is part of the unit, before or after the
  number, as a symbol, a code or a word. Symbols: "$" and "US$" (USD), "R$" (BRL),
  "C$" (CAD), "A$" (AUD), "NZ$", "HK$", "MX$", "S$", "£" (GBP), "€" (EUR), "¥" (JPY),
  "₹" (INR). Codes, upper case: USD, EUR, GBP, BRL, JPY, CHF, CAD, AUD, NZD, HKD, SGD,
  CNY, INR, MXN, ARS, CLP, COP. Words, after the number and its scale, with an
  optional "de"/"d'" and "US": dollars, dólares, Dollar, دولار (USD); euros, Euro,
  يورو (EUR); pounds (sterling), libras (esterlinas), livres (sterling), Pfund (GBP);
  reais (BRL); yen (JPY); Franken, francs suisses (CHF). A bare "$" is the US dollar:
  the offered languages write other dollars with a prefix (C$, A$, MX$) and a wrong
  guess only shows a warning. "£1.2bn" is 1,200,000,000 GBP, "1.200 millones de
  euros" 1,200,000,000 EUR, "40 billion dollars" 40,000,000,000 USD, "$40m"
  40,000,000 USD.
* Time: ``"s"`` (s, sec, secs, second(s), glued "467s"), ``"ms"``, ``"min"``, ``"h"``
  (including the compound "24-hour"). Units are not converted into each other:
  "8 minutes" does not match "480 seconds", because a paraphrase that converts units
  is worth a human look. Also the Spanish, Portuguese, French and German words
  ("segundos", "secondes", "Sekunden", "minutos", "heures", "Stunden"…).
* Rates: ``"tokens/s"`` for "tokens per second", "tokens/s", "tok/s" and "TPS";
  generally ``"<plural noun>/<time unit>"`` ("requests/s", "queries/s" for QPS).
* Counts: a number followed by a noun is a count with unit ``"count:<noun>"``, the
  noun lower-cased and singularised, so "two nodes", "2 nodes" and "1 node" share
  ``"count:node"``. The noun is the head of the noun phrase, found as the first
  plural-looking (or, after a one, known) word among the next three words, stopping
  at function words and at a known noun in the singular after any other number
  ("the 3.7 result" names a figure): "five hardware platforms" is
  ``count:platform``. A compound adjective counts its own noun: "70,000-token input
  sequence lengths" is ``count:token``.
  Counts are read in English only: in the other languages a number in digits
  followed by a noun is a bare number ("3 nodos"), which supports a statement's
  count only if the statement's number is bare too.
* A number in digits with no recognisable unit is a bare number, unit ``""``.
  An English spelled-out number needs a unit or a noun ("one" is far more often a
  pronoun).

Values are ``decimal.Decimal`` with trailing fractional zeros dropped, so "9.0" and
"9" are the same value (the unit still has to match).

Names are not figures. Never extracted:

* digits inside an alphanumeric token: B200, GB300, H100, TP8, Trainium2, v4.1,
  M3.1-Flash, Llama 1B (a glued multiplier such as 1B, 70K or 2M is read as a name,
  not as "one billion", except in money: "$2M"), 27th, 0x1F. Only a glued unit
  (2.6x, 467s, 24h, 2,6fach) is allowed;
* digits hyphenated onto a word on their left: GPT-4, batch-size-1;
* section signs and citation markers: §5.2, [1];
* a number right after a label word, lower or upper case, in any offered language:
  "Figure 8", "table 3", "section 5.2", "version 2", "tabla 3", "versão 2",
  "tableau 3", "Abbildung 3";
* a number right after a capitalised word that does not start a sentence, such as a
  product name with a version: "Aurora 1.5", "AIFS-ENS 2.0". Such a number is still a
  figure if a measurement unit (×, %, a time, a rate) follows it, since names are not
  measured ("Together AI 2.6× faster"). Not in German, which capitalises every
  noun ("im Jahr 2025"). A number with a currency is never a name.

Ranges give both endpoints, and the first borrows the unit of the second when it has
none: "1.5–6.4×", "10-40×", "from 467 to 9.0 seconds", "1,111 / 1,205 TPS",
"between 2 and 4 nodes" (also "entre 2 y 4", "de 2 a 4", "entre 2 et 4", "zwischen 2
und 4"). Such a first endpoint's ``text`` is just its number. The first also borrows
the second's scale when it has none and the scaled value still opens the range:
"$40–50m" is $40m to $50m, "de 2 a 3 millones" 2 to 3 million, but "between 500 and
2 million" starts at 500. A second endpoint with a glued money scale takes the first's
currency symbol ("$40–50m").

Matching (``missing_figures``) compares normalised (value, unit) pairs, and:

* a statement figure with a unit is not supported by a bare number in the evidence:
  a statement's "2.6×" is matched by "2.6 times" or "2.6x", not by "the 2.6"; a
  statement's "50 seconds" is not matched by "50 for weight loading";
* a bare number in the statement is supported by the same value with any unit, or
  by the year of a date;
* a statement's month-day or month-year is supported by a full date that contains it,
  but a statement's full date is not supported by a date without its year;
* money is no exception: the currency is part of the unit and the scale part of the
  value, so a statement's "£1.2bn" is not supported by "£1.2 million" (scale), "$40m"
  not by "40 billion dollars", "€5m" not by "$5m" (currency), nor by a bare "5
  million": a currency the evidence does not state is what a paraphrase can get
  wrong. A bare "5 million" in the statement is supported by "€5m", as any bare
  number is by the same value with a unit. The same amount written two ways
  ("£1.2bn", "1,200 million pounds", "GBP 1.2bn") is one figure.

Negative numbers, fractions ("two-thirds"), "double"/"half" and vague quantities
("dozens", "trillions of tokens", "a few dozen") are not read as figures.
"""

import datetime
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from claims.number_words import SPELLED_NUMBERS, SpelledNumbers

__all__ = ["Figure", "extract_figures", "missing_figures"]


@dataclass(frozen=True)
class Figure:
    value: Decimal | datetime.date
    unit: str
    text: str
    start: int
    end: int

    @property
    def key(self) -> tuple[str, Decimal | datetime.date]:
        """What two figures must share to be the same figure."""
        return (self.unit, self.value)

    @property
    def label(self) -> str:
        """The normalised figure, for messages: "2.6×", "467 s", "2026-10-27"."""
        value = self.value
        if isinstance(value, datetime.date):
            if self.unit == "month-day":
                return f"{_MONTH_NAMES[value.month - 1]} {value.day}"
            if self.unit == "month-year":
                return f"{_MONTH_NAMES[value.month - 1]} {value.year}"
            return value.isoformat()
        if self.unit == "":
            # No digit grouping: a bare number is as often a year as a quantity.
            return str(value)
        number = f"{value:,}"
        if self.unit in ("×", "%"):
            return f"{number}{self.unit}"
        if self.unit.startswith("count:"):
            noun = self.unit.removeprefix("count:")
            return f"{number} {noun if value == 1 else _pluralise(noun)}"
        return f"{number} {self.unit}"


def extract_figures(text: str, *, language: str = "en") -> list[Figure]:
    """
    Every figure of `text`, in the order they appear, reading numbers, scales and
    number words as `language` (a Django language code: "en", "es", "pt-br", "fr",
    "de", "ar"; any other code reads the text language-neutrally) writes them.
    """
    conventions = _conventions(language)
    # Later passes read the masked copy, so a date's digits are never read twice;
    # the mask character is neither a word character nor a space.
    masked = list(text)
    figures: list[Figure] = []

    def take(figure: Figure) -> None:
        figures.append(figure)
        masked[figure.start : figure.end] = _MASK * (figure.end - figure.start)

    for figure in _dates(text, conventions):
        take(figure)
    for figure in _ratio_words("".join(masked), text):
        take(figure)
    figures.extend(_numbers("".join(masked), text, conventions))
    return sorted(figures, key=lambda figure: figure.start)


def missing_figures(
    statement: str, evidence_texts: Iterable[str | tuple[str, str]], *, language: str = "en"
) -> list[Figure]:
    """
    The figures of `statement`, written in `language`, that appear in none of
    `evidence_texts`: each a text in the same language, or a ``(text, language)``
    pair for evidence quoted from a source in another language.

    In statement order, each normalised figure once (its first occurrence). See the
    module docstring for what counts as support: the same value and unit, with a
    bare number in the evidence never supporting a figure with a unit.
    """
    evidence: list[Figure] = []
    for item in evidence_texts:
        text, text_language = (item, language) if isinstance(item, str) else item
        evidence.extend(extract_figures(_unwrapped(text), language=text_language))
    missing: list[Figure] = []
    seen: set[tuple[str, Decimal | datetime.date]] = set()
    for figure in extract_figures(statement, language=language):
        if figure.key in seen:
            continue
        seen.add(figure.key)
        if not any(_supports(candidate, figure) for candidate in evidence):
            missing.append(figure)
    return missing


_LINE_WRAP = re.compile(r"(?<!\n)\n(?!\n)")


def _unwrapped(text: str) -> str:
    """
    ``text`` with each single line break as a space: a PDF's text breaks its
    lines where the page did ("four\nfrontier models"), and a figure's unit may
    be on the next line. A blank line, between paragraphs, stays.
    """
    return _LINE_WRAP.sub(" ", text)


def _supports(evidence: Figure, claimed: Figure) -> bool:
    if evidence.key == claimed.key:
        return True
    value = evidence.value
    if claimed.unit == "":
        if isinstance(value, datetime.date):
            return evidence.unit in ("date", "month-year") and Decimal(value.year) == claimed.value
        return value == claimed.value
    if evidence.unit != "date" or not isinstance(claimed.value, datetime.date):
        return False
    if claimed.unit == "month-day":
        return (value.month, value.day) == (claimed.value.month, claimed.value.day)
    if claimed.unit == "month-year":
        return (value.year, value.month) == (claimed.value.year, claimed.value.month)
    return False


# --- dates ---------------------------------------------------------------------------

_MASK = "\ue000"
_NO_YEAR = 4

_MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_MONTHS.update({name[:3]: number for name, number in list(_MONTHS.items())})
_MONTHS["Sept"] = 9
# Capitalised only: "may" and "march" in running text are verbs.
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

# Most specific first: a full date must win over the month-day inside it.
_DATE_PATTERNS = [
    ("date", re.compile(r"(?<![\w\-.])(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?![\w-])")),
    ("date", re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}(?!\d|[,.]\d)")),
    ("date", re.compile(rf"(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}(?!\d|[,.]\d)")),
    ("month-year", re.compile(rf"\b{_MONTH}\s+{_YEAR}(?!\d|[,.]\d)")),
    ("month-day", re.compile(rf"\b{_MONTH}\s+{_DAY}(?![\w]|[,.]\d)")),
    ("month-day", re.compile(rf"(?<![\w.,]){_DAY}\s+(?:of\s+)?{_MONTH}")),
]


# Dates in the other languages: "27 de octubre de 2026", "1er octobre 2026",
# "27. Oktober 2026", "1º de maio de 2026"; their month names are lower case
# except in German, and read in any case.
_LOCAL_MONTH_NAMES = {
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre/setiembre octubre "
    "noviembre diciembre",
    "pt": "janeiro fevereiro março/marco abril maio junho julho agosto setembro outubro "
    "novembro dezembro",
    "fr": "janvier février/fevrier mars avril mai juin juillet août/aout septembre octobre "
    "novembre décembre/decembre",
    "de": "Januar/Jänner Februar März/Maerz April Mai Juni Juli August September Oktober "
    "November Dezember",
}
_LOCAL_MONTHS = {
    name.lower(): number
    for names in _LOCAL_MONTH_NAMES.values()
    for number, month in enumerate(names.split(), start=1)
    for name in month.split("/")
}


def _local_date_patterns(names: str) -> list[tuple[str, re.Pattern[str]]]:
    month = "(?P<month>" + "|".join(sorted(re.split(r"[ /]", names), key=len, reverse=True)) + ")"
    day = r"(?P<day>\d{1,2})(?:er|º|°|\.)?"
    of = r"(?:de\s+|del\s+)?"
    return [
        (
            "date",
            re.compile(
                rf"(?<![\w.,]){day}\s+(?:de\s+)?{month}\b,?\s+{of}{_YEAR}(?!\d|[,.]\d)",
                re.IGNORECASE,
            ),
        ),
        ("month-year", re.compile(rf"\b{month}\s+{of}{_YEAR}(?!\d|[,.]\d)", re.IGNORECASE)),
        ("month-day", re.compile(rf"(?<![\w.,]){day}\s+(?:de\s+)?{month}\b", re.IGNORECASE)),
    ]


_LOCAL_DATE_PATTERNS = {
    language: _local_date_patterns(names) for language, names in _LOCAL_MONTH_NAMES.items()
}


def _dates(text: str, conventions: "_Conventions") -> list[Figure]:
    found: list[Figure] = []
    taken: list[tuple[int, int]] = []
    for unit, pattern in [*_DATE_PATTERNS, *conventions.dates]:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < other_end and other_start < end for other_start, other_end in taken):
                continue
            value = _date_value(unit, match)
            if value is None:
                continue
            taken.append((start, end))
            found.append(Figure(value, unit, match.group(), start, end))
    return found


def _date_value(unit: str, match: re.Match[str]) -> datetime.date | None:
    month_text = match.group("month")
    if month_text.isdigit():
        month = int(month_text)
    else:
        month = _MONTHS.get(month_text) or _LOCAL_MONTHS[month_text.lower()]
    groups = match.groupdict()
    year = int(groups["year"]) if groups.get("year") else _NO_YEAR
    day = int(groups["day"]) if groups.get("day") else 1
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


# --- words that are a ratio ----------------------------------------------------------

_UNITS_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
_TEEN_WORDS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS_WORDS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_NUMBER_WORDS = {**_UNITS_WORDS, **_TEEN_WORDS, **_TENS_WORDS, "zero": 0}

_RATIO_WORDS = re.compile(
    r"\b(?:(?P<twice>twice)|(?P<thrice>thrice)|(?P<fold>"
    + "|".join([*_NUMBER_WORDS, "hundred", "thousand"])
    + r")fold)\b",
    re.IGNORECASE,
)


def _ratio_words(view: str, text: str) -> list[Figure]:
    found = []
    for match in _RATIO_WORDS.finditer(view):
        if match.group("twice"):
            value = 2
        elif match.group("thrice"):
            value = 3
        else:
            word = match.group("fold").lower()
            value = {"hundred": 100, "thousand": 1000}.get(word) or _NUMBER_WORDS[word]
        start, end = match.span()
        found.append(Figure(Decimal(value), "×", text[start:end], start, end))
    return found


# --- languages -----------------------------------------------------------------------

# The spaces between a number and its scale or unit: newspapers set a no-break or
# narrow no-break space there ("3,2\u202f%", "20\u00a0000 €").
_SPACE = "[ \\t\\u00a0\\u202f\\u2009]"


def _phrases(table: dict[str, int]) -> tuple[str, dict[str, int]]:
    """An alternation of ``table``'s phrases, longest first, and the table by key."""
    words = sorted(table, key=len, reverse=True)
    alternation = "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in words)
    return alternation, {word.lower(): value for word, value in table.items()}


def _phrase_key(phrase: str) -> str:
    return " ".join(phrase.lower().split())


@dataclass(frozen=True)
class _Conventions:
    """How one language writes its figures (see the module docstring)."""

    # True: "1.234" is 1234 and "1,234" is 1.234; False: the other way round;
    # None (language-neutral): both are 1234.
    decimal_comma: bool | None
    space_groups: bool
    # Scale words and abbreviations read after any number ("millones", "Mrd.").
    scale: re.Pattern[str] | None
    scales: dict[str, int]
    spelled: SpelledNumbers | None
    # Whether a number followed by a noun is a count (English only).
    counts: bool
    # Whether a number after a capitalised word is a name ("Aurora 1.5"); not in
    # German, which capitalises every noun.
    names: bool
    # Date patterns beside the English ones.
    dates: list[tuple[str, re.Pattern[str]]]


def _conventions_for(
    scales: dict[str, int],
    *,
    decimal_comma: bool | None,
    space_groups: bool,
    spelled: SpelledNumbers | None = None,
    counts: bool = False,
    names: bool = True,
    dates: list[tuple[str, re.Pattern[str]]] | None = None,
) -> _Conventions:
    scale = None
    table: dict[str, int] = {}
    if scales:
        alternation, table = _phrases(scales)
        scale = re.compile(rf"{_SPACE}+(?P<scale>{alternation})(?!\w)", re.IGNORECASE)
    return _Conventions(
        decimal_comma, space_groups, scale, table, spelled, counts, names, dates or []
    )


_LANGUAGES = {
    "en": _conventions_for(
        {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12},
        decimal_comma=False,
        space_groups=False,
        counts=True,
    ),
    "es": _conventions_for(
        {
            "mil": 10**3,
            "millón": 10**6,
            "millon": 10**6,
            "millones": 10**6,
            "mill.": 10**6,
            "mil millones": 10**9,
            "billón": 10**12,
            "billon": 10**12,
            "billones": 10**12,
        },
        decimal_comma=True,
        space_groups=True,
        spelled=SPELLED_NUMBERS["es"],
        dates=_LOCAL_DATE_PATTERNS["es"],
    ),
    "pt": _conventions_for(
        {
            "mil": 10**3,
            "milhão": 10**6,
            "milhao": 10**6,
            "milhões": 10**6,
            "milhoes": 10**6,
            "mi": 10**6,
            "mil milhões": 10**9,
            "bilhão": 10**9,
            "bilhao": 10**9,
            "bilhões": 10**9,
            "bilhoes": 10**9,
            "bi": 10**9,
            "bilião": 10**12,
            "biliões": 10**12,
            "trilhão": 10**12,
            "trilhões": 10**12,
            "tri": 10**12,
        },
        decimal_comma=True,
        space_groups=True,
        spelled=SPELLED_NUMBERS["pt"],
        dates=_LOCAL_DATE_PATTERNS["pt"],
    ),
    "fr": _conventions_for(
        {
            "mille": 10**3,
            "million": 10**6,
            "millions": 10**6,
            "milliard": 10**9,
            "milliards": 10**9,
            "md": 10**9,
            "mds": 10**9,
            "mrd": 10**9,
            "billion": 10**12,
            "billions": 10**12,
        },
        decimal_comma=True,
        space_groups=True,
        spelled=SPELLED_NUMBERS["fr"],
        dates=_LOCAL_DATE_PATTERNS["fr"],
    ),
    "de": _conventions_for(
        {
            "tausend": 10**3,
            "tsd.": 10**3,
            "million": 10**6,
            "millionen": 10**6,
            "mio.": 10**6,
            "mio": 10**6,
            "milliarde": 10**9,
            "milliarden": 10**9,
            "mrd.": 10**9,
            "mrd": 10**9,
            "billion": 10**12,
            "billionen": 10**12,
            "bio.": 10**12,
        },
        decimal_comma=True,
        space_groups=True,
        spelled=SPELLED_NUMBERS["de"],
        dates=_LOCAL_DATE_PATTERNS["de"],
        names=False,
    ),
    # Arabic text in Western digits groups with commas; Arabic-Indic digits use
    # their own separators (٫ ٬), which are never ambiguous.
    "ar": _conventions_for(
        {
            "ألف": 10**3,
            "آلاف": 10**3,
            "مليون": 10**6,
            "ملايين": 10**6,
            "مليار": 10**9,
            "مليارات": 10**9,
            "تريليون": 10**12,
        },
        decimal_comma=False,
        space_groups=False,
    ),
}
_NEUTRAL = _conventions_for({}, decimal_comma=None, space_groups=False)


def _conventions(language: str) -> _Conventions:
    base = language.lower().replace("_", "-").split("-")[0]
    return _LANGUAGES.get(base, _NEUTRAL)


# --- currencies ----------------------------------------------------------------------

# A bare "$" is the US dollar: the desks' languages write other dollars and pesos
# with a prefix (C$, A$, MX$) or a word, and a wrong guess only shows a warning.
_CURRENCY_SYMBOLS = {
    "US$": "USD",
    "U$": "USD",
    "R$": "BRL",
    "C$": "CAD",
    "CA$": "CAD",
    "A$": "AUD",
    "AU$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "MX$": "MXN",
    "S$": "SGD",
    "$": "USD",
    "£": "GBP",
    "€": "EUR",
    "¥": "JPY",
    "₹": "INR",
}
_CURRENCY_CODES = [
    "USD",
    "EUR",
    "GBP",
    "BRL",
    "JPY",
    "CHF",
    "CAD",
    "AUD",
    "NZD",
    "HKD",
    "SGD",
    "CNY",
    "INR",
    "MXN",
    "ARS",
    "CLP",
    "COP",
]
_CURRENCY_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "dólar": "USD",
    "dólares": "USD",
    "dolar": "USD",
    "dolares": "USD",
    "دولار": "USD",
    "دولارات": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "يورو": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "pounds sterling": "GBP",
    "libra": "GBP",
    "libras": "GBP",
    "libras esterlinas": "GBP",
    "livre": "GBP",
    "livres": "GBP",
    "livres sterling": "GBP",
    "pfund": "GBP",
    "جنيه إسترليني": "GBP",
    "reais": "BRL",
    "reales": "BRL",
    "yen": "JPY",
    "franken": "CHF",
    "francs suisses": "CHF",
}
_CURRENCIES = {*_CURRENCY_CODES, *_CURRENCY_SYMBOLS.values(), *_CURRENCY_WORDS.values()}
_SYMBOLS = "|".join(
    re.escape(symbol) for symbol in sorted(_CURRENCY_SYMBOLS, key=len, reverse=True)
)
_CODES = "|".join(_CURRENCY_CODES)
_CURRENCY_WORD_ALTERNATION, _CURRENCY_WORD_TABLE = _phrases(_CURRENCY_WORDS)
_CURRENCY_BEFORE = re.compile(
    rf"(?:(?<![\w$])(?P<symbol>{_SYMBOLS})|(?<!\w)(?P<code>{_CODES}))[ \t\u00a0\u202f]?$"
)
_CURRENCY_AFTER = re.compile(
    # A symbol before another number is that number's ("2025 R$ 3 bi").
    rf"[ \t\u00a0\u202f]?(?P<symbol>{_SYMBOLS})(?![ \t\u00a0\u202f]?\d)"
    rf"|[ \t\u00a0\u202f]?(?P<code>{_CODES})\b"
    rf"|{_SPACE}+(?i:(?:de\s+|d['’]\s*)?(?:US[- ]?)?(?P<word>{_CURRENCY_WORD_ALTERNATION}))(?!\w)"
)
# Scale abbreviations read only in money: "$40m", "£1.2bn", "€3tn", "3 M€", "R$2bi".
# Without a currency a glued multiplier is a name ("Llama 1B") and "40 m" a length.
_MONEY_SCALES = {
    "k": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "mln": 10**6,
    "mio": 10**6,
    "mi": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "md": 10**9,
    "mds": 10**9,
    "mrd": 10**9,
    "bi": 10**9,
    "tn": 10**12,
    "tri": 10**12,
}
_MONEY_SCALE = re.compile(
    rf"{_SPACE}+(?P<scale>{'|'.join(sorted(_MONEY_SCALES, key=len, reverse=True))})\.?(?!\w)",
    re.IGNORECASE,
)


def _currency_before(view: str, start: int) -> tuple[str, int] | None:
    """The currency written just before the number at ``start``, and where it starts."""
    match = _CURRENCY_BEFORE.search(view, max(0, start - 6), start)
    if not match:
        return None
    if match.group("symbol"):
        return _CURRENCY_SYMBOLS[match.group("symbol")], match.start("symbol")
    return match.group("code"), match.start("code")


def _currency_after(view: str, end: int) -> tuple[str, int] | None:
    match = _CURRENCY_AFTER.match(view, end)
    if not match:
        return None
    if match.group("symbol"):
        return _CURRENCY_SYMBOLS[match.group("symbol")], match.end()
    if match.group("code"):
        return match.group("code"), match.end()
    return _CURRENCY_WORD_TABLE[_phrase_key(match.group("word"))], match.end()


# --- numbers -------------------------------------------------------------------------

_SEPARATORS = ".,'’٫٬\u00a0\u202f\u2009"
_DECIMAL_POINT = "٫"  # the Arabic decimal separator, never a grouping


def _digits_pattern(*, space_groups: bool) -> re.Pattern[str]:
    group = "[,.'’٬\u00a0\u202f\u2009" + (" " if space_groups else "") + "]"
    return re.compile(
        rf"(?<![\w{_SEPARATORS}])(?:"
        # Spaced groups with a decimal part are a number in any language: "1 234,5".
        r"\d{1,3}(?: \d{3})+[.,٫]\d+"
        rf"|\d{{1,3}}(?P<sep>{group})\d{{3}}(?:(?P=sep)\d{{3}})*(?:(?!(?P=sep))[.,٫]\d+)?"
        r"|\d+(?:[.,٫]\d+)?"
        rf")(?![{_SEPARATORS}]?\d)"
    )


_DIGITS = _digits_pattern(space_groups=False)
_DIGITS_SPACED = _digits_pattern(space_groups=True)


def _number_value(number: str, conventions: _Conventions) -> Decimal:
    """
    The value of a number in digits, whichever of ".", ",", spaces, apostrophes
    and the Arabic separators group its digits or mark its decimals.
    """
    separators = [(index, char) for index, char in enumerate(number) if not char.isdigit()]
    decimal_at = None
    if separators:
        kinds = {char for _, char in separators}
        last_at, last = separators[-1]
        if _DECIMAL_POINT in kinds:
            decimal_at = last_at
        elif len(kinds) > 1:
            # "1.234,5", "1 234,5", "1'234.5": the last separator is the decimal one.
            decimal_at = last_at if last in ".," else None
        elif last in ".," and len(separators) == 1:
            head, tail = number[:last_at], number[last_at + 1 :]
            if len(tail) != 3 or len(head) > 3 or Decimal(head) == 0:
                decimal_at = last_at  # "3,2", "1.25", "0,125": only a decimal fits
            elif (
                conventions.decimal_comma is not None and (last == ",") == conventions.decimal_comma
            ):
                decimal_at = last_at  # "1,234" in Spanish, "1.234" in English
    digits = "".join(
        "." if index == decimal_at else char
        for index, char in enumerate(number)
        if char.isdigit() or index == decimal_at
    )
    return Decimal(digits)


_SPELLED = re.compile(
    r"\b(?:(?P<half>half\s+)?(?<!few\s)a\s+dozen"
    r"|(?P<tens>" + "|".join(_TENS_WORDS) + r")(?:-(?P<ones>" + "|".join(_UNITS_WORDS) + r"))?"
    r"|(?P<word>" + "|".join([*_UNITS_WORDS, *_TEEN_WORDS, "zero"]) + r"))\b",
    re.IGNORECASE,
)

# A glued suffix that is a unit; any other glued letters make the token a name.
_GLUED_UNITS = {
    "x": "×",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "ms": "ms",
    "min": "min",
    "mins": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "fach": "×",
    "mal": "×",
}
_TIME_WORDS = {
    "ms": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
}
_OTHER_TIME_WORDS = {
    "milisegundo": "ms",
    "milisegundos": "ms",
    "milissegundo": "ms",
    "milissegundos": "ms",
    "milliseconde": "ms",
    "millisecondes": "ms",
    "millisekunde": "ms",
    "millisekunden": "ms",
    "segundo": "s",
    "segundos": "s",
    "seconde": "s",
    "secondes": "s",
    "sekunde": "s",
    "sekunden": "s",
    "minuto": "min",
    "minutos": "min",
    "minuten": "min",
    "hora": "h",
    "horas": "h",
    "heure": "h",
    "heures": "h",
    "stunde": "h",
    "stunden": "h",
    "std": "h",
}
_TIME = r"(?P<time>milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|min|hours?|hrs?|hr|h)\b"
_OTHER_TIME = r"(?P<time>" + "|".join(sorted(_OTHER_TIME_WORDS, key=len, reverse=True)) + r")\b\.?"

# Tried in order at the end of a number; the first that matches is the unit.
_UNIT_PATTERNS = [
    ("×", re.compile(r"\s?×")),
    ("%", re.compile(r"\s?[%٪]")),
    (
        "%",
        re.compile(
            r"[ \t\u00a0\u202f-]?(?:percent|per\s+cent|pct|por\s+ciento|por\s+cento|pour\s+cent"
            r"|prozent|في\s+الما?ئة|بالما?ئة)(?!\w)",
            re.IGNORECASE,
        ),
    ),
    (
        "pp",
        re.compile(
            r"\s(?:percentage\s+points?|pp|p\.\s?p\.|puntos?\s+porcentuales?|pontos?\s+percentuais"
            r"|ponto\s+percentual|points?\s+de\s+pourcentage|prozentpunkte?n?)(?!\w)",
            re.IGNORECASE,
        ),
    ),
    ("×", re.compile(r"[ \t-]?fold\b", re.IGNORECASE)),
    ("×", re.compile(r"[ \t-]times\b", re.IGNORECASE)),
    (
        "×",
        re.compile(r"[ \t\u00a0](?:veces|vezes|fois)\b|[ \t\u00a0-](?:fach|mal)\b", re.IGNORECASE),
    ),
    ("tokens/s", re.compile(r"\s(?:TPS|tok/s)\b")),
    ("requests/s", re.compile(r"\sRPS\b")),
    ("queries/s", re.compile(r"\sQPS\b")),
    ("time", re.compile(r"[ \t-]" + _TIME)),
    ("other time", re.compile(r"[ \t\u00a0-]" + _OTHER_TIME, re.IGNORECASE)),
]
# Units that mark a measurement, so the number is not part of a name before it.
_MEASUREMENT_UNITS = {"×", "%", "pp", "s", "ms", "min", "h"}

_RATE = re.compile(
    r"(?:\s+per\s+|/)(?P<per>seconds?|sec|s|minutes?|min|hours?|hr|h|day)\b", re.IGNORECASE
)
_RATE_UNITS = {**_TIME_WORDS, "day": "day"}

_WORD = re.compile(r"[ \t]+(?P<word>[A-Za-z]+(?:-[A-Za-z]+)*)(?![\w'’])")
_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]+s")
_COMPOUND = re.compile(r"-(?P<word>[A-Za-z]+)(?![\w'’-])")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Where a run of words after a number stops: what follows is no longer its noun.
_STOPWORDS = _words(
    """
    a an the and or but nor so yet if then than as of for in on at by to from with without
    into onto over under per via vs versus against among between through during since until
    before after about around across along behind beyond within upon off out up down
    is are was were be been being am has have had do does did will would can could shall
    should may might must it its itself this that these those which who whom whose what
    when where while why how not no only also just even still again more most less least
    first last each every all some any both either neither such same other another own
    his her hers him he she they them their theirs we us our ours you your yours i me my
    higher lower faster slower better worse greater fewer larger smaller bigger longer
    shorter times always sometimes perhaps whereas besides towards afterwards alone
    says needs means seems remains appears applies looks makes takes gives goes comes
    becomes gets shows suggests implies requires represents indicates refers matches
    exceeds equals outperforms reaches achieves scores yields holds stays keeps
    """
)
# Nouns that count in the singular too ("one node"), and the only nouns a spelled-out
# number may be hyphenated onto ("one-node" is a count, "one-click" is not).
_KNOWN_NOUNS = _words(
    """
    node model platform request token experiment run result gpu cpu tpu chip server
    machine user customer parameter layer kernel workload benchmark dataset sequence
    query replica setting iteration day week month year bit byte word sentence sample
    prompt batch epoch core thread agent test trial try instance device endpoint engine
    source claim document case number
    """
)
_LABEL_WORDS = _words(
    """
    section sections sec figure figures fig table tables chapter chapters appendix
    equation eq version page pages line lines item footnote note row column panel
    exhibit listing algorithm
    figura figuras tabla tablas cuadro gráfico capítulo sección versión página páginas
    artículo apartado anexo tabela tabelas seção secção versão artigo tableau tableaux
    graphique chapitre annexe abbildung abb tabelle tab kapitel abschnitt seite seiten
    artikel anhang
    """
)


def _numbers(view: str, text: str, conventions: _Conventions) -> list[Figure]:
    digits = _DIGITS_SPACED if conventions.space_groups else _DIGITS
    candidates = [
        candidate
        for match in digits.finditer(view)
        if (candidate := _digit_candidate(view, match, conventions)) is not None
    ]
    # Number words are read on a copy without the numbers in digits and their units,
    # so the "mil millones" of "3 mil millones" or the "cent" of "3 pour cent" is not
    # read again.
    masked = list(view)
    for candidate in candidates:
        masked[candidate.start : candidate.end] = _MASK * (candidate.end - candidate.start)
    words_view = "".join(masked)
    spelled = conventions.spelled
    last_end = 0
    for match in (spelled.pattern if spelled else _SPELLED).finditer(words_view):
        if match.start() < last_end:
            continue  # inside the unit of the number before ("trois pour cent")
        candidate = (
            _spelled_candidate(words_view, match, conventions)
            if spelled is None
            else _number_words_candidate(words_view, match, spelled, conventions)
        )
        if candidate is not None:
            candidates.append(candidate)
            last_end = candidate.end
    candidates.sort(key=lambda candidate: candidate.start)
    _share_range_units(view, candidates)
    return [
        Figure(c.value, c.unit or "", text[c.start : c.end], c.start, c.end)
        for c in candidates
        if c.unit is not None or not c.spelled
    ]


@dataclass
class _Candidate:
    value: Decimal
    unit: str | None
    start: int
    end: int
    spelled: bool
    # What a scale word or abbreviation multiplied the number by, for ranges.
    scale: int = 1


_GLUED = re.compile(r"[A-Za-z0-9]+")
_SECTION_SIGN = re.compile(r"§\s?$")


def _digit_candidate(
    view: str, match: re.Match[str], conventions: _Conventions
) -> _Candidate | None:
    start, end = match.span()
    before = view[max(0, start - 2) : start]
    if before.endswith("-") and before[:1].isalpha():
        return None
    if _SECTION_SIGN.search(before) or (before.endswith("[") and view[end : end + 1] == "]"):
        return None
    value = _number_value(match.group(), conventions)
    currency = _currency_before(view, start)
    scale = 1
    glued = _GLUED.match(view, end)
    if glued:
        suffix = glued.group()
        # "1990s" is a decade, not 1990 seconds.
        is_decade = suffix == "s" and re.fullmatch(r"\d{3}0", match.group())
        if suffix in _GLUED_UNITS and not is_decade:
            unit, unit_end = _GLUED_UNITS[suffix], glued.end()
        elif suffix.lower() in _MONEY_SCALES:
            # Money only: before a currency, after one, or closing a range that
            # opened with one ("$40–50m").
            money = currency or _currency_of_range(view, start)
            if not money and not _currency_after(view, glued.end()):
                return None
            scale = _MONEY_SCALES[suffix.lower()]
            value, unit, unit_end, _ = _measured(
                view, glued.end(), value * scale, conventions, spelled=False, currency=money
            )
        else:
            return None
    else:
        value, unit, unit_end, scale = _measured(
            view, end, value, conventions, spelled=False, currency=currency
        )
    if currency:
        start = currency[1]
    elif _is_name_number(view, start, conventions) and not _is_measurement(unit):
        return None
    return _Candidate(_normalise(value), unit, start, unit_end, spelled=False, scale=scale)


_RANGE_OF_MONEY = re.compile(
    rf"(?P<symbol>{_SYMBOLS})[ \t\u00a0]?\d[\d.,]*(?:\s*[–-]\s*|\s+to\s+)$"
)


def _currency_of_range(view: str, start: int) -> tuple[str, int] | None:
    """The currency of a range's first endpoint, for a second one without its own."""
    match = _RANGE_OF_MONEY.search(view, max(0, start - 24), start)
    return (_CURRENCY_SYMBOLS[match.group("symbol")], start) if match else None


def _measured(
    view: str,
    end: int,
    value: Decimal,
    conventions: _Conventions,
    *,
    spelled: bool,
    currency: tuple[str, int] | None = None,
) -> tuple[Decimal, str | None, int, int]:
    """
    A number's scaled value, unit, end and scale, given its value and where its
    digits or words end: a scale word of the language (or in money a scale
    abbreviation), then a currency after it, the currency before it, or any other
    unit.
    """
    multiplier = 1
    scale = conventions.scale.match(view, end) if conventions.scale else None
    if scale:
        multiplier = conventions.scales[_phrase_key(scale.group("scale"))]
        end = scale.end()
    else:
        money = _MONEY_SCALE.match(view, end)
        if money and (currency or _currency_after(view, money.end())):
            multiplier = _MONEY_SCALES[money.group("scale").lower()]
            end = money.end()
    value *= multiplier
    after = _currency_after(view, end)
    if after:
        return value, after[0], after[1], multiplier
    if currency:
        return value, currency[0], end, multiplier
    found = _unit_after(view, end, spelled=spelled, one=value == 1, counts=conventions.counts)
    unit, unit_end = found if found else (None, end)
    return value, unit, unit_end, multiplier


def _spelled_candidate(view: str, match: re.Match[str], conventions: _Conventions) -> _Candidate:
    if match.group("tens"):
        value = _TENS_WORDS[match.group("tens").lower()]
        if match.group("ones"):
            value += _UNITS_WORDS[match.group("ones").lower()]
    elif match.group("word"):
        value = _NUMBER_WORDS[match.group("word").lower()]
    else:
        value = 6 if match.group("half") else 12
    number, unit, unit_end, scale = _measured(
        view, match.end(), Decimal(value), conventions, spelled=True
    )
    return _Candidate(number, unit, match.start(), unit_end, spelled=True, scale=scale)


def _number_words_candidate(
    view: str, match: re.Match[str], spelled: SpelledNumbers, conventions: _Conventions
) -> _Candidate | None:
    """
    A number in words of a language other than English. Without a unit it is a
    figure only with a scale ("tres millones"): a lone "un" or "ein" is an article.
    """
    read = spelled.read(match.group())
    if read is None:
        return None
    words_value, has_scale, offset = read
    value, unit, unit_end, scale = _measured(
        view, match.end(), Decimal(words_value), conventions, spelled=True
    )
    if unit is None and (has_scale or scale > 1):
        unit = ""
    start = match.start() + offset
    return _Candidate(value, unit, start, unit_end, spelled=True, scale=scale)


def _is_measurement(unit: str | None) -> bool:
    return unit is not None and (unit in _MEASUREMENT_UNITS or "/" in unit or unit in _CURRENCIES)


def _unit_after(
    view: str, end: int, *, spelled: bool, one: bool = False, counts: bool = True
) -> tuple[str, int] | None:
    for unit, pattern in _UNIT_PATTERNS:
        match = pattern.match(view, end)
        if not match:
            continue
        if unit == "time":
            # A spaced lone "s" or "h" is too often something else after a spelled number.
            if spelled and match.group("time") in ("s", "h"):
                continue
            return _TIME_WORDS[match.group("time").lower()], match.end()
        if unit == "other time":
            return _OTHER_TIME_WORDS[match.group("time").lower()], match.end()
        return unit, match.end()
    if not counts:
        return None
    compound = _COMPOUND.match(view, end)
    if compound:
        word = compound.group("word").lower()
        lemma = _singular(word)
        if spelled and lemma not in _KNOWN_NOUNS:
            return None
        return _count_or_rate(view, lemma, compound.end())
    return _count_noun(view, end, one=one)


def _count_noun(view: str, end: int, *, one: bool) -> tuple[str, int] | None:
    """
    The count's noun after a number that ends at ``end``, if any. A noun in the
    singular counts only after ``one`` (the number is 1): "the 3.7 result" is
    a figure named by a noun, not 3.7 results.
    """
    position = end
    for _ in range(3):
        match = _WORD.match(view, position)
        if not match:
            return None
        word = match.group("word")
        lower = word.lower()
        if lower in _STOPWORDS:
            return None
        if _ACRONYM_PLURAL.fullmatch(word):
            # "GPUs" would read as ending in "-us" like "various".
            return _count_or_rate(view, lower[:-1], match.end())
        if _looks_plural(lower):
            return _count_or_rate(view, _singular(lower), match.end())
        if lower in _KNOWN_NOUNS:
            if one:
                return _count_or_rate(view, lower, match.end())
            # "8 GPU nodes": the singular noun qualifies a known noun's plural after it
            # (not a verb's -s, as in "the 3.7 result explains").
            following = _WORD.match(view, match.end())
            after = following.group("word").lower() if following else ""
            if _looks_plural(after) and _singular(after) in _KNOWN_NOUNS:
                return _count_or_rate(view, _singular(after), following.end())
            return None
        position = match.end()
    return None


def _count_or_rate(view: str, lemma: str, end: int) -> tuple[str, int]:
    rate = _RATE.match(view, end)
    if rate:
        per = _RATE_UNITS[rate.group("per").lower()]
        return f"{_pluralise(lemma)}/{per}", rate.end()
    return f"count:{lemma}", end


_WORD_BEFORE = re.compile(r"(?<![\w'’])(?P<word>[^\W\d_](?:[^\W\d_]|-)*\.?)[ \t\u00a0]+$")


def _is_name_number(view: str, start: int, conventions: _Conventions) -> bool:
    """Whether the number at `start` follows a label or a name ("Figure 8", "Aurora 1.5")."""
    window_start = max(0, start - 60)
    match = _WORD_BEFORE.search(view, window_start, start)
    if not match:
        return False
    word = match.group("word")
    if word.rstrip(".").lower() in _LABEL_WORDS:
        return True
    if not conventions.names or not word[0].isupper() or word.endswith("."):
        return False
    # A capitalised word that starts a sentence ("Treat 2.6 as the claim") names nothing.
    before = view[max(0, match.start() - 10) : match.start()]
    if match.start() == 0 or "\n" in before:
        return False
    return before.rstrip()[-1:] not in (".", "!", "?", "")


def _looks_plural(word: str) -> bool:
    return (
        len(word) > 2
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
        and word not in _STOPWORDS
    )


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    if _looks_plural(word):
        return word[:-1]
    return word


def _pluralise(noun: str) -> str:
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("ch", "sh", "x", "ss", "z")):
        return noun + "es"
    return noun + "s"


def _normalise(value: Decimal) -> Decimal:
    # Drop trailing fractional zeros (9.0 → 9) without Decimal.normalize()'s 1.1E+3.
    if value == value.to_integral_value():
        return value.quantize(Decimal(1))
    return value.normalize()


_RANGE_SEPARATOR = re.compile(r"\s*–\s*|[-—/]|\s+/\s+|\s+(?:to|a|à|bis)\s+")
_BETWEEN = re.compile(r"\b(?:between|entre|zwischen)\s+$", re.IGNORECASE)
_AND = re.compile(r"\s+(?:and|y|e|et|und)\s+")


def _share_range_units(view: str, candidates: list[_Candidate]) -> None:
    """
    Give a range's first endpoint what it leaves to the second: the unit when it
    has none ("1.5–6.4×"), and the scale when it has none and the scaled value still
    opens the range ("$40–50m", "from 1.5 to 2 million", not "500 to 2 million").
    """
    for first, second in itertools.pairwise(candidates):
        if (second.unit is None and second.scale == 1) or first.unit not in (None, second.unit):
            continue
        # A spaced em dash or hyphen is a parenthesis, not a range ("10 — 467 seconds").
        if _RANGE_SEPARATOR.fullmatch(view, first.end, second.start) or (
            _AND.fullmatch(view, first.end, second.start)
            and _BETWEEN.search(view, max(0, first.start - 12), first.start)
        ):
            first.unit = second.unit
            if first.scale == 1 < second.scale and first.value * second.scale <= second.value:
                first.value = _normalise(first.value * second.scale)
                first.scale = second.scale
