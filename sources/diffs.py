"""
What changed between two wordings: a quotation's old and new words
(``word_diff``), and two versions of a source's text (``version_diff``).

Pure Python on top of ``difflib``, no Django. The answers are typed rows
(dataclasses) that the templates render; nothing here writes HTML.

White space never counts as a change: a passage wrapped anew, or two spaces
where there was one, reads the same. Words are compared whole ("193" → "200",
"1,111" → "1,112", "don't"), and punctuation apart from the word it clings to,
so a comma added after a word marks the comma, not the word.

A version's text can run to megabytes. ``version_diff`` therefore compares
paragraphs (lines) first, and compares words only inside the paragraphs that
changed, a page of changes at a time; a change too big to compare word by
word is shown as its two texts, with what is left out said.
"""

import difflib
import unicodedata
from dataclasses import dataclass, field

EQUAL, DELETE, INSERT = "equal", "delete", "insert"
#: A stretch of unchanged words left out of an excerpt (``WordDiff.excerpt``).
GAP = "gap"

#: Characters that split a run of non-space characters even inside it ("a—b", "and/or").
_INNER_BREAKS = frozenset("—–/…")


@dataclass(frozen=True)
class Segment:
    """A run of text of one kind: ``equal``, ``delete``, ``insert``, or a ``gap`` left out."""

    kind: str
    text: str
    #: For a gap: how many unchanged words it stands for.
    skipped: int = 0


@dataclass(frozen=True)
class WordDiff:
    """
    Two wordings compared word by word. ``segments`` is the two in one (equal
    words as the new text spaces them, each change as its deleted words then its
    inserted ones); ``old`` and ``new`` are each wording by itself, with what
    the other lacks marked.
    """

    segments: tuple[Segment, ...]
    old: tuple[Segment, ...]
    new: tuple[Segment, ...]
    words_deleted: int
    words_inserted: int
    #: How many separate places changed.
    changes: int

    @property
    def changed(self):
        return self.changes > 0

    @property
    def length(self):
        """Characters in the combined rendering: what decides whether it is folded."""
        return sum(len(segment.text) for segment in self.segments)

    def excerpt(self, context=8):
        """
        ``segments`` with every unchanged stretch longer than twice ``context``
        words cut down to ``context`` words either side of a change: the rest is
        a ``gap`` segment that says how many words it left out.
        """
        shown = []
        last = len(self.segments) - 1
        for index, segment in enumerate(self.segments):
            if segment.kind != EQUAL:
                shown.append(segment)
                continue
            tokens = _split_keeping_space(segment.text)
            words = [i for i, token in enumerate(tokens) if not token.isspace()]
            keep_before = context if index > 0 else 0
            keep_after = context if index < last else 0
            if len(words) <= keep_before + keep_after + 2:
                shown.append(segment)
                continue
            head_end = words[keep_before - 1] + 1 if keep_before else 0
            tail_start = words[len(words) - keep_after] if keep_after else len(tokens)
            skipped = sum(1 for i in words if head_end <= i < tail_start)
            head, tail = "".join(tokens[:head_end]), "".join(tokens[tail_start:])
            if head:
                shown.append(Segment(EQUAL, head + (" " if not head[-1].isspace() else "")))
            shown.append(Segment(GAP, "…", skipped=skipped))
            if tail:
                shown.append(Segment(EQUAL, (" " if not tail[0].isspace() else "") + tail))
        return tuple(shown)


def _split_keeping_space(text):
    """``text`` as alternating runs of white space and of other characters."""
    runs, start = [], 0
    for index in range(1, len(text) + 1):
        if index == len(text) or text[index].isspace() != text[start].isspace():
            runs.append(text[start:index])
            start = index
    return runs


def _is_punctuation(character):
    return unicodedata.category(character)[0] in "PS"


def _is_word(token):
    return any(character.isalnum() for character in token)


