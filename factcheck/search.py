"""
Full-text search across sources' text and claims, behind one function.

The apps that own content write passages with ``replace_entries``; ``search``
finds them with the database's own full-text engine: SQLite's FTS5 (an
external-content table kept in step by triggers) or PostgreSQL's text search
(a GIN index on the stored ``document`` column, migration 0006). Each passage
has a language (factcheck.languages): on PostgreSQL its ``document`` is made
with that language's text search configuration, and a query matches a passage
as stemmed in the passage's own language (migration 0011). SQLite has one word
index for every language, and a trigram index beside it for the words of
scripts written without spaces. Snippets come back as safe HTML: the passage
escaped, the matches in ``<mark>``; on PostgreSQL they are cut in Python
around the words the server matched (``_headlines``).
"""

import functools
import re
from bisect import bisect_right
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from django.db import connection, transaction
from django.utils.html import escape
from django.utils.safestring import mark_safe

from factcheck.languages import (
    CONTENT_LANGUAGES,
    OTHER_CONFIGURATION,
    WITHOUT_SPACES,
    search_configuration,
    written_without_spaces,
)
from factcheck.models import SearchEntry

# Control characters that never occur in stored text (extraction strips them),
# so they can mark matches in a snippet before it is escaped.
MATCH_START, MATCH_END = "\x02", "\x03"
SNIPPET_WORDS = 28
#: A snippet's length in characters where words are not set apart by spaces.
SNIPPET_CHARS = 120
HEADLINE_OPTIONS = (
    f"StartSel={MATCH_START}, StopSel={MATCH_END}, MaxWords={SNIPPET_WORDS}, "
    'MinWords=12, MaxFragments=2, FragmentDelimiter=" … "'
)
#: Stands for "<" in a passage given to ts_headline, which would otherwise take
#: "<b>" or "<10% of…" for the start of a tag and drop it from the snippet.
#: Another control character that stored text never holds.
NOT_A_TAG = "\x04"
#: The first match a snippet marks.
FIRST_MARKED = re.compile(f"{MATCH_START}([^{MATCH_END}]+){MATCH_END}")
#: The headline of each (id, body) pair given, made from that very text.
HEADLINE_SQL = (
    "SELECT t.id, ts_headline(t.config::regconfig, replace(t.body, '<', %s), "
    "plainto_tsquery(t.config::regconfig, factcheck_search_text(t.config::regconfig, %s)), %s) "
    "FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS t(id, body, config)"
)
#: Every language a passage may be in ("" when not known), with the configuration
#: its passages are indexed with (migration 0011).
INDEXED_LANGUAGES = [
    ("", search_configuration("")),
    *((language.code, language.search_configuration) for language in CONTENT_LANGUAGES),
]
#: The query as each configuration reads it, one row per distinct reading (most
#: words read alike in several languages: one index scan serves them all), with
#: the languages whose passages it is matched against. ``rest`` stands for the
#: codes the list does not hold, indexed as "other" is.
QUERIES_SQL = (
    "WITH q AS ("
    "SELECT plainto_tsquery(c.config::regconfig, "
    "factcheck_search_text(c.config::regconfig, %s)) AS query, "
    "array_agg(c.language) AS languages, bool_or(c.config = %s) AS rest "
    "FROM unnest(%s::text[], %s::text[]) AS c(language, config) GROUP BY 1) "
)
#: A passage matches the query as read in the passage's own language.
MATCHES_SQL = (
    "e.document @@ q.query AND (e.language = ANY(q.languages) "
    "OR (q.rest AND e.language <> ALL(%s)))"
)
#: The fewest characters FTS5's trigram index can look for.
TRIGRAM = 3
#: The GIN index on the stored document (migration 0006).
DOCUMENT_INDEX = "factcheck_searchentry_document"
WORD = re.compile(r"\w+", re.UNICODE)
#: What a query's words are: a number written with its decimal point or
#: thousands separators ("4.2", "2,000") stays one term, not two words that
#: match wherever a "4" and a "2" appear. FTS5 reads it as a phrase (its digit
#: groups next to each other, whatever stands between them: "4.2", "4 2");
#: PostgreSQL's parser keeps a decimal whole, while it still splits "2,000".
#: A unit written onto it ("2.6x", "1,111x") stays with it, as the index reads
#: the text: FTS5 indexes "2.6x" as "2" and "6x" (PostgreSQL as "2.6" and "x").
TERM = re.compile(r"\d+(?:[.,]\d+)+\w*|\w+", re.UNICODE)
MAX_EXPECTED_PAGE = 10_000


