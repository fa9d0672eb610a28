"""
Spelled-out numbers in Spanish, Portuguese, French and German, for the figure check.

``SPELLED_NUMBERS[language]`` (a base language code: "es", "pt", "fr", "de") reads a
number written in words up to the trillions: "doscientos cincuenta mil" (250,000),
"veintitrés", "tres mil millones" (3 × 10⁹), "dois milhões", "trezentos mil",
"quatre-vingt-dix" (90), "soixante et onze" (71), "deux millions", "mille",
"zweiundzwanzig" (22), "dreihunderttausend", "drei Millionen".

Scales follow each language's long or short scale: Spanish "billón" and French
"billion" are 10¹², "mil millones", "milliard", "Milliarde" and Portuguese "bilhão"
(Brazil) are 10⁹; Portugal's "bilião" is 10¹² and its "mil milhões" 10⁹. Accents
are optional ("veintitres", "tres"), and German "ß" may be written "ss".

A run of number words never starts with a scale of a million or more: "millones de
personas", like "millions of people", is a vague amount, not a figure. Connectors
join only where the language writes them inside a number: Spanish "y" before a unit
("treinta y dos"), French "et" before "un"/"onze" ("vingt et un"), Portuguese "e"
before any number word ("duzentos e cinquenta"); German glues "und" into the word
("zweiundzwanzig"), so a spaced "und" ends the number. Arabic number words are not
read (Arabic figures are read from digits).

Pure Python, no Django import: ``claims.figures`` uses it on every claim page.
"""

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["SPELLED_NUMBERS", "SpelledNumbers"]

# Kinds of word: a value that adds ("veinte"), a hundred that multiplies what is
# before it ("deux cents", "zweihundert"), a scale ("mil", "millones").
_ADD, _HUNDRED, _SCALE = "add", "hundred", "scale"


@dataclass(frozen=True)
class SpelledNumbers:
    """How one language spells its numbers: find runs with ``pattern``, read with ``read``."""

    pattern: re.Pattern[str]
    words: dict[str, tuple[str, int]]
    tokens: re.Pattern[str]

    def read(self, run: str) -> tuple[int, bool, int] | None:
        """
        The value of a run of number words found by ``pattern``, whether it has a
        scale of a thousand or more, and where in ``run`` the number starts; None if
        it holds no number. Words that cannot open the rest of the run are left out:
        in "un veintitrés" the "un" is an article, since a unit never precedes a
        larger value that it adds to, except across German "und" ("zweiundzwanzig").
        """
        total = current = last_scale = last_add = 0
        has_scale = seen = joined = False
        start = 0
        for token in self.tokens.finditer(run):
            kind, value = self.words.get(_folded(token.group()), ("", 0))
            if not kind:
                joined = True  # a connector: German "und" puts the tens after the unit
                continue
            if kind == _ADD and last_add and value >= last_add and not joined:
                total = current = last_scale = 0
                has_scale = False
                start = token.start()
            seen, joined = True, False
            if kind == _ADD:
                current += value
                last_add = value
            elif kind == _HUNDRED:
                current = (current or 1) * value
                last_add = current
            else:
                # "mil millones": a larger scale right after a smaller one scales it.
                if current == 0 and total and value > last_scale:
                    total *= value
                else:
                    total += (current or 1) * value
                current, last_scale, last_add, has_scale = 0, value, 0, True
        return (total + current, has_scale, start) if seen else None


