"""
The figure check: which figures of a claim's statement are in none of its evidence.

A statement paraphrases quotations, and a paraphrase is where a figure can drift:
a "3.7×" that the source never wrote, a "50 seconds" where the source wrote a bare
"50". This module finds every figure of a text (a number and its unit), normalises
both, and reports the statement's figures that no evidence text supports. It is pure
Python with no Django import, so it can run anywhere; what to do with the result
(the claim page warns, it does not block) is the caller's business.

How a text is read, in order:

1. Dates are found first and masked, so their digits are not read again as numbers.
   "October 27, 2026", "Oct. 27 2026", "27 October 2026" and "2026-10-27" all become
   ``date(2026, 10, 27)`` with unit ``"date"``. A month and day without a year
   ("November 4") has unit ``"month-day"`` and a month and year ("October 2026") unit
   ``"month-year"``; their value is a ``datetime.date`` whose missing parts are
   placeholders (year 4, the first leap year, so February 29 is representable; day 1).
   Numeric slash dates (10/27/2026) are not read as dates: they are ambiguous.
2. Words that are themselves a ratio: "twice" and "thrice" (2×, 3×), "twofold",
   "tenfold" and the like.
3. Numbers, written in digits ("1,111", "9.0", "70,000") or spelled out ("one" to
   "ninety-nine", "a dozen", "half a dozen"), optionally scaled by "thousand",
   "million", "billion" or "trillion", followed by a unit.

Units, normalised:

* ``"×"``: ×, a glued x ("2.6x"), "times", "fold" / "-fold". A spaced "x" is not a
  unit ("3 x 4" is usually a product). Every "N times" is read as a factor, also the
  rarer frequency sense ("ran five times").
* ``"%"``: %, "percent", "per cent", "pct"; ``"pp"`` for percentage points.
* Time: ``"s"`` (s, sec, secs, second(s), glued "467s"), ``"ms"``, ``"min"``, ``"h"``
  (including the compound "24-hour"). Units are not converted into each other:
  "8 minutes" does not match "480 seconds", because a paraphrase that converts units
  is worth a human look.
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
* A number in digits with no recognisable unit is a bare number, unit ``""``.
  A spelled-out number needs a unit or a noun ("one" is far more often a pronoun).

Values are ``decimal.Decimal`` with trailing fractional zeros dropped, so "9.0" and
"9" are the same value (the unit still has to match).

Names are not figures. Never extracted:

* digits inside an alphanumeric token: B200, GB300, H100, TP8, Trainium2, v4.1,
  M3.1-Flash, Llama 1B (a glued multiplier such as 1B, 70K or 2M is read as a name,
  not as "one billion"), 27th, 0x1F. Only a glued unit (2.6x, 467s, 24h) is allowed;
* digits hyphenated onto a word on their left: GPT-4, batch-size-1;
* section signs and citation markers: §5.2, [1];
* a number right after a label word, lower or upper case: "Figure 8", "table 3",
  "section 5.2", "version 2";
* a number right after a capitalised word that does not start a sentence, such as a
  product name with a version: "Aurora 1.5", "AIFS-ENS 2.0". Such a number is still a
  figure if a measurement unit (×, %, a time, a rate) follows it, since names are not
  measured ("Together AI 2.6× faster").

Ranges give both endpoints, and the first borrows the unit of the second when it has
none: "1.5–6.4×", "10-40×", "from 467 to 9.0 seconds", "1,111 / 1,205 TPS",
"between 2 and 4 nodes". Such a first endpoint's ``text`` is just its number.

Matching (``missing_figures``) compares normalised (value, unit) pairs, and:

* a statement figure with a unit is not supported by a bare number in the evidence:
  a statement's "2.6×" is matched by "2.6 times" or "2.6x", not by "the 2.6"; a
  statement's "50 seconds" is not matched by "50 for weight loading";
* a bare number in the statement is supported by the same value with any unit, or
  by the year of a date;
* a statement's month-day or month-year is supported by a full date that contains it,
  but a statement's full date is not supported by a date without its year.

Negative numbers, fractions ("two-thirds"), "double"/"half" and vague quantities
("dozens", "trillions of tokens", "a few dozen") are not read as figures.
"""