def tokens(text):
    """
    ``text`` as (white space before, token) pairs, and the white space after the
    last token. A token is a word, a number ("1,111", "2.6", "B200", "don't")
    or one punctuation mark: punctuation at either end of a run of non-space
    characters is split off it, one mark a token, and a dash or slash splits it.
    """
    pairs, space = [], ""
    for run in _split_keeping_space(text):
        if run.isspace():
            space += run
            continue
        for piece in _pieces(run):
            pairs.append((space, piece))
            space = ""
    return pairs, space


def _pieces(run):
    start, end = 0, len(run)
    while start < end and _is_punctuation(run[start]):
        start += 1
    while end > start and _is_punctuation(run[end - 1]):
        end -= 1
    pieces = list(run[:start])
    core, word = run[start:end], ""
    for character in core:
        if character in _INNER_BREAKS:
            if word:
                pieces.append(word)
            pieces.append(character)
            word = ""
        else:
            word += character
    if word:
        pieces.append(word)
    pieces.extend(run[end:])
    return pieces


def _opcodes(old, new):
    """``difflib`` opcodes of two token lists, the common ends taken off first (cheaply)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    middle_old = old[prefix : len(old) - suffix]
    middle_new = new[prefix : len(new) - suffix]
    codes = []
    if prefix:
        codes.append([EQUAL, 0, prefix, 0, prefix])
    if middle_old or middle_new:
        # Long texts: words used everywhere ("the", ",") are not tried as anchors
        # (difflib's autojunk), which keeps this near linear.
        matcher = difflib.SequenceMatcher(
            None, middle_old, middle_new, autojunk=len(middle_new) > 2000
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            codes.append([tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix])
    if suffix:
        codes.append([EQUAL, len(old) - suffix, len(old), len(new) - suffix, len(new)])
    # Neighbouring changes (difflib gives a delete next to an insert) are one.
    merged = []
    for code in codes:
        if merged and code[0] != EQUAL and merged[-1][0] != EQUAL:
            merged[-1] = ["replace", merged[-1][1], code[2], merged[-1][3], code[4]]
        else:
            merged.append(code)
    return merged


def word_diff(old_text, new_text):
    """``old_text`` and ``new_text`` compared word by word (``WordDiff``)."""
    old_pairs, old_trailing = tokens(old_text)
    new_pairs, new_trailing = tokens(new_text)
    codes = _opcodes([token for _space, token in old_pairs], [t for _s, t in new_pairs])
    segments, old_side, new_side = _Runs(), _Runs(), _Runs()
    deleted = inserted = changes = 0
    for tag, i1, i2, j1, j2 in codes:
        old_tokens, new_tokens = old_pairs[i1:i2], new_pairs[j1:j2]
        if tag == EQUAL:
            segments.add(EQUAL, _joined(new_tokens))
            old_side.add(EQUAL, _joined(old_tokens))
            new_side.add(EQUAL, _joined(new_tokens))
            continue
        changes += 1
        deleted += sum(1 for _space, token in old_tokens if _is_word(token))
        inserted += sum(1 for _space, token in new_tokens if _is_word(token))
        # The space before a change stays outside its marks.
        lead_old = old_tokens[0][0] if old_tokens else ""
        lead_new = new_tokens[0][0] if new_tokens else ""
        segments.add(EQUAL, lead_new if new_tokens else lead_old)
        old_side.add(EQUAL, lead_old)
        new_side.add(EQUAL, lead_new)
        removed = _joined(old_tokens, skip_first_space=True)
        added = _joined(new_tokens, skip_first_space=True)
        segments.add(DELETE, removed)
        segments.add(INSERT, added)
        old_side.add(DELETE, removed)
        new_side.add(INSERT, added)
    segments.add(EQUAL, new_trailing)
    old_side.add(EQUAL, old_trailing)
    new_side.add(EQUAL, new_trailing)
    return WordDiff(
        segments=segments.done(),
        old=old_side.done(),
        new=new_side.done(),
        words_deleted=deleted,
        words_inserted=inserted,
        changes=changes,
    )


def _joined(pairs, skip_first_space=False):
    return "".join(
        token if skip_first_space and index == 0 else space + token
        for index, (space, token) in enumerate(pairs)
    )


class _Runs:
    """Segments being built: empty text dropped, neighbours of one kind joined."""

    def __init__(self):
        self.segments = []

    def add(self, kind, text):
        if not text:
            return
        if self.segments and self.segments[-1].kind == kind:
            self.segments[-1] = Segment(kind, self.segments[-1].text + text)
        else:
            self.segments.append(Segment(kind, text))

    def done(self):
        return tuple(self.segments)


# --- Two versions of a text ---------------------------------------------------

#: Changes shown on one page of a version diff.
CHANGES_PER_PAGE = 50
#: A change whose two sides hold more characters than this (together) is shown
#: as its two texts, not compared word by word.
MAX_WORD_DIFF_CHARS = 60_000
#: Of a change shown as its two texts, the characters shown of each side.
MAX_SHOWN_CHARS = 20_000
#: An unchanged stretch of more paragraphs than this is folded.
UNFOLDED_PARAGRAPHS = 2
#: Of a folded stretch, the paragraphs shown when it is opened, at each end.
FOLDED_SHOWN_AT_EACH_END = 20


@dataclass(frozen=True)
class Paragraph:
    """A non-blank line of a version's text, with its offsets in that text."""

    start: int
    end: int
    text: str