@dataclass
class Passage:
    title: str
    body: str
    url: str
    location: str = ""


@dataclass
class Hit:
    kind: str
    object_id: int
    title: str
    url: str
    location: str
    snippet: str


@transaction.atomic
def replace_entries(*, kind: str, object_id: int, passages, language: str = "") -> None:
    """
    Make ``passages`` the searchable text of the object (``kind``,
    ``object_id``), in ``language`` (a code of factcheck.languages; "" when it
    is not known, searched as English on PostgreSQL, as before texts had one).
    """
    SearchEntry.objects.filter(kind=kind, object_id=object_id).delete()
    SearchEntry.objects.bulk_create(
        SearchEntry(
            kind=kind,
            object_id=object_id,
            title=passage.title[:500],
            body=passage.body,
            url=passage.url[:500],
            location=passage.location[:100],
            position=position,
            language=language,
        )
        for position, passage in enumerate(passages)
    )


@contextmanager
def bulk_indexing():
    """
    Around writing many entries at once (a generated dataset): on PostgreSQL the
    index gathers them in its pending list, merged in bulk at the end, instead
    of taking each into its tree as it does for everyday writes (migration 0007),
    and gets its own setting back afterwards. Changing that setting locks the
    whole index (ACCESS EXCLUSIVE) until the transaction ends: not for a live desk.
    """
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class "
            "WHERE oid = %s::regclass",
            [DOCUMENT_INDEX],
        )
        (before,) = cursor.fetchone()
        cursor.execute(f"ALTER INDEX {DOCUMENT_INDEX} SET (fastupdate = on)")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER INDEX {DOCUMENT_INDEX} RESET (fastupdate)")
            if "fastupdate=off" in before.split(","):
                cursor.execute(f"ALTER INDEX {DOCUMENT_INDEX} SET (fastupdate = off)")
            cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [DOCUMENT_INDEX])


