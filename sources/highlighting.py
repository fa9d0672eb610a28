"""Splitting a text into paragraphs and marked segments, for reading views."""

import hashlib
import html
from dataclasses import dataclass, field, replace
from itertools import pairwise

from django.core.cache import caches
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _


@dataclass
class Segment:
    text: str
    start: int
    #: Keys of the spans that cover this segment (empty: unmarked text).
    marks: tuple = ()
    #: Keys of the spans that begin where this segment begins.
    starts: tuple = ()


@dataclass
class Paragraph:
    start: int
    segments: list = field(default_factory=list)
    #: The page that begins with this paragraph, for paged (PDF) texts.
    page: int | None = None


def mark_spans(text, spans, page_offsets=()):
    """
    Split ``text`` into paragraphs (at newlines) of segments, each segment
    carrying the keys of the ``spans`` that cover it.

    ``spans`` is an iterable of ``(start, end, key)``. Spans may overlap or
    cross paragraph breaks; every boundary becomes a segment boundary, so a
    reader sees each span exactly where it is and overlaps stay visible. Each
    segment also lists the spans that begin with it, so that every span gets a
    place to link to even when others cover it entirely. With ``page_offsets``,
    the paragraph where each page begins carries that page's number.
    """
    spans = [(start, end, key) for start, end, key in spans if 0 <= start < end <= len(text)]
    boundaries = {0, len(text)}
    for start, end, _key in spans:
        boundaries.update((start, end))
    position = text.find("\n")
    while position != -1:
        boundaries.update((position, position + 1))
        position = text.find("\n", position + 1)
    cuts = sorted(boundaries)

    # One sweep over the boundaries, keeping the set of spans that cover the
    # current position (in their given order): linear in segments plus spans,
    # not their product, so a long text with hundreds of claims stays fast.
    opening, closing = {}, {}
    for index, (start, end, _key) in enumerate(spans):
        opening.setdefault(start, []).append(index)
        closing.setdefault(end, []).append(index)
    active = set()
    paragraphs = [Paragraph(start=0)]
    for left, right in pairwise(cuts):
        active.difference_update(closing.get(left, ()))
        begun = opening.get(left, ())
        active.update(begun)
        piece = text[left:right]
        if piece == "\n":
            paragraphs.append(Paragraph(start=right))
            continue
        marks = tuple(spans[index][2] for index in sorted(active))
        starts = tuple(spans[index][2] for index in begun)
        paragraphs[-1].segments.append(Segment(text=piece, start=left, marks=marks, starts=starts))
    page_starts = {offset: number for number, offset in enumerate(page_offsets, start=1)}
    kept = [paragraph for paragraph in paragraphs if paragraph.segments]
    for paragraph in kept:
        paragraph.page = page_starts.get(paragraph.start)
    return kept


#: How long a rendered text stays cached. Its key names everything it shows,
#: so an entry is never stale, only unused.
MARKED_TEXT_CACHE_SECONDS = 24 * 60 * 60
#: Part of every rendered text's cache key: raise it when the markup that
#: ``render_marked_text`` writes changes, so a release never serves the old markup.
MARKUP_VERSION = 1


def render_marked_text(text, spans, *, mark_class, page_offsets=()):
    """
    The HTML of ``text`` as a reading view shows it: a ``<p>`` per paragraph,
    every segment a ``<span>`` (or a ``<mark class="{mark_class}">`` where
    ``spans`` cover it) carrying ``data-start``, its offset in the text, which
    is how the browser turns a selection back into offsets (``quote.js``).

    ``spans`` are ``(start, end, reference)``: ``reference`` is safe HTML put
    where the span begins (a link to a claim), or ``""``. A segment under
    more than one span also gets ``{mark_class}--overlap``. With
    ``page_offsets``, each page's first paragraph is preceded by its number.
    """
    paragraphs = _rendered_paragraphs(text, spans, mark_class, page_offsets)
    return mark_safe("".join(html for _start, html in paragraphs))  # noqa: S308 - escaped


def _rendered_paragraphs(text, spans, mark_class, page_offsets):
    """
    ``(start, html)`` for each paragraph of ``render_marked_text``.

    Written in Python rather than as a template loop: a 1 MB text has tens of
    thousands of segments, and each template variable costs microseconds.
    """
    # Translators: the number of a PDF's page, shown where the page begins.
    page_label = html.escape(_("Page %(number)s"), quote=False)
    for paragraph in mark_spans(text, spans, page_offsets=page_offsets):
        parts = []
        if paragraph.page:
            label = page_label % {"number": paragraph.page}
            parts.append(f'<span class="page-break" aria-hidden="true">{label}</span>')
        parts.append("<p>")
        for segment in paragraph.segments:
            parts.extend(segment.starts)
            escaped = html.escape(segment.text)
            if not segment.marks:
                parts.append(f'<span data-start="{segment.start}">{escaped}</span>')
                continue
            css = mark_class if len(segment.marks) == 1 else f"{mark_class} {mark_class}--overlap"
            parts.append(f'<mark class="{css}" data-start="{segment.start}">{escaped}</mark>')
        parts.append("</p>\n")
        yield paragraph.start, "".join(parts)


@dataclass(frozen=True)
class TextPart:
    """One part of a long text as the reader shows it: whole paragraphs, ``start`` to ``end``."""

    number: int
    count: int
    start: int
    end: int
    html: str = ""
    #: Where the parts before and after it begin (None at either end).
    previous_start: int | None = None
    next_start: int | None = None

    @property
    def without_text(self):
        """The part's place in the text, for what shows where it is (its digest stays small)."""
        return replace(self, html="")