@dataclass
class Unchanged:
    """A stretch of paragraphs the same in both versions (as the newer one has them)."""

    count: int
    #: The paragraphs shown (all, or those at each end of a long stretch).
    head: tuple[Paragraph, ...]
    tail: tuple[Paragraph, ...] = ()
    kind: str = "unchanged"

    @property
    def folded(self):
        return self.count > UNFOLDED_PARAGRAPHS

    @property
    def left_out(self):
        """Paragraphs of the stretch not shown even when it is opened."""
        return self.count - len(self.head) - len(self.tail)


@dataclass
class Change:
    """
    Paragraphs of the older version replaced by paragraphs of the newer (either
    side may be empty: paragraphs deleted, or inserted), with their offsets.
    """

    number: int
    old: tuple[Paragraph, ...]
    new: tuple[Paragraph, ...]
    old_start: int
    old_end: int
    new_start: int
    new_end: int
    #: Word by word, or None when the change is too big (``MAX_WORD_DIFF_CHARS``).
    diff: WordDiff | None = None
    #: Without a word diff: each side's text as shown, and what was left out of it.
    old_text: str = ""
    new_text: str = ""
    old_left_out: int = 0
    new_left_out: int = 0
    #: Filled in by whoever knows the quotations (sources.selectors.version_comparison).
    quotations: list = field(default_factory=list)
    kind: str = "change"


@dataclass
class VersionDiff:
    """
    Two texts compared a paragraph at a time: the rows of one page of changes
    (``Unchanged`` stretches and ``Change``s, in the text's order), how many
    changes there are in all, and which of them this page shows.
    """

    rows: list
    total_changes: int
    old_paragraphs: int
    new_paragraphs: int
    first_change: int = 0
    last_change: int = 0

    @property
    def identical(self):
        return self.total_changes == 0


def paragraphs(text):
    """The non-blank lines of ``text`` (``Paragraph``), with their offsets."""
    found, start = [], 0
    for line in text.split("\n"):
        if line.strip():
            found.append(Paragraph(start, start + len(line), line))
        start += len(line) + 1
    return found


def _paragraph_key(paragraph):
    return " ".join(paragraph.text.split())