import datetime
import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

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


def extract_figures(text: str) -> list[Figure]:
    """Every figure of `text`, in the order they appear."""
    # Later passes read the masked copy, so a date's digits are never read twice;
    # the mask character is neither a word character nor a space.
    masked = list(text)
    figures: list[Figure] = []

    def take(figure: Figure) -> None:
        figures.append(figure)
        masked[figure.start : figure.end] = _MASK * (figure.end - figure.start)

    for figure in _dates(text):
        take(figure)
    for figure in _ratio_words("".join(masked), text):
        take(figure)
    figures.extend(_numbers("".join(masked), text))
    return sorted(figures, key=lambda figure: figure.start)


def missing_figures(statement: str, evidence_texts: list[str]) -> list[Figure]:
    """
    The figures of `statement` that appear in none of `evidence_texts`.

    In statement order, each normalised figure once (its first occurrence). See the
    module docstring for what counts as support: the same value and unit, with a
    bare number in the evidence never supporting a figure with a unit.
    """
    evidence = [figure for text in evidence_texts for figure in extract_figures(_unwrapped(text))]
    missing: list[Figure] = []
    seen: set[tuple[str, Decimal | datetime.date]] = set()
    for figure in extract_figures(statement):
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


def _dates(text: str) -> list[Figure]:
    found: list[Figure] = []
    taken: list[tuple[int, int]] = []
    for unit, pattern in _DATE_PATTERNS:
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
    month = int(month_text) if month_text.isdigit() else _MONTHS[month_text]
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


# --- numbers -------------------------------------------------------------------------

_DIGITS = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?![.,]\d)")
_SPELLED = re.compile(
    r"\b(?:(?P<half>half\s+)?(?<!few\s)a\s+dozen"
    r"|(?P<tens>" + "|".join(_TENS_WORDS) + r")(?:-(?P<ones>" + "|".join(_UNITS_WORDS) + r"))?"
    r"|(?P<word>" + "|".join([*_UNITS_WORDS, *_TEEN_WORDS, "zero"]) + r"))\b",
    re.IGNORECASE,
)
_SCALE = re.compile(r"\s+(?P<scale>thousand|million|billion|trillion)\b")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}

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
_TIME = r"(?P<time>milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|min|hours?|hrs?|hr|h)\b"

