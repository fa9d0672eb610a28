"""
Full-text search across sources' text and claims, behind one function.

The apps that own content write passages with ``replace_entries``; ``search``
finds them with the database's own full-text engine: SQLite's FTS5 (an
external-content table kept in step by triggers) or PostgreSQL's text search
(a GIN index on the stored ``document`` column, ``to_tsvector('english',
title || ' ' || body)``, migration 0006). Snippets
come back as safe HTML: the passage escaped, the matches in ``<mark>``; on
PostgreSQL they are cut in Python around the words the server matched
(``_headlines``).
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

from factcheck.models import SearchEntry

# Control characters that never occur in stored text (extraction strips them),
# so they can mark matches in a snippet before it is escaped.
MATCH_START, MATCH_END = "\x02", "\x03"
SNIPPET_WORDS = 28
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
    "SELECT t.id, ts_headline('english', replace(t.body, '<', %s), "
    "plainto_tsquery('english', %s), %s) "
    "FROM unnest(%s::bigint[], %s::text[]) AS t(id, body)"
)
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
def replace_entries(*, kind, object_id, passages):
    """Make ``passages`` the searchable text of the object (``kind``, ``object_id``)."""
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


def _count(terms, claim_ids):
    only, only_params = _claims_filter(claim_ids)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT count(*) FROM factcheck_searchentry e "  # noqa: S608 (placeholders only)
                "WHERE e.document @@ plainto_tsquery('english', %s)" + only,
                [" ".join(terms), *only_params],
            )
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
        return _fetch_postgresql(" ".join(terms), offset, limit, claim_ids)
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


def _fetch_postgresql(query, offset, limit, claim_ids):
    only, only_params = _claims_filter(claim_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.id, e.body, e.kind, e.object_id, e.title, e.url, e.location, "
            "count(*) OVER () "
            "FROM factcheck_searchentry e, plainto_tsquery('english', %s) q "
            "WHERE e.document @@ q" + only + " "
            "ORDER BY ts_rank(e.document, q) DESC, e.id "
            "LIMIT %s OFFSET %s",
            [query, *only_params, limit, offset],
        )
        rows = cursor.fetchall()
    headlines = _headlines(query, {pk: body for pk, body, *_ in rows})
    hits = [
        _hit(kind, object_id, title, url, location, body, headlines[pk])
        for pk, body, kind, object_id, title, url, location, _total in rows
    ]
    return hits, rows[0][-1] if rows else None


def _headlines(query, bodies):
    """
    ``{entry id: headline}`` for the entries in ``bodies`` (``{id: body}``),
    the matches between ``MATCH_START`` and ``MATCH_END``, made from the bodies
    the search read (even if an entry was replaced since).

    PostgreSQL's ``ts_headline`` parses each whole passage again, which took
    most of a new search's time (20 passages, 3 ms of the server's CPU). Here
    PostgreSQL only says which of the passages' words stand for the query's
    lexemes (one query over the few words that begin as a query word does),
    and the snippet is cut in Python (``_headline``). A passage in which no such
    word turns up (its match is spelled unlike the query word: "dying" stands
    for "die") gets ``ts_headline``'s.
    """
    heads = {term.lower()[:3] for term in TERM.findall(query)}
    # Every word that begins as a query word does, whatever its case.
    candidate = re.compile(
        r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(heads))) + r")\w*", re.IGNORECASE
    )
    found = {
        pk: [(m.start(), m.end(), m.group().lower()) for m in candidate.finditer(body)]
        for pk, body in bodies.items()
    }
    words = sorted({word for spans in found.values() for *_span, word in spans})
    lexemes_of = _query_lexemes_of(words, query) if words else {}
    headlines, unmatched = {}, {}
    for pk, body in bodies.items():
        matches = [
            (start, end, lexemes_of[word]) for start, end, word in found[pk] if word in lexemes_of
        ]
        if matches:
            headlines[pk] = _headline(body, matches)
        else:
            unmatched[pk] = body
    if unmatched:
        with connection.cursor() as cursor:
            cursor.execute(
                HEADLINE_SQL,
                [NOT_A_TAG, query, HEADLINE_OPTIONS, list(unmatched), list(unmatched.values())],
            )
            headlines |= {
                pk: headline.replace(NOT_A_TAG, "<") for pk, headline in cursor.fetchall()
            }
    return headlines


def _query_lexemes_of(words, query):
    """``{word: the query's lexemes it stands for}``, for those of ``words`` that stand for any."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w, array_agg(t.lexeme) "
            "FROM unnest(%s::text[]) AS w, unnest(to_tsvector('english', w)) AS t "
            "WHERE t.lexeme = ANY(tsvector_to_array(to_tsvector('english', %s))) GROUP BY w",
            [words, query],
        )
        return {word: frozenset(lexemes) for word, lexemes in cursor.fetchall()}


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