def version_diff(old_text, new_text, *, page=1, per_page=CHANGES_PER_PAGE):
    """
    ``old_text`` and ``new_text`` compared paragraph by paragraph, and word by
    word inside the changed paragraphs of page ``page`` (counted from 1) of
    ``per_page`` changes. A page past the last gives the last. Each change of
    the page comes after the unchanged stretch before it; the page's last
    change, before the stretch after it.
    """
    old_paragraphs, new_paragraphs = paragraphs(old_text), paragraphs(new_text)
    codes = _paragraph_opcodes(old_paragraphs, new_paragraphs)
    changed_at = [index for index, code in enumerate(codes) if code[0] != EQUAL]
    total = len(changed_at)
    diff = VersionDiff(
        rows=[],
        total_changes=total,
        old_paragraphs=len(old_paragraphs),
        new_paragraphs=len(new_paragraphs),
    )
    if not total:
        return diff
    pages = -(-total // per_page)
    page = min(max(1, page), pages)
    first, last = (page - 1) * per_page, min(total, page * per_page)
    diff.first_change, diff.last_change = first + 1, last
    for number in range(first, last):
        index = changed_at[number]
        if index > 0:
            _tag, _i1, _i2, j1, j2 = codes[index - 1]
            diff.rows.append(_unchanged(new_paragraphs[j1:j2]))
        _tag, i1, i2, j1, j2 = codes[index]
        diff.rows.append(
            _change(
                number + 1,
                old_paragraphs[i1:i2],
                new_paragraphs[j1:j2],
                old_at=_offset_of(old_paragraphs, i1, len(old_text)),
                new_at=_offset_of(new_paragraphs, j1, len(new_text)),
            )
        )
    after = changed_at[last - 1] + 1
    if after < len(codes):
        _tag, _i1, _i2, j1, j2 = codes[after]
        diff.rows.append(_unchanged(new_paragraphs[j1:j2]))
    return diff


def _offset_of(found, index, length):
    """Where paragraph ``index`` of ``found`` starts (the text's end, past the last)."""
    return found[index].start if index < len(found) else length


def _paragraph_opcodes(old_paragraphs, new_paragraphs):
    """
    Paragraph-level opcodes, the common ends taken off first; neighbouring
    changes (difflib gives a delete next to an insert) are one change.
    Paragraphs used everywhere are not tried as anchors (difflib's autojunk).
    """
    old = [_paragraph_key(p) for p in old_paragraphs]
    new = [_paragraph_key(p) for p in new_paragraphs]
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    codes = []
    if prefix:
        codes.append((EQUAL, 0, prefix, 0, prefix))
    matcher = difflib.SequenceMatcher(
        None, old[prefix : len(old) - suffix], new[prefix : len(new) - suffix], autojunk=True
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        codes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        codes.append((EQUAL, len(old) - suffix, len(old), len(new) - suffix, len(new)))
    merged = []
    for code in codes:
        if merged and code[0] != EQUAL and merged[-1][0] != EQUAL:
            previous = merged[-1]
            merged[-1] = ("replace", previous[1], code[2], previous[3], code[4])
        else:
            merged.append(code)
    return merged


def _unchanged(stretch):
    count = len(stretch)
    if count <= 2 * FOLDED_SHOWN_AT_EACH_END:
        return Unchanged(count=count, head=tuple(stretch))
    return Unchanged(
        count=count,
        head=tuple(stretch[:FOLDED_SHOWN_AT_EACH_END]),
        tail=tuple(stretch[-FOLDED_SHOWN_AT_EACH_END:]),
    )


def _change(number, old, new, *, old_at, new_at):
    """
    Change ``number``: paragraphs ``old`` replaced by ``new``. A side without
    paragraphs is the point where the other side's were deleted or inserted
    (``old_at``, ``new_at``): its start and end are both that offset.
    """
    change = Change(
        number=number,
        old=tuple(old),
        new=tuple(new),
        old_start=old[0].start if old else old_at,
        old_end=old[-1].end if old else old_at,
        new_start=new[0].start if new else new_at,
        new_end=new[-1].end if new else new_at,
    )
    old_text = "\n".join(paragraph.text for paragraph in old)
    new_text = "\n".join(paragraph.text for paragraph in new)
    if len(old_text) + len(new_text) <= MAX_WORD_DIFF_CHARS:
        change.diff = word_diff(old_text, new_text)
    else:
        change.old_text, change.old_left_out = _cut(old_text)
        change.new_text, change.new_left_out = _cut(new_text)
    return change


def _cut(text):
    if len(text) <= MAX_SHOWN_CHARS:
        return text, 0
    return text[:MAX_SHOWN_CHARS], len(text) - MAX_SHOWN_CHARS