def chunk_text(text, size=1200, breaks=()):
    """
    Split ``text`` into passages of about ``size`` characters, cut at paragraph
    or sentence ends where possible, and always at each offset of ``breaks``
    (where the reader's parts begin: a passage's link opens the part it starts
    in, which must hold all of it). Yields ``(start, passage)``.
    """
    breaks = sorted(breaks)
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        following = bisect_right(breaks, start)
        if following < len(breaks) and breaks[following] < end:
            end = breaks[following]
        elif end < len(text):
            window = text[start + size // 2 : end]
            cut = max(window.rfind("\n"), window.rfind(". "))
            if cut != -1:
                end = start + size // 2 + cut + 1
        passage = text[start:end]
        if passage.strip():
            yield start, passage
        start = end


class SearchResults:
    """A lazily counted, sliceable result list, so Django's Paginator can page it."""

    def __init__(self, query, claim_ids=None):
        self.query = query
        self.terms = TERM.findall(query)
        self.claim_ids = claim_ids
        self._count = None
        self._expected = None
        #: ``(offset, limit, hits)`` of the page read while counting, if one was.
        self._prefetched = None

    def expect_page(self, number, per_page):
        """
        Say which page the Paginator will read (``number`` as the request gave
        it): counting then fetches that page too, in the same query.
        """
        try:
            number = int(number)
        except (TypeError, ValueError):
            number = 1  # as the Paginator reads it
        # Beyond these the Paginator asks for another page, read apart (nor can a
        # huge number overflow the database's OFFSET).
        if 1 <= number <= MAX_EXPECTED_PAGE:
            self._expected = ((number - 1) * per_page, per_page)

    def count(self):
        if self._count is None and self.terms and self._expected:
            offset, limit = self._expected
            hits, total = _fetch(self.terms, offset, limit, self.claim_ids)
            self._prefetched = (offset, limit, hits)
            # A page past the end has no rows to carry the total: count it apart.
            self._count = total
        if self._count is None:
            self._count = _count(self.terms, self.claim_ids) if self.terms else 0
        return self._count

    def __len__(self):
        return self.count()

    def __getitem__(self, window):
        if not isinstance(window, slice):
            raise TypeError("Search results are read a page at a time.")
        if not self.terms:
            return []
        offset, limit = window.start or 0, window.stop - (window.start or 0)
        if self._prefetched:
            fetched_offset, fetched_limit, hits = self._prefetched
            # The last page is cut to what is left of the count.
            if fetched_offset == offset and fetched_limit >= limit:
                return hits[:limit]
        return _fetch(self.terms, offset, limit, self.claim_ids)[0]


def search(query, *, claim_ids=None):
    """
    Passages matching every word of ``query``, best first (use with a
    Paginator). ``claim_ids``, when given, are the only claims whose entries
    may appear: a reviewer finds sources, and only the claims assigned to them.
    """
    return SearchResults(query, None if claim_ids is None else [int(pk) for pk in claim_ids])


def _claims_filter(claim_ids):
    """
    SQL that keeps the entries of other kinds and of the claims in
    ``claim_ids``: placeholders only, the ids go in as parameters.
    """
    if claim_ids is None:
        return "", []
    if not claim_ids:
        return " AND e.kind <> 'claim'", []
    placeholders = ", ".join(["%s"] * len(claim_ids))
    return f" AND (e.kind <> 'claim' OR e.object_id IN ({placeholders}))", list(claim_ids)


def _sqlite_match(terms):
    # Each word a quoted string: the user's text is never FTS5 query syntax.
    return " ".join('"' + term.replace('"', '""') + '"' for term in terms)


def _postgresql_queries_params(query):
    return [
        query,
        OTHER_CONFIGURATION,
        [language for language, _config in INDEXED_LANGUAGES],
        [config for _language, config in INDEXED_LANGUAGES],
    ]


def _postgresql_known_languages():
    return [language for language, _config in INDEXED_LANGUAGES]


def _sqlite_trigram_sql(terms):
    """
    ``(FROM and WHERE, params)`` finding passages by the trigram index: a query
    with words of a script written without spaces, which the word index reads
    as whole runs ("東京都の人口は増えた" is one word there). Each word is looked
    for inside the text. One too short for a trigram ("人口") is looked for in
    the passages the longer words found; with no longer word, in every passage
    of a language written without spaces (a scan, without an index), besides
    the passages that have the words as words.
    """
    long = [term for term in terms if len(term) >= TRIGRAM]
    short = [term for term in terms if len(term) < TRIGRAM]
    inside = ["instr(lower(e.title || ' ' || e.body), %s) > 0"] * len(short)
    inside_params = [term.lower() for term in short]
    if long:
        return (
            "FROM factcheck_searchentry_trigram JOIN factcheck_searchentry e "
            "ON e.id = factcheck_searchentry_trigram.rowid "
            "WHERE " + " AND ".join(["factcheck_searchentry_trigram MATCH %s", *inside]),
            [_sqlite_match(long), *inside_params],
        )
    languages = ", ".join(["%s"] * len(WITHOUT_SPACES))
    return (
        # Placeholders only; in parentheses, as the claims' filter is added with AND.
        f"FROM factcheck_searchentry e WHERE ((e.language IN ({languages}) AND "  # noqa: S608
        + " AND ".join(inside)
        + ") OR e.id IN (SELECT rowid FROM factcheck_searchentry_fts "
        "WHERE factcheck_searchentry_fts MATCH %s))",
        [*sorted(WITHOUT_SPACES), *inside_params, _sqlite_match(terms)],
    )


def _count(terms, claim_ids):
    only, only_params = _claims_filter(claim_ids)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            ctes, found, _rank, params = _postgresql_found(terms)
            cursor.execute(ctes + "SELECT count(*) " + found + only, [*params, *only_params])
        elif written_without_spaces(" ".join(terms)):
            sql, params = _sqlite_trigram_sql(terms)
            cursor.execute("SELECT count(*) " + sql + only, [*params, *only_params])
        elif claim_ids is None:
            cursor.execute(
                "SELECT count(*) FROM factcheck_searchentry_fts WHERE factcheck_searchentry_fts "
                "MATCH %s",
                [_sqlite_match(terms)],
            )
        else:
            cursor.execute(
                "SELECT count(*) FROM factcheck_searchentry_fts JOIN factcheck_searchentry e "  # noqa: S608 (placeholders only)
                "ON e.id = factcheck_searchentry_fts.rowid "
                "WHERE factcheck_searchentry_fts MATCH %s" + only,
                [_sqlite_match(terms), *only_params],
            )
        return cursor.fetchone()[0]


def _fetch(terms, offset, limit, claim_ids):
    """
    ``(hits, total)``: the hits from ``offset`` on, at most ``limit``, and how
    many there are in all (None when that is not known: on SQLite, or when the
    window holds no hit to tell it).
    """
    if connection.vendor == "postgresql":
        return _fetch_postgresql(terms, offset, limit, claim_ids)
    if written_without_spaces(" ".join(terms)):
        return _fetch_sqlite_trigram(terms, offset, limit, claim_ids), None
    only, only_params = _claims_filter(claim_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.kind, e.object_id, e.title, e.url, e.location, e.body, "
            "snippet(factcheck_searchentry_fts, 1, %s, %s, '…', %s) "
            "FROM factcheck_searchentry_fts JOIN factcheck_searchentry e "
            "ON e.id = factcheck_searchentry_fts.rowid "
            "WHERE factcheck_searchentry_fts MATCH %s" + only + " "
            "ORDER BY rank, e.id LIMIT %s OFFSET %s",
            [
                MATCH_START,
                MATCH_END,
                SNIPPET_WORDS,
                _sqlite_match(terms),
                *only_params,
                limit,
                offset,
            ],
        )
        rows = cursor.fetchall()
    hits = [
        _hit(kind, object_id, title, url, location, body, snippet)
        for kind, object_id, title, url, location, body, snippet in rows
    ]
    # FTS5's snippet() refuses to run beside a window function: counted apart.
    return hits, None


def _fetch_sqlite_trigram(terms, offset, limit, claim_ids):
    only, only_params = _claims_filter(claim_ids)
    sql, params = _sqlite_trigram_sql(terms)
    # Without the trigram index (only short words), no rank: the order they were written in.
    order = "rank, e.id" if sql.startswith("FROM factcheck_searchentry_trigram") else "e.id"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.kind, e.object_id, e.title, e.url, e.location, e.body "
            + sql
            + only
            + f" ORDER BY {order} LIMIT %s OFFSET %s",
            [*params, *only_params, limit, offset],
        )
        rows = cursor.fetchall()
    return [
        _hit(kind, object_id, title, url, location, body, _substring_snippet(body, terms))
        for kind, object_id, title, url, location, body in rows
    ]


