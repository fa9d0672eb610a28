"""
Text anchoring: finding quotations in a source's text and carrying them to its next version.

A quotation is stored as a span of one version's extracted text: ``start`` and ``end``
(offsets in code points), ``exact`` (``text[start:end]``) and up to ``CONTEXT_LENGTH``
characters of ``prefix`` and ``suffix`` around it. When a new version arrives, each
quotation is re-anchored by :func:`reanchor`, cheapest evidence first:

1. **Same place.** The exact text is still at the same offsets with the same context: a
   string comparison, so the common case costs microseconds.
2. **Follow the neighbourhood.** The old text just before and just after the quotation is
   looked up in the new text as short literal chunks ("anchors"), nearest to the old
   position first (``str.find`` in small windows, so a few microseconds), and walking
   outward chunk by chunk when an edit spoiled the nearest one. Between the two anchors
   the old region (context + quotation + context) is aligned with the new region by a
   Levenshtein alignment (``rapidfuzz``, bit-parallel C++), and the quotation's
   boundaries are read off that alignment. Its wording there is either the exact old
   wording (``MOVED``/``UNCHANGED``), the same words with the lines broken elsewhere
   (``MOVED``), or a rewording (``CHANGED``), which is accepted only if it is within
   ``MAX_EDIT_RATIO`` edits of the old wording or, when anchors on both sides fix its
   place, if more than ``MIN_KEPT_SHARE`` of its characters still stand there (a clause
   added, a figure rewritten); if some of its context still reads the same; and if
   that wording was not already in the old text elsewhere (for then it is a lookalike
   that the anchors strayed to, not our quotation edited). If the quotation was
   deleted, the alignment maps it to nothing and it is orphaned: the gap between its
   neighbours is where it was.
3. **The same words anywhere.** When the neighbourhood gives no firm answer (an anchor on
   one side only, or too little of the stored context around the exact words), every
   exact occurrence is found with ``str.find`` over the whole text. Repeats are told
   apart by how much of the old prefix and suffix surrounds each one, then by closeness
   to where the old position went. An occurrence is only taken if no *other* old
   occurrence of the same words explains it better: when a quoted sentence that also
   appears elsewhere is deleted, the survivor belongs to the other place. Failing that,
   the same words with other white space between them (lines wrapped anew), if they
   are in the same rank among as many occurrences as before and their context agrees.
4. **The neighbourhood anywhere.** The anchors are searched over the whole text, for a
   paragraph that moved far away and was edited too.
5. **Anything close.** Only if no anchor is found at all, quotation and context are
   searched approximately over the whole text, and taken only if the wording and the
   context on both sides agree.

Everything else is **orphaned**: a quotation is never pinned to the nearest lookalike.

The same approximate search serves :func:`closest_passages`, the "quote finder" that
shows where a passage pasted from elsewhere is closest to the source, with a diff.

Offsets are Python code-point indexes throughout; browsers count UTF-16 code units, and
:func:`utf16_to_index` / :func:`index_to_utf16` convert at the boundary.

This module is pure Python on top of ``rapidfuzz`` and imports nothing from Django.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

UNCHANGED = "unchanged"
MOVED = "moved"
CHANGED = "changed"
ORPHANED = "orphaned"

#: How many characters of context a quotation keeps on each side.
CONTEXT_LENGTH = 32

#: Largest edit distance, as a share of the quotation's length, that still counts as the
#: same quotation reworded. Tuned with ``bench/anchoring.py``: word changes and typo fixes
#: stay well under it, while a partly deleted passage or a paraphrase goes over it.
MAX_EDIT_RATIO = 0.3

#: Share of the quotation's characters that must still stand, in the same order, at the
#: place the text on both sides of it points to, for a rewording beyond ``MAX_EDIT_RATIO``
#: to count as the quotation edited in place. Another sentence put in its place shares
#: letters only by chance, and a passage with its second half deleted keeps half and a
#: letter or two of what follows: both stay under it and are orphaned. Checked with
#: ``bench/reanchoring_history.py`` (real edits) and ``bench/anchoring.py``.
MIN_KEPT_SHARE = 0.55

#: Context characters (prefix and suffix together) that make a repeat of the exact text
#: trustworthy on its own. Chance agreement of a word or two ("the ", " of ") stays under.
CONTEXT_SUPPORT = 12

# Anchor chunks: long enough to be rare in a document, short enough that a scattering of
# edits (2% of characters) still leaves most of them intact.
_ANCHOR_LENGTH = 24
_ANCHOR_TRIES = 6

# Beyond this many exact repeats the per-occurrence context comparison is replaced by a
# literal search for the full context, so that a very common phrase stays cheap.
_MANY_OCCURRENCES = 64

# How far from its old place the surrounding text is first looked for: scanning 32k
# characters either way costs some tens of microseconds, and covers the drift that
# ordinary edits cause; only beyond it is the whole text searched.
_LOCAL_RADIUS = 32_768


@dataclass(frozen=True)
class Reanchored:
    """Where a quotation landed in the new text; ``start``/``end``/``exact`` are None when
    ``status`` is ``ORPHANED``, and otherwise ``new_text[start:end] == exact``."""

    status: str
    start: int | None = None
    end: int | None = None
    exact: str | None = None


@dataclass(frozen=True)
class Passage:
    """A span of the source close to a pasted passage.

    ``diff`` is a list of ``(op, segment)``: ``"equal"`` segments are in both,
    ``"delete"`` segments are in the pasted passage only and ``"insert"`` segments in
    the source only. So the equal and delete segments, in order, spell the pasted
    passage, and the equal and insert segments spell ``exact``.
    """

    start: int
    end: int
    exact: str
    distance: int
    diff: list[tuple[str, str]] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Exact search
# --------------------------------------------------------------------------------------


def find_occurrences(text: str, exact: str) -> list[int]:
    """Every start offset of ``exact`` in ``text``, overlapping occurrences included."""
    if not exact:
        return []
    found = []
    find = text.find
    position = find(exact)
    while position != -1:
        found.append(position)
        position = find(exact, position + 1)
    return found


def find_words(
    text: str,
    words: str,
    limit: int | None = None,
    *,
    ignore_case: bool = False,
    from_word_start: bool = False,
) -> list[tuple[int, int]]:
    """
    Every ``(start, end)`` of ``words`` in ``text``, white space between them
    matching any white space: what a person types matches a line that the text
    breaks where a PDF's page did ("four frontier" finds "four\nfrontier").
    Non-overlapping, in order, the first ``limit`` of them; the text's own
    characters lie between the offsets. With ``ignore_case``, capitals aside
    (each character lowered on its own, ``_lower_each``); with
    ``from_word_start``, words typed from a letter or digit match only from the
    start of a word of the text ("a" is not the "a" in "data").
    """
    tokens = words.split()
    if not tokens:
        return []
    # Plain search in the text with its white space collapsed: linear, where a
    # pattern of the words would backtrack at each start in repetitive text.
    collapsed, run_at, shift_before = _collapsed(text)
    wanted = " ".join(tokens)
    if ignore_case:
        collapsed, wanted = _lowered(collapsed), _lower_each(wanted)
    mid_word = from_word_start and wanted[0].isalnum()
    found = []
    position = collapsed.find(wanted)
    while position != -1 and (limit is None or len(found) < limit):
        if mid_word and position and collapsed[position - 1].isalnum():
            position = collapsed.find(wanted, position + 1)
            continue
        end = position + len(wanted)
        found.append(
            (
                position + shift_before[bisect_left(run_at, position)],
                end + shift_before[bisect_left(run_at, end)],
            )
        )
        position = collapsed.find(wanted, end)
    return found


@lru_cache(maxsize=2)
def _lowered(collapsed: str) -> str:
    """``_lower_each(collapsed)``, kept as ``_collapsed`` is, for the last two texts."""
    return _lower_each(collapsed)


def _lower_each(text: str) -> str:
    """
    ``text`` with each character lowered on its own where that gives one
    character, so that its offsets are the text's ("İ", which lowers to two,
    stays as it is).
    """
    table = {}
    for char in set(text):
        lowered = char.lower()
        if lowered != char and len(lowered) == 1:
            table[ord(char)] = lowered
    return text.translate(table)


_WHITE_SPACE = re.compile(r"\s+")
_LONG_WHITE_SPACE = re.compile(r"\s{2,}")


@lru_cache(maxsize=2)
def _collapsed(text: str) -> tuple[str, list[int], list[int]]:
    """
    ``text`` with each run of white space as one space, and how to go back: the
    collapsed offsets of the runs, and for each count of runs before an offset,
    the characters they dropped (``shift_before[bisect_left(run_at, offset)]``).
    Only runs of two or more characters are listed: a single white space character
    becomes a single space and shifts nothing. Kept for the last two texts: a
    finder is used on one source several times.
    """
    run_at, shift_before = [], [0]
    for run in _LONG_WHITE_SPACE.finditer(text):
        run_at.append(run.start() - shift_before[-1])
        shift_before.append(shift_before[-1] + run.end() - run.start() - 1)
    return _WHITE_SPACE.sub(" ", text), run_at, shift_before


def _nearest(positions: list[int], hint: int | None) -> int:
    if hint is None:
        return positions[0]
    return min(positions, key=lambda position: abs(position - hint))


def _common_prefix_length(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    i = 0
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def _common_suffix_length(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    i = 0
    while i < limit and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


def _context_score(text: str, start: int, end: int, prefix: str, suffix: str) -> int:
    """Characters of ``prefix``/``suffix`` that the text around ``[start, end)`` repeats,
    counted outward from the span (agreement next to the quotation matters most)."""
    before = text[max(0, start - len(prefix)) : start]
    after = text[end : end + len(suffix)]
    return _common_suffix_length(before, prefix) + _common_prefix_length(after, suffix)


# --------------------------------------------------------------------------------------
# Re-anchoring
# --------------------------------------------------------------------------------------


def reanchor(
    old_text: str,
    new_text: str,
    start: int,
    end: int,
    exact: str,
    prefix: str,
    suffix: str,
) -> Reanchored:
    """
    Carry the quotation ``old_text[start:end]`` (== ``exact``, with its ``prefix`` and
    ``suffix``) over to ``new_text``.

    Returns a :class:`Reanchored` whose status is ``UNCHANGED`` (same offsets),
    ``MOVED`` (same words, at other offsets or with other white space between
    them), ``CHANGED`` (reworded within ``MAX_EDIT_RATIO``, at the place its
    context points to) or ``ORPHANED``. See the
    module docstring for the method. Raises ValueError if ``exact`` is empty or is not
    ``old_text[start:end]`` (offsets within the text).
    """
    if not exact:
        raise ValueError("A quotation cannot be empty.")
    if not 0 <= start < end <= len(old_text) or old_text[start:end] != exact:
        raise ValueError("exact must be old_text[start:end].")
    size = len(exact)
    if new_text[start:end] == exact and _context_score(new_text, start, end, prefix, suffix) == len(
        prefix
    ) + len(suffix):
        return Reanchored(UNCHANGED, start, end, exact)

    quotation = (old_text, new_text, start, end, exact, prefix, suffix)
    # Near the old position first: that settles nearly every quotation with a few short
    # scans, instead of scanning the whole text.
    span, anchored, firm = _from_context(*quotation, radius=_LOCAL_RADIUS)
    if span is not None and firm:
        return _result(*span, new_text, start, exact)
    position = _reanchor_exact(*quotation)
    if position is not None:
        return _result(position, position + size, new_text, start, exact)
    # The same words with the lines broken elsewhere, before settling for a rewording.
    rewrapped = _reanchor_words(*quotation)
    if rewrapped is not None:
        return _result(*rewrapped, new_text, start, exact)
    if span is not None:
        return _result(*span, new_text, start, exact)
    # The text right next to the quotation may have gone far away with it (a moved
    # paragraph), while text farther out stayed: search each anchor over the whole text.
    span, anchored, _firm = _from_context(*quotation, radius=None)
    if span is not None:
        return _result(*span, new_text, start, exact)
    if not anchored:
        span = _search_wide(*quotation)
        if span is not None:
            return _result(*span, new_text, start, exact)
    # The neighbourhood is still there but the quotation is not in it: deleted or
    # rewritten beyond recognition. A lookalike elsewhere must not stand in for it.
    return Reanchored(ORPHANED)


def _result(new_start, new_end, new_text, old_start, exact):
    found = new_text[new_start:new_end]
    if found != exact and found.split() == exact.split():
        # The same words with other white space between them (lines wrapped anew,
        # as a re-exported PDF has them) are the quotation moved, not reworded:
        # nobody needs to confirm them. The span keeps to the words.
        new_start += len(found) - len(found.lstrip())
        new_end -= len(found) - len(found.rstrip())
        return Reanchored(MOVED, new_start, new_end, new_text[new_start:new_end])
    if found != exact:
        return Reanchored(CHANGED, new_start, new_end, found)
    return Reanchored(UNCHANGED if new_start == old_start else MOVED, new_start, new_end, found)


def _reanchor_exact(old_text, new_text, start, end, exact, prefix, suffix):
    """The new start of the exact wording anywhere in the text, if one occurrence can be
    trusted to be ours."""
    size = len(exact)
    occurrences = find_occurrences(new_text, exact)
    if not occurrences:
        return None
    full = len(prefix) + len(suffix)
    if len(occurrences) > _MANY_OCCURRENCES:
        full_hits = find_occurrences(new_text, prefix + exact + suffix)
        if full_hits:
            hint = _estimate_new_start(old_text, new_text, start, end)
            return _nearest(full_hits, hint) + len(prefix)
    scores = [_context_score(new_text, p, p + size, prefix, suffix) for p in occurrences]
    top = max(scores)
    if top == full:
        # Nothing can claim it more than we do; repeats with the same whole context are
        # told apart by where the surrounding text went.
        best = [p for p, s in zip(occurrences, scores, strict=True) if s == top]
        if len(best) == 1:
            return best[0]
        return _nearest(best, _estimate_new_start(old_text, new_text, start, end))

    # Partial context: an occurrence is ours only if no other old occurrence of the same
    # words has surroundings that fit it better, or else a deleted quotation would be
    # pinned to a sentence that merely repeats it.
    old_occurrences = [p for p in find_occurrences(old_text, exact) if p != start]
    if len(old_occurrences) * len(occurrences) > 20_000:
        if top < CONTEXT_SUPPORT:
            return None
        best = [p for p, s in zip(occurrences, scores, strict=True) if s == top]
        return _nearest(best, _estimate_new_start(old_text, new_text, start, end))
    others = [
        (
            old_text[max(0, p - CONTEXT_LENGTH) : p],
            old_text[p + size : p + size + CONTEXT_LENGTH],
        )
        for p in old_occurrences
    ]
    nothing_lost = len(occurrences) >= len(old_occurrences) + 1
    ours = []
    for position, score in zip(occurrences, scores, strict=True):
        rival = max(
            (_context_score(new_text, position, position + size, b, a) for b, a in others),
            default=-1,
        )
        if score > rival or (score == rival and (score >= CONTEXT_SUPPORT or nothing_lost)):
            ours.append((score, position))
    if not ours:
        return None
    top = max(score for score, _ in ours)
    best = [position for score, position in ours if score == top]
    if len(best) == 1:
        return best[0]
    return _nearest(best, _estimate_new_start(old_text, new_text, start, end))


def _words_near(new_text: str, exact: str, s: int, e: int, slack: int):
    """The quotation's words, with other white space between them, overlapping
    ``new_text[s:e]`` (widened by ``slack``); the one overlapping most."""
    if len(exact.split()) < 2:
        return None  # one word has no line breaks to move
    low, high = max(0, s - slack), min(len(new_text), e + slack)
    hits = [(a, b) for a, b in _rewrapped(new_text, exact.split(), low, high) if a < e and s < b]
    if not hits:
        return None
    return max(hits, key=lambda hit: min(e, hit[1]) - max(s, hit[0]))


def _rewrapped(
    text: str, tokens: list[str], low: int, high: int, limit: int | None = None
) -> list[tuple[int, int]]:
    """Every ``(start, end)`` in ``text[low:high]`` of ``tokens`` with white space (any,
    at least one character) between them, in order; beyond ``limit`` of them, stops
    (with ``limit + 1``).

    The longest token is looked up with ``str.find`` and the others are checked around
    each hit: cheaper than collapsing the white space of the whole text (or of a window)
    with a regular expression, and the longest token is the rarest one."""
    key = max(range(len(tokens)), key=lambda i: len(tokens[i]))
    hits = []
    position = text.find(tokens[key], low, high)
    while position != -1 and (limit is None or len(hits) <= limit):
        span = _tokens_around(text, tokens, key, position, low, high)
        if span is not None:
            hits.append(span)
        position = text.find(tokens[key], position + 1, high)
    return hits


def _tokens_around(text, tokens, key, position, low, high):
    """The span of ``tokens`` if ``tokens[key]`` at ``position`` is part of them."""
    end = position + len(tokens[key])
    for token in tokens[key + 1 :]:
        gap = end
        while gap < high and text[gap].isspace():
            gap += 1
        if gap == end or gap + len(token) > high or not text.startswith(token, gap):
            return None
        end = gap + len(token)
    start = position
    for token in reversed(tokens[:key]):
        gap = start
        while gap > low and text[gap - 1].isspace():
            gap -= 1
        if gap == start or gap - len(token) < low or not text.startswith(token, gap - len(token)):
            return None
        start = gap - len(token)
    return start, end


def _squashed(text: str) -> str:
    return _WHITE_SPACE.sub(" ", text)


def _reanchor_words(old_text, new_text, start, end, exact, prefix, suffix):
    """``(start, end)`` of the quotation's words with other white space between them (lines
    wrapped anew), when one occurrence can be told to be ours: the one in the same rank
    among as many occurrences as the old text had, if the stored context (white space
    aside) agrees with it."""
    if len(exact.split()) < 2 or exact != exact.strip():
        return None
    tokens = exact.split()
    hits = _rewrapped(new_text, tokens, 0, len(new_text), _MANY_OCCURRENCES)
    if not hits or len(hits) > _MANY_OCCURRENCES:
        return None
    old_hits = _rewrapped(old_text, tokens, 0, len(old_text), _MANY_OCCURRENCES)
    rank = next((i for i, (a, _b) in enumerate(old_hits) if a == start), None)
    if rank is None or len(hits) != len(old_hits):
        return None
    s, e = hits[rank]
    if new_text[s:e] == exact:
        return None  # the exact words, which the exact search did not trust
    before, after = _squashed(prefix), _squashed(suffix)
    support = _common_suffix_length(
        _squashed(new_text[max(0, s - 2 * len(prefix)) : s]), before
    ) + _common_prefix_length(_squashed(new_text[e : e + 2 * len(suffix)]), after)
    if len(hits) > 1 and support < min(CONTEXT_SUPPORT, len(before) + len(after)):
        return None
    return s, e


def _budget(size: int) -> int:
    return int(size * MAX_EDIT_RATIO)


def _find_near(text: str, needle: str, center: int, radius: int | None) -> int | None:
    """The occurrence of ``needle`` nearest to ``center`` and at most ``radius`` from it
    (None: anywhere in the text)."""
    if radius is None:
        low, high = 0, len(text)
    else:
        low, high = max(0, center - radius), min(len(text), center + radius + len(needle))
    hits = []
    position = text.find(needle, low, high)
    while position != -1:
        hits.append(position)
        position = text.find(needle, position + 1, high)
    if not hits:
        return None
    return min(hits, key=lambda p: abs(p - center))


def _reaches(radius: int | None):
    """Growing search radii up to ``radius`` (None: up to the whole text). Every anchor
    chunk is tried at one radius before any is tried farther out: a chunk spoiled by an
    edit then costs a short scan, not a scan of the whole range."""
    reach = 512
    while radius is None or reach < radius:
        yield reach
        reach *= 8
        if radius is None and reach > 4 * _LOCAL_RADIUS:
            break
    yield radius


def _worth_anchoring(chunk: str) -> bool:
    # Runs of blanks, dots or dashes occur everywhere and would anchor to the wrong place.
    return len(set(chunk)) > 4


def _left_anchor(old_text, new_text, start, radius, shift=0, skip=0):
    """``(old, new)`` positions of a literal chunk found left of the quotation, the one
    closest to it first; failing that, the start of both texts if it is near enough."""
    highs = []
    edge = None
    for i in range(_ANCHOR_TRIES):
        high = start - skip - i * _ANCHOR_LENGTH
        if high <= _ANCHOR_LENGTH:
            if high <= 0 or new_text.startswith(old_text[:high]):
                edge = (0, 0)
            break
        highs.append(high)
    return _search_chunks(old_text, new_text, highs, -_ANCHOR_LENGTH, shift, radius) or edge


def _right_anchor(old_text, new_text, end, radius, shift=0, skip=0):
    """``(old, new)`` positions just after a literal chunk found right of the quotation;
    failing that, the end of both texts if it is near enough."""
    old_length, new_length = len(old_text), len(new_text)
    lows = []
    edge = None
    for i in range(_ANCHOR_TRIES):
        low = end + skip + i * _ANCHOR_LENGTH
        if low >= old_length - _ANCHOR_LENGTH:
            if low >= old_length or new_text.endswith(old_text[low:]):
                edge = (old_length, new_length)
            break
        lows.append(low)
    found = _search_chunks(old_text, new_text, lows, _ANCHOR_LENGTH, shift, radius)
    if found is None:
        return edge
    return found[0] + _ANCHOR_LENGTH, found[1] + _ANCHOR_LENGTH


def _right_partner(old_text, new_text, end, left):
    """``(old, new)`` positions just after a chunk right of the quotation found after the
    ``left`` anchor, no farther from it than twice the old distance (plus a paragraph):
    the first such chunk, the nearest place first."""
    for i in range(_ANCHOR_TRIES):
        low = end + i * _ANCHOR_LENGTH
        chunk = old_text[low : low + _ANCHOR_LENGTH]
        if len(chunk) < _ANCHOR_LENGTH:
            break
        if _worth_anchoring(chunk):
            reach = left[1] + 2 * (low + _ANCHOR_LENGTH - left[0]) + 256
            found = new_text.find(chunk, left[1], reach)
            if found != -1:
                return low + _ANCHOR_LENGTH, found + _ANCHOR_LENGTH
    return None


def _left_partner(old_text, new_text, start, right):
    """``(old, new)`` positions of a chunk left of the quotation found before the ``right``
    anchor, as :func:`_right_partner` does on the other side."""
    for i in range(_ANCHOR_TRIES):
        high = start - i * _ANCHOR_LENGTH
        if high < _ANCHOR_LENGTH:
            break
        chunk = old_text[high - _ANCHOR_LENGTH : high]
        if _worth_anchoring(chunk):
            reach = max(0, right[1] - 2 * (right[0] - high + _ANCHOR_LENGTH) - 256)
            found = new_text.rfind(chunk, reach, right[1])
            if found != -1:
                return high - _ANCHOR_LENGTH, found
    return None


def _search_chunks(old_text, new_text, bounds, length, shift, radius):
    """``(old, new)`` start positions of the first chunk found, each chunk being
    ``old_text`` from a bound ``length`` characters to the right (or, negative, left)."""
    chunks = {}
    for reach in _reaches(radius):
        for bound in bounds:
            low = min(bound, bound + length)
            if low not in chunks:
                chunk = old_text[low : low + abs(length)]
                chunks[low] = chunk if _worth_anchoring(chunk) else None
            if chunks[low] is not None:
                found = _find_near(new_text, chunks[low], low + shift, reach)
                if found is not None:
                    return low, found
    return None


def _estimate_new_start(old_text, new_text, start, end):
    """Where ``start`` most likely went, judged from text beyond the stored context (the
    context itself is what the candidates share, so it cannot tell them apart)."""
    left = _left_anchor(old_text, new_text, start, None, skip=CONTEXT_LENGTH)
    if left is not None:
        return start + left[1] - left[0]
    right = _right_anchor(old_text, new_text, end, None, skip=CONTEXT_LENGTH)
    if right is not None:
        return start + right[1] - right[0]
    return start


def _from_context(old_text, new_text, start, end, exact, prefix, suffix, radius):
    """Follow the text around the quotation into the new text (anchors no farther than
    ``radius`` from where they were, None: anywhere) and read the quotation off an
    alignment of the old neighbourhood with the new one.

    Returns ``(span, anchored, firm)``: the accepted ``(start, end)`` or None; whether any
    anchor was found at all; and whether the span is firm enough to skip looking for the
    exact words elsewhere, which is when anchors on both sides enclose it and, if it is the
    exact wording, enough of the stored context surrounds it. (A one-sided anchor can
    point at the wrong one of two repeats, and then the context must decide.)
    """
    size = len(exact)
    budget = _budget(size)
    left = _left_anchor(old_text, new_text, start, radius)
    shift = 0 if left is None else left[1] - left[0]
    right = _right_anchor(old_text, new_text, end, radius, shift=shift)
    if left is None and right is None:
        return None, False, False

    attempts = []
    if left is not None and right is not None:
        old_span = right[0] - left[0]
        new_span = right[1] - left[1]
        # Anchors that disagree wildly (one of them found at a repeat elsewhere) would make
        # a huge alignment for nothing; then each side is tried on its own.
        if 0 <= new_span <= 2 * old_span + 256:
            attempts.append((left[0], right[0], left[1], right[1]))
        else:
            # Anchors that disagree: one of them is a repeat elsewhere, or the text around
            # the quotation was reordered. Look for each side's partner where the other
            # side says it should be, and align both enclosures that way found.
            partner = _right_partner(old_text, new_text, end, left)
            if partner is not None:
                attempts.append((left[0], partner[0], left[1], partner[1]))
            partner = _left_partner(old_text, new_text, start, right)
            if partner is not None:
                attempts.append((partner[0], right[0], partner[1], right[1]))
    enclosed = bool(attempts)
    if not attempts:
        margin = budget + CONTEXT_LENGTH
        if left is not None:
            old_high = min(len(old_text), end + CONTEXT_LENGTH)
            new_high = min(len(new_text), left[1] + (old_high - left[0]) + margin)
            attempts.append((left[0], old_high, left[1], new_high))
        if right is not None:
            old_low = max(0, start - CONTEXT_LENGTH)
            new_low = max(0, right[1] - (right[0] - old_low) - margin)
            attempts.append((old_low, right[0], new_low, right[1]))

    quotation = (old_text, new_text, start, end, exact, prefix, suffix)
    best = None
    for old_low, old_high, new_low, new_high in attempts:
        span = _align_span(
            old_text[old_low:old_high],
            new_text[new_low:new_high],
            start - old_low,
            end - old_low,
            old_text,
            start,
            end,
        )
        if span is None:
            continue
        s, e = span[0] + new_low, span[1] + new_low
        if new_text[s:e] != exact:
            # The words may be intact with an insertion at an edge read as part of them.
            nearby = _find_near(new_text, exact, s, budget + 1 + max(0, e - s - size))
            if nearby is not None:
                s, e = nearby, nearby + size
            else:
                # Or intact with the lines wrapped anew, which the character alignment
                # may have read as a change at an edge ("else)" after a new line break).
                rewrapped = _words_near(new_text, exact, s, e, max(budget + 1, size))
                if rewrapped is not None:
                    return rewrapped, True, enclosed
        if new_text[s:e] == exact:
            supported = _context_score(new_text, s, e, prefix, suffix)
            firm = enclosed and supported >= min(CONTEXT_SUPPORT, len(prefix) + len(suffix))
            return (s, e), True, firm
        distance = _acceptable(quotation, s, e, radius, enclosed)
        if distance is not None and (best is None or distance < best[0]):
            best = (distance, s, e)
    if best is None:
        return None, True, False
    return (best[1], best[2]), True, enclosed


def _align_span(old_region, new_region, quote_start, quote_end, old_text, start, end):
    """Map the quotation's boundaries (offsets in ``old_region``) through a Levenshtein
    alignment of the old region onto the new one; None if the quotation vanished."""
    new_start = new_end = None
    before_start = after_end = None
    opcodes = Levenshtein.opcodes(old_region, new_region)
    for tag, i1, i2, j1, j2 in opcodes:
        if new_start is None:
            if tag == "insert" and i1 == quote_start:
                before_start = (j1, j2)
            elif i1 <= quote_start < i2:
                new_start = j1 if tag == "delete" else j1 + min(quote_start - i1, j2 - j1)
        if new_end is None and i1 < quote_end <= i2:
            new_end = j1 if tag == "delete" else j1 + min(quote_end - i1, j2 - j1)
        elif new_end is not None and tag == "insert" and i1 == quote_end:
            after_end = (j1, j2)
            break
        elif new_end is not None and i1 >= quote_end:
            break
    if new_start is None or new_end is None:
        return None
    # Text inserted right at a boundary: when the quotation's first (last) word was
    # itself edited, it is part of that change ("467" become "about 460", a first word
    # reworded into a longer one) and goes inside. Next to an intact word it stays
    # outside, unless it glues onto a word the quotation starts (ends) with.
    exact = old_region[quote_start:quote_end]
    first_word_end = quote_start + max(1, _word_length(exact))
    last_word_start = quote_end - max(1, _word_length(exact[::-1]))
    start_changed = _edited(opcodes, quote_start, first_word_end)
    end_changed = _edited(opcodes, last_word_start, quote_end)
    if before_start is not None:
        if start_changed:
            new_start = before_start[0]
        elif exact[0].isalnum() and not _word_char_at(old_text, start - 1):
            while new_start > before_start[0] and new_region[new_start - 1].isalnum():
                new_start -= 1
    if after_end is not None:
        if end_changed:
            new_end = after_end[1]
        elif exact[-1].isalnum() and not _word_char_at(old_text, end):
            while new_end < after_end[1] and new_region[new_end].isalnum():
                new_end += 1
    if new_end <= new_start:
        return None
    return new_start, new_end


def _word_length(text: str) -> int:
    """Length of the word ``text`` starts with (0 if it starts with another character)."""
    length = 0
    while length < len(text) and (text[length].isalnum() or text[length] == "_"):
        length += 1
    return length


def _edited(opcodes, low: int, high: int) -> bool:
    """Whether the alignment changes anything in ``old_region[low:high]`` (an insertion
    strictly inside counts; one at either edge is outside it)."""
    for tag, i1, i2, _j1, _j2 in opcodes:
        if i1 >= high:
            break
        if tag == "insert":
            if low < i1 < high:
                return True
        elif tag != "equal" and i2 > low:
            return True
    return False


def _word_char_at(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index].isalnum()


def _acceptable(quotation, s, e, radius, enclosed=False):
    """Edit distance of the candidate ``new_text[s:e]`` if it passes the acceptance rule,
    else None.

    The rule: within ``MAX_EDIT_RATIO`` edits of the old wording; or, when the text on
    both sides of the quotation (``enclosed``) fixes its place, more than
    ``MIN_KEPT_SHARE`` of its characters still standing there (a clause added or a
    figure rewritten is many edits, yet plainly the same sentence edited in place)."""
    _old_text, new_text, _start, _end, exact, prefix, suffix = quotation
    candidate = new_text[s:e]
    budget = _budget(len(exact))
    distance = Levenshtein.distance(exact, candidate, score_cutoff=budget)
    if distance > budget:
        if not enclosed or kept_share(exact, candidate) <= MIN_KEPT_SHARE:
            return None
        distance = Levenshtein.distance(exact, candidate)
    if prefix or suffix:
        # At least one side of the context must still read like the old one.
        sides = []
        if prefix:
            before = new_text[max(0, s - len(prefix)) : s]
            sides.append(Levenshtein.normalized_distance(prefix, before))
        if suffix:
            sides.append(Levenshtein.normalized_distance(suffix, new_text[e : e + len(suffix)]))
        if min(sides) > 0.5:
            return None
    if candidate != exact and _already_there(quotation, s, e, radius):
        return None
    return distance


def kept_share(old: str, new: str) -> float:
    """Share of ``old``'s characters that ``new`` keeps: the equal segments of their
    :func:`char_diff`, whose clean-up drops the letters that unrelated words share by
    chance (so another sentence in the same place keeps little)."""
    if not old:
        return 0.0
    kept = sum(len(segment) for op, segment in char_diff(old, new) if op == "equal")
    return kept / len(old)


def _already_there(quotation, s, e, radius):
    """Whether the candidate wording (with a little context) was in the old text at some
    other place: then it is a pre-existing lookalike, not our quotation reworded.

    With anchors found near their old place (``radius``), the drift is small, so a
    lookalike that they could have led to was near the candidate in the old text too and
    only that stretch needs scanning."""
    old_text, new_text, start, end = quotation[:4]
    low = max(0, s - 8)
    probe = new_text[low : e + 8]
    lead = s - low
    scan_low, scan_high = 0, len(old_text)
    if radius is not None:
        scan_low, scan_high = max(0, s - radius), min(len(old_text), e + radius)
    position = old_text.find(probe, scan_low, scan_high)
    while position != -1:
        quote_start = position + lead
        if quote_start + (e - s) <= start or quote_start >= end:
            return True
        position = old_text.find(probe, position + 1, scan_high)
    return False


def _search_wide(old_text, new_text, start, end, exact, prefix, suffix):
    """Last resort when no anchor survives: search quote and context everywhere, and take
    a match only if the wording and the context on every side agree."""
    quotation = (old_text, new_text, start, end, exact, prefix, suffix)
    pattern = prefix + exact + suffix
    for found in _candidates(new_text, pattern, limit=3):
        span = _align_span(
            pattern,
            new_text[found[0] : found[1]],
            len(prefix),
            len(prefix) + len(exact),
            old_text,
            start,
            end,
        )
        if span is None:
            continue
        s, e = span[0] + found[0], span[1] + found[0]
        before = new_text[max(0, s - len(prefix)) : s]
        after = new_text[e : e + len(suffix)]
        if prefix and Levenshtein.normalized_distance(prefix, before) > 0.35:
            continue
        if suffix and Levenshtein.normalized_distance(suffix, after) > 0.35:
            continue
        if _acceptable(quotation, s, e, radius=None) is not None:
            return s, e
    return None


# --------------------------------------------------------------------------------------
# Approximate search over a whole text (the quote finder)
# --------------------------------------------------------------------------------------


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``start``–``end`` widened to whole words at both ends, then trimmed of white space."""
    end = min(end, len(text))
    while 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _candidates(text: str, pattern: str, limit: int, max_distance: int | None = None):
    """Up to ``limit`` non-overlapping spans of ``text`` closest to ``pattern``, as
    ``(start, end, distance)``, best first.

    A cheap filter first: the text is cut into overlapping windows, a step apart and a
    step plus the pattern (plus the allowed slack) wide, so that any match lies wholly
    inside one, and rapidfuzz ranks them in its C loop. Only the best few windows are
    then aligned properly.
    """
    size = len(pattern)
    if not size or not text:
        return []
    slack = max_distance if max_distance is not None else size // 2
    if size <= 64:
        # Short patterns: ratio against a long window says little, but rapidfuzz's
        # partial_ratio aligns a short needle exactly, and fast.
        step = 128
        scorer = fuzz.partial_ratio
    else:
        step = size
        scorer = fuzz.ratio
    width = step + size + slack
    windows = [text[i : i + width] for i in range(0, max(1, len(text) - size + step), step)]
    pool = process.extract(pattern, windows, scorer=scorer, limit=max(8, 4 * limit))
    found = []
    for _window, _score, index in pool:
        low = index * step
        span = _best_infix(pattern, text, low, min(len(text), low + width))
        if span is not None:
            found.append(span)
    found.sort(key=lambda span: (span[2], span[0]))
    chosen = []
    for span in found:
        if max_distance is not None and span[2] > max_distance:
            continue
        if any(span[0] < other[1] and other[0] < span[1] for other in chosen):
            continue
        chosen.append(span)
        if len(chosen) == limit:
            break
    return chosen