# Tried in order at the end of a number; the first that matches is the unit.
_UNIT_PATTERNS = [
    ("×", re.compile(r"\s?×")),
    ("%", re.compile(r"\s?%")),
    ("%", re.compile(r"[ \t-]?(?:percent|per\s+cent|pct)\b", re.IGNORECASE)),
    ("pp", re.compile(r"\s(?:percentage\s+points?|pp)\b", re.IGNORECASE)),
    ("×", re.compile(r"[ \t-]?fold\b", re.IGNORECASE)),
    ("×", re.compile(r"[ \t-]times\b", re.IGNORECASE)),
    ("tokens/s", re.compile(r"\s(?:TPS|tok/s)\b")),
    ("requests/s", re.compile(r"\sRPS\b")),
    ("queries/s", re.compile(r"\sQPS\b")),
    ("time", re.compile(r"[ \t-]" + _TIME)),
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
    """
)


def _numbers(view: str, text: str) -> list[Figure]:
    candidates = [
        candidate
        for match in _DIGITS.finditer(view)
        if (candidate := _digit_candidate(view, match)) is not None
    ]
    candidates += [_spelled_candidate(view, match) for match in _SPELLED.finditer(view)]
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


_GLUED = re.compile(r"[A-Za-z0-9]+")
_SECTION_SIGN = re.compile(r"§\s?$")


def _digit_candidate(view: str, match: re.Match[str]) -> _Candidate | None:
    start, end = match.span()
    before = view[max(0, start - 2) : start]
    if before.endswith("-") and before[:1].isalpha():
        return None
    if _SECTION_SIGN.search(before) or (before.endswith("[") and view[end : end + 1] == "]"):
        return None
    value = Decimal(match.group().replace(",", ""))
    found: tuple[str, int] | None
    glued = _GLUED.match(view, end)
    if glued:
        suffix = glued.group()
        # "1990s" is a decade, not 1990 seconds.
        is_decade = suffix == "s" and re.fullmatch(r"\d{3}0", match.group())
        if suffix not in _GLUED_UNITS or is_decade:
            return None
        found = (_GLUED_UNITS[suffix], glued.end())
    else:
        scale = _SCALE.match(view, end)
        if scale:
            value *= _SCALES[scale.group("scale").lower()]
            end = scale.end()
        found = _unit_after(view, end, spelled=False, one=value == 1)
    unit, unit_end = found if found else (None, end)
    if _is_name_number(view, start) and not _is_measurement(unit):
        return None
    return _Candidate(_normalise(value), unit, start, unit_end, spelled=False)


def _spelled_candidate(view: str, match: re.Match[str]) -> _Candidate:
    if match.group("tens"):
        value = _TENS_WORDS[match.group("tens").lower()]
        if match.group("ones"):
            value += _UNITS_WORDS[match.group("ones").lower()]
    elif match.group("word"):
        value = _NUMBER_WORDS[match.group("word").lower()]
    else:
        value = 6 if match.group("half") else 12
    number = Decimal(value)
    end = match.end()
    scale = _SCALE.match(view, end)
    if scale:
        number *= _SCALES[scale.group("scale").lower()]
        end = scale.end()
    found = _unit_after(view, end, spelled=True, one=number == 1)
    unit, unit_end = found if found else (None, end)
    return _Candidate(number, unit, match.start(), unit_end, spelled=True)


def _is_measurement(unit: str | None) -> bool:
    return unit is not None and (unit in _MEASUREMENT_UNITS or "/" in unit)


def _unit_after(view: str, end: int, *, spelled: bool, one: bool = False) -> tuple[str, int] | None:
    for unit, pattern in _UNIT_PATTERNS:
        match = pattern.match(view, end)
        if not match:
            continue
        if unit == "time":
            # A spaced lone "s" or "h" is too often something else after a spelled number.
            if spelled and match.group("time") in ("s", "h"):
                continue
            return _TIME_WORDS[match.group("time").lower()], match.end()
        return unit, match.end()
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


_WORD_BEFORE = re.compile(r"(?<![\w'’])(?P<word>[A-Za-z][A-Za-z-]*\.?)[ \t]+$")


def _is_name_number(view: str, start: int) -> bool:
    """Whether the number at `start` follows a label or a name ("Figure 8", "Aurora 1.5")."""
    window_start = max(0, start - 60)
    match = _WORD_BEFORE.search(view, window_start, start)
    if not match:
        return False
    word = match.group("word")
    if word.rstrip(".").lower() in _LABEL_WORDS:
        return True
    if not word[0].isupper() or word.endswith("."):
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


_RANGE_SEPARATOR = re.compile(r"\s*–\s*|[-—/]|\s+/\s+|\s+to\s+")
_BETWEEN = re.compile(r"\bbetween\s+$", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+")


def _share_range_units(view: str, candidates: list[_Candidate]) -> None:
    """Give a range's unitless first endpoint the unit of its second ("1.5–6.4×")."""
    for first, second in itertools.pairwise(candidates):
        if first.unit is not None or second.unit is None:
            continue
        # A spaced em dash or hyphen is a parenthesis, not a range ("10 — 467 seconds").
        if _RANGE_SEPARATOR.fullmatch(view, first.end, second.start) or (
            _AND.fullmatch(view, first.end, second.start)
            and _BETWEEN.search(view, max(0, first.start - 12), first.start)
        ):
            first.unit = second.unit