def _postgresql_found(terms):
    """
    ``(WITH …, FROM … WHERE …, the order's rank, params)`` of the entries matching
    ``terms`` on PostgreSQL, as ``e``: each matched by the query read in its
    own language (``QUERIES_SQL``), and, for a query in a script written
    without spaces, the entries in such a language that hold every word
    anywhere in their text, which the trigram index finds (migration 0012):
    their ``document`` has the whole run of characters for one word.
    """
    query = " ".join(terms)
    params = [*_postgresql_queries_params(query), _postgresql_known_languages()]
    if not written_without_spaces(query):
        return (
            QUERIES_SQL,
            "FROM q JOIN factcheck_searchentry e ON " + MATCHES_SQL + " WHERE TRUE",
            "ts_rank(e.document, q.query)",
            params,
        )
    # Literals, as the trigram index's own condition is written, for the planner to match.
    languages = ", ".join(f"'{code}'" for code in sorted(WITHOUT_SPACES))
    inside = " AND ".join(["(s.title || ' ' || s.body) ILIKE %s"] * len(terms))
    return (
        # Placeholders and our own constants only.
        QUERIES_SQL + ", m AS (SELECT found.id, max(found.rank) AS rank FROM ("  # noqa: S608
        "SELECT e.id, ts_rank(e.document, q.query) AS rank "
        "FROM q JOIN factcheck_searchentry e ON " + MATCHES_SQL + " "  # noqa: S608
        # Found inside a run of characters: after those found as words.
        "UNION ALL SELECT s.id, 0 FROM factcheck_searchentry s "
        f"WHERE s.language IN ({languages}) AND {inside}"
        ") AS found GROUP BY found.id) ",
        "FROM m JOIN factcheck_searchentry e ON e.id = m.id WHERE TRUE",
        "m.rank",
        [*params, *(f"%{_like_escaped(term)}%" for term in terms)],
    )