def _best_infix(pattern: str, text: str, low: int, high: int):
    """The span of ``text[low:high]`` with the smallest edit distance to ``pattern``.

    rapidfuzz compares whole strings, so the infix is found in two steps. First a
    pattern-sized window: for short patterns rapidfuzz's ``partial_ratio_alignment``
    finds the best one exactly; for long ones (where that function is slow) windows are
    compared every sixteenth of the pattern's length, which lands within a few
    characters of the best one since the distance grows steadily with the offset. Then
    a local search lets each end of the window move to where insertions and deletions
    put it, in strides that shrink to one character.
    """
    region = text[low:high]
    if not region:
        return None
    stride = max(1, len(pattern) // 16)
    if len(pattern) <= 64 or len(region) <= len(pattern):
        alignment = fuzz.partial_ratio_alignment(pattern, region)
        if alignment is None:
            return None
        if len(pattern) <= len(region):
            s, e = low + alignment.dest_start, low + alignment.dest_end
        else:
            s, e = low + alignment.src_start, low + alignment.src_end
    else:
        offsets = range(low, high - len(pattern) + 1, stride)
        s = min(offsets, key=lambda a: Levenshtein.distance(pattern, text[a : a + len(pattern)]))
        e = s + len(pattern)

    size = len(text)
    starts_word = pattern[:1].isalnum()
    ends_word = pattern[-1:].isalnum()

    def key(a, b, cutoff=None):
        # Fewest edits; among equals, the span a person would select: one that does not
        # cut a word in two, then one as long as the pattern.
        cut = (starts_word and 0 < a < size and text[a - 1].isalnum() and text[a].isalnum()) + (
            ends_word and 0 < b < size and text[b - 1].isalnum() and text[b].isalnum()
        )
        distance = Levenshtein.distance(pattern, text[a:b], score_cutoff=cutoff)
        return distance, cut, abs(b - a - len(pattern))

    best = key(s, e)
    reach = max(8, 2 * stride)
    while True:
        for _round in range(4):
            moved = False
            for a in range(max(low, s - reach), min(e, s + reach + 1), stride):
                k = key(a, e, best[0])
                if k < best:
                    best, s, moved = k, a, True
            for b in range(min(high, e + reach), max(s, e - reach - 1), -stride):
                k = key(s, b, best[0])
                if k < best:
                    best, e, moved = k, b, True
            if not moved:
                break
        if stride == 1:
            break
        reach, stride = 2 * stride, max(1, stride // 4)
    return s, e, best[0]


def closest_passages(
    text: str, passage: str, limit: int = 3, max_distance: int | None = None
) -> list[Passage]:
    """
    The passages of ``text`` closest to ``passage`` (for a passage pasted from elsewhere
    that is not in the text word for word), best first, non-overlapping, at most
    ``limit`` of them and none farther than ``max_distance`` edits (default: half the
    passage's length, beyond which a "match" is unrelated text). Exact occurrences come
    first with distance 0.
    """
    size = len(passage)
    if not size or limit <= 0 or not text:
        return []
    if max_distance is None:
        max_distance = size // 2
    chosen = []
    for position in find_occurrences(text, passage):
        # Overlapping repeats ("aa" in "aaa") would show the same words twice.
        if not chosen or chosen[-1].end <= position:
            chosen.append(Passage(position, position + size, passage, 0, [("equal", passage)]))
            if len(chosen) == limit:
                return chosen
    for aligned_start, aligned_end, aligned in _candidates(
        text, passage, limit + len(chosen), max_distance
    ):
        # Offered to be quoted: whole words, without white space at either end,
        # unless whole words would be farther from the passage than allowed.
        s, e = _whole_words(text, aligned_start, aligned_end)
        distance = Levenshtein.distance(passage, text[s:e]) if s < e else max_distance + 1
        if distance > max_distance:
            s, e, distance = aligned_start, min(aligned_end, len(text)), aligned
        if s == e or any(s < other.end and other.start < e for other in chosen):
            continue
        exact = text[s:e]
        chosen.append(Passage(s, e, exact, distance, char_diff(passage, exact)))
        if len(chosen) == limit:
            break
    chosen.sort(key=lambda found: (found.distance, found.start))
    return chosen


def char_diff(pasted: str, source: str) -> list[tuple[str, str]]:
    """Character diff from ``pasted`` to ``source`` as ``(op, segment)`` pairs.

    The raw Levenshtein alignment is tidied like diff-match-patch's semantic cleanup: a
    short equality squeezed between larger changes (the shared "u" of "court" and
    "judge") is folded into them, so a changed word reads as one deletion and one
    insertion.
    """
    raw = []
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(pasted, source):
        if tag == "equal":
            raw.append(("equal", pasted[i1:i2]))
            continue
        if i2 > i1:
            raw.append(("delete", pasted[i1:i2]))
        if j2 > j1:
            raw.append(("insert", source[j1:j2]))
    return _cleanup(raw)


def _merge(ops):
    """Merge neighbours: one deletion then one insertion between equalities."""
    merged = []
    deleted, inserted = [], []
    for op, segment in ops:
        if not segment:
            continue
        if op == "delete":
            deleted.append(segment)
        elif op == "insert":
            inserted.append(segment)
        else:
            if deleted:
                merged.append(("delete", "".join(deleted)))
            if inserted:
                merged.append(("insert", "".join(inserted)))
            deleted, inserted = [], []
            if merged and merged[-1][0] == "equal":
                merged[-1] = ("equal", merged[-1][1] + segment)
            else:
                merged.append(("equal", segment))
    if deleted:
        merged.append(("delete", "".join(deleted)))
    if inserted:
        merged.append(("insert", "".join(inserted)))
    return merged


def _cleanup(ops):
    ops = _merge(ops)
    while True:
        changed = False
        for i, (op, segment) in enumerate(ops):
            if op != "equal" or i == 0 or i == len(ops) - 1:
                continue
            before = _edit_sizes(ops, i, -1)
            after = _edit_sizes(ops, i, 1)
            if len(segment) <= max(before) and len(segment) <= max(after):
                ops = [*ops[:i], ("delete", segment), ("insert", segment), *ops[i + 1 :]]
                changed = True
                break
        if not changed:
            return ops
        ops = _merge(ops)


def _edit_sizes(ops, index, direction):
    deleted = inserted = 0
    i = index + direction
    while 0 <= i < len(ops) and ops[i][0] != "equal":
        if ops[i][0] == "delete":
            deleted += len(ops[i][1])
        else:
            inserted += len(ops[i][1])
        i += direction
    return deleted, inserted


# --------------------------------------------------------------------------------------
# Browser offsets
# --------------------------------------------------------------------------------------


def index_to_utf16(text: str, index: int) -> int:
    """The JavaScript (UTF-16 code unit) offset of the code-point ``index`` in ``text``."""
    if not 0 <= index <= len(text):
        raise ValueError(f"Index {index} is outside a text of {len(text)} characters.")
    # Characters outside the Basic Multilingual Plane take two code units; encoding in C
    # counts them faster than a Python loop over the text.
    return len(text[:index].encode("utf-16-le", "surrogatepass")) // 2


def utf16_to_index(text: str, utf16_offset: int) -> int:
    """The code-point index in ``text`` of a JavaScript (UTF-16 code unit) offset.

    Raises ValueError for an offset beyond the text or inside a surrogate pair (between
    the two halves of an emoji, say), which no real selection boundary can be.
    """
    encoded = text.encode("utf-16-le", "surrogatepass")
    if not 0 <= utf16_offset <= len(encoded) // 2:
        raise ValueError(f"Offset {utf16_offset} is outside the text.")
    if utf16_offset and 0xD800 <= _unit(encoded, utf16_offset - 1) <= 0xDBFF:
        raise ValueError(f"Offset {utf16_offset} falls inside a surrogate pair.")
    return len(encoded[: 2 * utf16_offset].decode("utf-16-le", "surrogatepass"))


def _unit(encoded: bytes, index: int) -> int:
    return int.from_bytes(encoded[2 * index : 2 * index + 2], "little")