#: What ends each part but the last: the next part's first paragraph, set
#: apart, so that a passage running across the break can be selected whole.
_PART_OVERLAP = '<div class="part-overlap"><p class="part-overlap__note">{note}</p>{html}</div>\n'
PART_OVERLAP_NOTE = gettext_noop(
    "The start of part %(number)s, shown here so that a passage running on from this part "
    "can be quoted whole:"
)
#: ``next_part_opening`` in English, as a format string of ``number`` and ``html``.
NEXT_PART_OPENING = _PART_OVERLAP.replace(
    "{note}", PART_OVERLAP_NOTE.replace("%(number)s", "{number}")
)


def next_part_opening(number, paragraph_html):
    """The opening that ends a part: part ``number``'s first paragraph, with its note."""
    note = html.escape(_(PART_OVERLAP_NOTE) % {"number": number}, quote=False)
    return _PART_OVERLAP.format(note=note, html=paragraph_html)


def split_into_parts(text, paragraphs, part_chars):
    """
    Group ``paragraphs`` (``(start, html)`` of ``text``, in order) into parts of
    at least ``part_chars`` characters each (the last may be shorter), cut only
    between paragraphs: ``[(start, end, html)]``. The parts cover the text
    from ``start`` to ``end`` without gaps or overlaps; each part's HTML but
    the last's also ends with the next part's first paragraph
    (``NEXT_PART_OPENING``), so a selection can cross the break.
    """
    parts = []
    for start, paragraph_html in paragraphs:
        if parts and start - parts[-1][0] < part_chars:
            parts[-1][1].append(paragraph_html)
        else:
            parts.append((start, [paragraph_html]))
    if not parts:
        return [(0, len(text), "")]
    ends = [start for start, _html in parts[1:]] + [len(text)]
    openings = [
        next_part_opening(number, htmls[0])
        for number, (_start, htmls) in enumerate(parts[1:], start=2)
    ] + [""]
    return [
        (start, end, "".join(htmls) + opening)
        for (start, htmls), end, opening in zip(parts, ends, openings, strict=True)
    ]


#: How much of a long text the reader shows at once. A 1 MB source on one page
#: is tens of thousands of elements for the browser to lay out and a megabyte
#: for the server to send on every visit.
READER_PART_CHARS = 100_000


def part_starts(text, page_offsets=(), part_chars=READER_PART_CHARS):
    """Where the reader's parts of ``text`` after the first begin (``split_into_parts``)."""
    paragraphs = [(paragraph.start, "") for paragraph in mark_spans(text, [], page_offsets)]
    return [start for start, _end, _html in split_into_parts(text, paragraphs, part_chars)[1:]]


def _part_holding(bounds, at):
    """The index of the part (of ``bounds``, ``[(start, end)]``) holding ``at``; else the last."""
    return next((index for index, (_start, end) in enumerate(bounds) if at < end), len(bounds) - 1)


def offset_in_text(value):
    """An offset into a text as a query or form gives it (``?at=``), 0 when it is not one."""
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


def _text_of(version):
    """
    ``version``'s text, read without keeping it on the object when it was left
    in the database: a page holding many versions does not hold their texts.
    """
    if "extracted_text" in version.get_deferred_fields():
        return (
            type(version)
            ._base_manager.filter(pk=version.pk)
            .values_list("extracted_text", flat=True)
            .get()
        )
    return version.extracted_text


def cached_marked_part(version, spans, *, mark_class, at=0, part_chars=READER_PART_CHARS, key=None):
    """
    The part of a ready version's marked text (``render_marked_text``) that
    holds the offset ``at``, as a ``TextPart``: whole paragraphs of about
    ``part_chars`` characters, with absolute ``data-start`` offsets, so a
    selection is quoted as it would be on the whole text. Cached under a key
    that names the version and its file (its text is frozen once ready) and the spans, so a
    new, moved or reworded claim or quotation is a new key and nothing needs
    invalidating; the text is read only when the rendering is not cached
    (``version`` may come from ``SourceVersion.objects.without_text()``).
    ``spans`` may be a function returning them, with ``key`` the data they are
    built from: then they are built only then too. The part bounds are kept in
    one small entry and each part in its own, so a visit reads one part.
    """
    fingerprint = hashlib.sha256(
        repr((mark_class, part_chars, key if key is not None else spans)).encode()
    ).hexdigest()
    # The id alone does not name the text: a restored backup hands out ids again.
    # The language too: the rendering holds words (the page numbers, the part notes).
    prefix = (
        f"marked-parts:{MARKUP_VERSION}:{get_language()}:{version.pk}:{version.sha256}:"
        f"{version.extraction_status}:{fingerprint}"
    )
    cache = caches["rendered"]
    bounds = cache.get(prefix)
    index = _part_holding(bounds, at) if bounds else None
    html = cache.get(f"{prefix}:{index}") if bounds else None
    if html is None:  # never rendered, or a part evicted on its own: render them all
        text = _text_of(version)
        paragraphs = _rendered_paragraphs(
            text, spans() if callable(spans) else spans, mark_class, version.page_offsets or ()
        )
        rendered = split_into_parts(text, paragraphs, part_chars)
        bounds = [(start, end) for start, end, _html in rendered]
        stored = {f"{prefix}:{number}": part for number, (_s, _e, part) in enumerate(rendered)}
        stored[prefix] = bounds
        cache.set_many(stored, MARKED_TEXT_CACHE_SECONDS)
        index = _part_holding(bounds, at)
        html = rendered[index][2]
    return TextPart(
        number=index + 1,
        count=len(bounds),
        start=bounds[index][0],
        end=bounds[index][1],
        html=mark_safe(html),  # noqa: S308 - rendered (and escaped) by render_marked_text
        previous_start=bounds[index - 1][0] if index else None,
        next_start=bounds[index + 1][0] if index + 1 < len(bounds) else None,
    )