def _like_escaped(term):
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _fetch_postgresql(terms, offset, limit, claim_ids):
    only, only_params = _claims_filter(claim_ids)
    ctes, found, rank, params = _postgresql_found(terms)
    with connection.cursor() as cursor:
        cursor.execute(
            ctes + "SELECT e.id, e.body, e.language, e.kind, e.object_id, e.title, e.url, "
            "e.location, count(*) OVER () " + found + only + " "
            f"ORDER BY {rank} DESC, e.id "
            "LIMIT %s OFFSET %s",
            [*params, *only_params, limit, offset],
        )
        rows = cursor.fetchall()
    query = " ".join(terms)
    # Words found inside runs of characters are marked where they stand.
    inside = written_without_spaces(query)
    headlines = _headlines(
        query,
        {
            pk: body
            for pk, body, language, *_ in rows
            if not (inside and language in WITHOUT_SPACES)
        },
        {pk: search_configuration(language) for pk, _body, language, *_ in rows},
    )
    hits = [
        _hit(
            kind,
            object_id,
            title,
            url,
            location,
            body,
            headlines[pk] if pk in headlines else _substring_snippet(body, terms),
        )
        for pk, body, _language, kind, object_id, title, url, location, _total in rows
    ]
    return hits, rows[0][-1] if rows else None


def _substring_snippet(body, terms):
    """
    A snippet of ``body`` for words found inside runs of characters (the
    trigram search): ``SNIPPET_CHARS`` characters from a little before the
    first match, every occurrence of the query's words in it marked.
    """
    found = re.compile("|".join(map(re.escape, sorted(terms, key=len, reverse=True))), re.I)
    first = found.search(body)
    start = max(0, first.start() - SNIPPET_CHARS // 4) if first else 0
    end = min(len(body), start + SNIPPET_CHARS)
    marked = found.sub(lambda match: MATCH_START + match.group() + MATCH_END, body[start:end])
    return ("…" if start else "") + marked + ("…" if end < len(body) else "")


def _headlines(query, bodies, configs=None):
    """
    ``{entry id: headline}`` for the entries in ``bodies`` (``{id: body}``),
    the matches between ``MATCH_START`` and ``MATCH_END``, made from the bodies
    the search read (even if an entry was replaced since), each read with its
    text search configuration (``configs``, ``{id: configuration}``; English
    for an entry it leaves out).

    PostgreSQL's ``ts_headline`` parses each whole passage again, which took
    most of a new search's time (20 passages, 3 ms of the server's CPU). Here
    PostgreSQL only says which of the passages' words stand for the query's
    lexemes (one query over the few words that begin as a query word does),
    and the snippet is cut in Python (``_headline``). A passage in which no such
    word turns up (its match is spelled unlike the query word: "dying" stands
    for "die") gets ``ts_headline``'s.
    """
    configs = {pk: (configs or {}).get(pk, search_configuration("")) for pk in bodies}
    heads = {term.lower()[:3] for term in TERM.findall(query)}
    # Every word that begins as a query word does, whatever its case.
    candidate = re.compile(
        r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(heads))) + r")\w*", re.IGNORECASE
    )
    found = {
        pk: [(m.start(), m.end(), m.group().lower()) for m in candidate.finditer(body)]
        for pk, body in bodies.items()
    }
    words = sorted({(word, configs[pk]) for pk, spans in found.items() for *_s, word in spans})
    lexemes_of = _query_lexemes_of(words, query) if words else {}
    headlines, unmatched = {}, {}
    for pk, body in bodies.items():
        matches = [
            (start, end, lexemes_of[word, configs[pk]])
            for start, end, word in found[pk]
            if (word, configs[pk]) in lexemes_of
        ]
        if matches:
            headlines[pk] = _headline(body, matches)
        else:
            unmatched[pk] = body
    if unmatched:
        with connection.cursor() as cursor:
            cursor.execute(
                HEADLINE_SQL,
                [
                    NOT_A_TAG,
                    query,
                    HEADLINE_OPTIONS,
                    list(unmatched),
                    list(unmatched.values()),
                    [configs[pk] for pk in unmatched],
                ],
            )
            headlines |= {
                pk: headline.replace(NOT_A_TAG, "<") for pk, headline in cursor.fetchall()
            }
    return headlines


