"""Splitting a text into paragraphs and marked segments, for reading views."""

from dataclasses import dataclass, field
from itertools import pairwise


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