def _folded(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", word.lower().replace("ß", "ss"))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _table(add: str, hundred: str, scales: dict[str, int]) -> dict[str, tuple[str, int]]:
    """``add`` and ``hundred`` as "word=value" pairs separated by spaces."""
    table: dict[str, tuple[str, int]] = {}
    for kind, pairs in ((_ADD, add), (_HUNDRED, hundred)):
        for pair in pairs.split():
            words, value = pair.split("=")
            for word in words.split("/"):
                table[_folded(word)] = (kind, int(value))
    for words, value in scales.items():
        for word in words.split("/"):
            table[_folded(word)] = (_SCALE, value)
    return table


def _alternation(words) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_SEPARATOR = r"(?:[ \t\u00a0]+|-)"


def _language(
    table: dict[str, tuple[str, int]], *, connector: str = "", compound: bool = False
) -> SpelledNumbers:
    # Both spellings of each word: as the table folds it, and with the accents of
    # the text (matched case-insensitively; the table is looked up folded).
    words = set(table)
    first = {
        word for word, (kind, value) in table.items() if not (kind == _SCALE and value >= 10**6)
    }
    if compound:
        # German writes every number below a million as one word.
        tens = [
            word
            for word, (kind, value) in table.items()
            if kind == _ADD and value in range(20, 100, 10)
        ]
        morpheme = _alternation(words - {"und"} - _BIG_GERMAN)
        joined = rf"(?:{morpheme})(?:{morpheme}|und(?=(?:{_alternation(tens)})))*"
        big = _alternation(_BIG_GERMAN)
        word_pattern, first_pattern = rf"(?:{joined}|{big})", joined
        tokens = re.compile(rf"{big}|{morpheme}|und", re.IGNORECASE)
    else:
        word_pattern, first_pattern = _alternation(words), _alternation(first)
        tokens = re.compile(_alternation(words | {"y", "e", "et"}), re.IGNORECASE)
    pattern = re.compile(
        rf"(?<![\w-])(?:{first_pattern})(?:{_SEPARATOR}(?:{connector})?(?:{word_pattern}))*(?![\w-])",
        re.IGNORECASE,
    )
    return SpelledNumbers(pattern, table, tokens)


def _with_accents(table: dict[str, tuple[str, int]], spelled: str) -> dict[str, tuple[str, int]]:
    """Add the accented spellings in ``spelled`` (which fold to keys already there)."""
    for word in spelled.split():
        table.setdefault(word, table[_folded(word)])
    return table


_SPANISH = _with_accents(
    _table(
        "uno/un/una=1 dos=2 tres=3 cuatro=4 cinco=5 seis=6 siete=7 ocho=8 nueve=9 diez=10"
        " once=11 doce=12 trece=13 catorce=14 quince=15 dieciseis=16 diecisiete=17"
        " dieciocho=18 diecinueve=19 veinte=20 veintiuno/veintiun/veintiuna=21 veintidos=22"
        " veintitres=23 veinticuatro=24 veinticinco=25 veintiseis=26 veintisiete=27"
        " veintiocho=28 veintinueve=29 treinta=30 cuarenta=40 cincuenta=50 sesenta=60"
        " setenta=70 ochenta=80 noventa=90 cien/ciento=100 doscientos/doscientas=200"
        " trescientos/trescientas=300 cuatrocientos/cuatrocientas=400"
        " quinientos/quinientas=500 seiscientos/seiscientas=600 setecientos/setecientas=700"
        " ochocientos/ochocientas=800 novecientos/novecientas=900",
        "",
        {"mil": 10**3, "millon/millones": 10**6, "billon/billones": 10**12},
    ),
    "veintiún dieciséis veintidós veintitrés veintiséis millón billón",
)
_PORTUGUESE = _with_accents(
    _table(
        "um/uma=1 dois/duas=2 tres=3 quatro=4 cinco=5 seis=6 sete=7 oito=8 nove=9 dez=10"
        " onze=11 doze=12 treze=13 catorze/quatorze=14 quinze=15 dezesseis/dezasseis=16"
        " dezessete/dezassete=17 dezoito=18 dezenove/dezanove=19 vinte=20 trinta=30"
        " quarenta=40 cinquenta=50 sessenta=60 setenta=70 oitenta=80 noventa=90"
        " cem/cento=100 duzentos/duzentas=200 trezentos/trezentas=300"
        " quatrocentos/quatrocentas=400 quinhentos/quinhentas=500 seiscentos/seiscentas=600"
        " setecentos/setecentas=700 oitocentos/oitocentas=800 novecentos/novecentas=900",
        "",
        {
            "mil": 10**3,
            "milhao/milhoes": 10**6,
            "bilhao/bilhoes": 10**9,
            "biliao/bilioes/trilhao/trilhoes": 10**12,
        },
    ),
    "três milhão milhões bilhão bilhões bilião biliões trilhão trilhões",
)
_FRENCH = _table(
    "un/une=1 deux=2 trois=3 quatre=4 cinq=5 six=6 sept=7 huit=8 neuf=9 dix=10 onze=11"
    " douze=12 treize=13 quatorze=14 quinze=15 seize=16 vingt/vingts=20 trente=30"
    " quarante=40 cinquante=50 soixante=60 quatre-vingt/quatre-vingts=80",
    "cent/cents=100",
    {
        "mille": 10**3,
        "million/millions": 10**6,
        "milliard/milliards": 10**9,
        "billion/billions": 10**12,
    },
)
_BIG_GERMAN = {"million", "millionen", "milliarde", "milliarden", "billion", "billionen"}
_GERMAN = _with_accents(
    _table(
        "ein/eins/eine/einer/einen=1 zwei=2 drei=3 vier=4 funf=5 sechs=6 sieben=7 acht=8"
        " neun=9 zehn=10 elf=11 zwolf=12 dreizehn=13 vierzehn=14 funfzehn=15 sechzehn=16"
        " siebzehn=17 achtzehn=18 neunzehn=19 zwanzig=20 dreissig=30 vierzig=40"
        " funfzig=50 sechzig=60 siebzig=70 achtzig=80 neunzig=90",
        "hundert=100",
        {
            "tausend": 10**3,
            "million/millionen": 10**6,
            "milliarde/milliarden": 10**9,
            "billion/billionen": 10**12,
        },
    ),
    "fünf zwölf fünfzehn fünfzig dreißig",
)

_SPANISH_UNITS = "uno|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve"
_PORTUGUESE_WORDS = _alternation(
    {word for word, (kind, value) in _PORTUGUESE.items() if not (kind == _SCALE and value >= 10**6)}
)

SPELLED_NUMBERS: dict[str, SpelledNumbers] = {
    "es": _language(_SPANISH, connector=rf"y[ \t]+(?=(?:{_SPANISH_UNITS})\b)"),
    "pt": _language(_PORTUGUESE, connector=rf"e[ \t]+(?=(?:{_PORTUGUESE_WORDS})\b)"),
    "fr": _language(_FRENCH, connector=r"et[ \t]+(?=(?:un|une|onze)\b)"),
    "de": _language(_GERMAN, compound=True),
}