def _query_lexemes_of(words, query):
    """
    ``{(word, configuration): the query's lexemes it stands for}``, for those of
    ``words`` (``(word, configuration)`` pairs) that stand for any, the word and
    the query both read with that configuration.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w.word, w.config, array_agg(t.lexeme) "
            "FROM unnest(%s::text[], %s::text[]) AS w(word, config), "
            "unnest(to_tsvector(w.config::regconfig, "
            "factcheck_search_text(w.config::regconfig, w.word))) AS t "
            "WHERE t.lexeme = ANY(tsvector_to_array(to_tsvector(w.config::regconfig, "
            "factcheck_search_text(w.config::regconfig, %s)))) "
            "GROUP BY w.word, w.config",
            [[word for word, _config in words], [config for _word, config in words], query],
        )
        return {(word, config): frozenset(lexemes) for word, config, lexemes in cursor.fetchall()}


#: Words of context a snippet shows before the first match it holds.
LEAD_WORDS = 4
_LEAD = re.compile(rf"(?<!\w)(?:\w+\W+){{0,{LEAD_WORDS}}}\Z")


@functools.cache
def _words(count):
    """A run of at most ``count`` words, from a word's start to a word's end."""
    return re.compile(rf"\w+(?:\W+\w+){{0,{count - 1}}}")


def _headline(body, matches):
    """
    The part of ``body`` around ``matches`` (``[(start, end, lexemes)]``, in
    order): the ``SNIPPET_WORDS`` words that show the most of the query's
    lexemes, or, when its words are farther apart, two runs half as long joined
    by " … ", as ``ts_headline`` with ``HEADLINE_OPTIONS`` does; "…" where the
    passage is cut.
    """
    wanted = frozenset().union(*(lexemes for *_span, lexemes in matches))
    start, end, shown = _best_window(body, matches, SNIPPET_WORDS, wanted)
    windows = [(start, end)]
    if shown != wanted:
        first = _best_window(body, matches, SNIPPET_WORDS // 2, wanted)
        rest = [match for match in matches if not first[0] <= match[0] < first[1]]
        second = _best_window(body, rest, SNIPPET_WORDS // 2, wanted - first[2])
        if second[2]:
            (start, end), (later_start, later_end) = sorted([first[:2], second[:2]])
            windows = (
                [(start, max(end, later_end))]
                if later_start <= end
                else [(start, end), (later_start, later_end)]
            )
    fragments = []
    for start, end in windows:
        pieces, position = [], start
        for match_start, match_end, _lexemes in matches:
            if start <= match_start and match_end <= end:
                pieces += [body[position:match_start], MATCH_START]
                pieces += [body[match_start:match_end], MATCH_END]
                position = match_end
        fragments.append("".join(pieces) + body[position:end])
    cut_before = "…" if windows[0][0] else ""
    cut_after = "…" if windows[-1][1] < len(body) else ""
    return cut_before + " … ".join(fragments) + cut_after


def _best_window(body, matches, size, wanted):
    """
    ``(start, end, lexemes shown)``: the run of at most ``size`` words, from up
    to ``LEAD_WORDS`` words before one of ``matches``, that shows the most of
    ``wanted``, then the most matches, then comes first.
    """
    best, best_score = (0, 0, frozenset()), None
    for match_start, _end, _lexemes in matches:
        lead = _LEAD.search(body, max(0, match_start - 40 * LEAD_WORDS), match_start)
        start = lead.start() if lead else match_start
        run = _words(size).match(body, start)
        end = run.end() if run else match_start
        # Up to the passage's ends when no word is left out before or after.
        start = start if WORD.search(body, 0, start) else 0
        end = end if WORD.search(body, end) else len(body)
        inside = [lexemes for other, _e, lexemes in matches if start <= other < end]
        shown = frozenset().union(*inside) & wanted
        if best_score is None or (len(shown), len(inside)) > best_score:
            best, best_score = (start, end, shown), (len(shown), len(inside))
    return best


def _hit(kind, object_id, title, url, location, body, snippet):
    """A ``Hit`` from an entry's row and its raw snippet (matches between our markers)."""
    return Hit(
        kind,
        object_id,
        title,
        _at_first_match(kind, url, body, snippet),
        location,
        _safe_snippet(snippet),
    )


def _at_first_match(kind, url, body, snippet):
    """
    A source hit's link, moved from the start of its passage (``?at=``) to the
    first word that the snippet marks, where the snippet shows it: ``?at=``
    then opens the part of the reader that holds that word, and
    ``#at-<start>-<end>``, its offsets in the text, is what the reader scrolls
    to and highlights (static/js/match.js). Claims' links, and a marked word
    not found again in the passage, stay as they were.
    """
    marked = FIRST_MARKED.search(snippet)
    if kind != "source" or marked is None:
        return url
    found = _occurrence_shown(body, snippet, marked)
    if found is None:
        return url
    link = urlsplit(url)
    passage_at = parse_qs(link.query).get("at", ["0"])[0]
    passage_start = int(passage_at) if passage_at.isdigit() else 0
    start, end = passage_start + found.start(), passage_start + found.end()
    return urlunsplit(link._replace(query=urlencode({"at": start}), fragment=f"at-{start}-{end}"))


#: Words either side of a snippet's match that tell its occurrence from the word's others.
CONTEXT_WORDS = 6


def _fragment_side(text, *, last):
    """The part of ``text`` beside a match up to the ellipsis that cuts it, and whether one does."""
    if "…" not in text:
        return text, False
    return (text.rsplit("…", 1)[-1] if last else text.split("…", 1)[0]), True


def _occurrence_shown(body, snippet, marked):
    """
    The match (``re.Match`` in ``body``) of the word ``marked`` in ``snippet``
    that the snippet shows: the first occurrence of the word whose neighbouring
    words are the snippet's around it (its fragment, up to the ellipses that
    cut it), else the word's first occurrence; None if it is not in ``body``.
    """

    def words(text):
        return [
            word.lower()
            for word in WORD.findall(text.replace(MATCH_START, "").replace(MATCH_END, ""))
        ]

    lead, cut_before = _fragment_side(snippet[: marked.start()], last=True)
    tail, cut_after = _fragment_side(snippet[marked.end() :], last=False)
    # A word at a cut may be part of one.
    before = words(lead)[1 if cut_before else 0 :][-CONTEXT_WORDS:]
    after = words(tail)[: -1 if cut_after else None][:CONTEXT_WORDS]
    occurrences = list(
        re.finditer(rf"(?<!\w){re.escape(marked.group(1))}(?!\w)", body, re.IGNORECASE)
    ) or list(  # a word found inside a run of characters (the trigram search)
        re.finditer(re.escape(marked.group(1)), body, re.IGNORECASE)
    )
    for occurrence in occurrences:
        preceding = words(body[: occurrence.start()][-40 * CONTEXT_WORDS :])
        following = words(body[occurrence.end() :][: 40 * CONTEXT_WORDS])
        if preceding[len(preceding) - len(before) :] == before and following[: len(after)] == after:
            return occurrence
    return occurrences[0] if occurrences else None


def _safe_snippet(snippet):
    escaped = escape(snippet)
    # Safe: the whole snippet is escaped first; only our own markers become <mark>.
    return mark_safe(escaped.replace(MATCH_START, "<mark>").replace(MATCH_END, "</mark>"))  # noqa: S308
