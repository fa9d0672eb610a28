"""
Quotations from real revision histories, labelled by what became of them.

Used by ``bench/reanchoring_history.py``. It reads a bare git repository (a mirror of a
project with long-lived prose, such as ``rust-lang/book``) with ``git`` subprocesses
only, and for each commit that modified a prose file yields the file before and after.
From the old version it picks sentence- and clause-sized quotations, and labels each from
a character alignment of the two versions (diff-match-patch, line mode then characters,
then its semantic clean-up so that a rewritten clause is one deletion and one insertion,
not a scatter of shared letters):

``survived``
    the new text where the alignment puts the quotation has the same words (white space
    may differ: lines wrapped anew); or the same words with at least 16 characters of
    their old context on one side reappear in text the alignment calls inserted, or
    they are found once in the old text and once in the new (a moved paragraph).
    ``span`` is where they are.
``changed``
    the alignment keeps at least ``KEPT_CHANGED`` of the quotation's characters, but the
    words there are not the same: edited in place. ``span`` runs from where the old start
    went to where the old end went (an edit at an edge is inside).
``gone``
    the alignment keeps at most ``KEPT_GONE`` of its characters (deleted, or rewritten
    beyond recognition), it did not move, and no passage that keeps more than
    ``KEPT_CHANGED`` of it was put in its place or inserted elsewhere.
``unclear``
    in between, or such a passage exists (a paragraph moved and edited, or a clause
    the alignment read as deleted and written anew): what a "right" answer is is
    arguable, so these are counted, with what each matcher said, but not scored.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from diff_match_patch import diff_match_patch
from rapidfuzz import fuzz, process

from sources.anchoring import closest_passages, find_words, kept_share

SURVIVED, CHANGED, GONE, UNCLEAR = "survived", "changed", "gone", "unclear"

#: Share of the quotation's characters the alignment must keep for "edited in place".
KEPT_CHANGED = 0.5
#: At most this share kept, the quotation is gone.
KEPT_GONE = 0.25

CONTEXT_LENGTH = 32
MIN_QUOTE, MAX_QUOTE = 20, 300


@dataclass(frozen=True)
class Quotation:
    path: str
    commit: str
    old_index: int  # which pair of versions (index into the pairs read)
    start: int
    end: int
    exact: str
    prefix: str
    suffix: str
    label: str
    span: tuple[int, int] | None  # where it is (survived) or went (changed) in the new text


# --------------------------------------------------------------------------------------
# Reading the history
# --------------------------------------------------------------------------------------


def modified_files(repo: str, pathspecs: list[str]) -> list[tuple[str, str]]:
    """``(commit, path)`` for every non-merge commit that modified a file matching
    ``pathspecs``, oldest first."""
    log = subprocess.run(
        [
            *("git", "--git-dir", repo, "log", "--no-merges", "--diff-filter=M", "--reverse"),
            *("--format=commit %H", "--name-only", "--", *pathspecs),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pairs, commit = [], None
    for line in log.splitlines():
        if line.startswith("commit "):
            commit = line[7:]
        elif line.strip():
            pairs.append((commit, line.strip()))
    return pairs


class Blobs:
    """Reads ``rev:path`` objects through one ``git cat-file --batch`` process."""

    def __init__(self, repo: str):
        self.process = subprocess.Popen(
            ["git", "--git-dir", repo, "cat-file", "--batch"],  # noqa: S607
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, spec: str) -> str | None:
        self.process.stdin.write(spec.encode() + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().split()
        if len(header) != 3:
            return None
        data = self.process.stdout.read(int(header[2]) + 1)[:-1]
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# --------------------------------------------------------------------------------------
# Alignment
# --------------------------------------------------------------------------------------


def opcodes(old: str, new: str) -> list[tuple[str, int, int, int, int]]:
    """difflib-style opcodes of a diff-match-patch alignment of ``old`` with ``new``."""
    dmp = diff_match_patch()
    # No time limit: with one, a loaded machine would align (and so label) differently.
    dmp.Diff_Timeout = 0
    diffs = dmp.diff_main(old, new, True)
    dmp.diff_cleanupSemantic(diffs)
    ops, i, j = [], 0, 0
    pending_i, pending_j = i, j
    for op, segment in diffs:
        if op == dmp.DIFF_EQUAL:
            if (pending_i, pending_j) != (i, j):
                tag = "replace" if i > pending_i and j > pending_j else "delete"
                tag = tag if i > pending_i else "insert"
                ops.append((tag, pending_i, i, pending_j, j))
            ops.append(("equal", i, i + len(segment), j, j + len(segment)))
            i += len(segment)
            j += len(segment)
            pending_i, pending_j = i, j
        elif op == dmp.DIFF_DELETE:
            i += len(segment)
        else:
            j += len(segment)
    if (pending_i, pending_j) != (i, j):
        tag = "replace" if i > pending_i and j > pending_j else "delete"
        tag = tag if i > pending_i else "insert"
        ops.append((tag, pending_i, i, pending_j, j))
    return ops


def _op_at(ops, starts, offset):
    """The opcode whose old range holds ``offset`` (binary search over old starts)."""
    low, high = 0, len(ops) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    # Insertions have an empty old range: skip to the op that really holds the offset.
    while low + 1 < len(ops) and ops[low][2] <= offset:
        low += 1
    return ops[low]


class Alignment:
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        self.ops = opcodes(old, new)
        self.starts = [op[1] for op in self.ops]

    def kept(self, start: int, end: int) -> int:
        """Characters of ``old[start:end]`` the alignment keeps."""
        kept = 0
        for tag, i1, i2, _j1, _j2 in self.ops:
            if i2 <= start:
                continue
            if i1 >= end:
                break
            if tag == "equal":
                kept += min(i2, end) - max(i1, start)
        return kept

    def map_start(self, offset: int) -> int:
        tag, i1, _i2, j1, _j2 = _op_at(self.ops, self.starts, offset)
        return j1 + (offset - i1) if tag == "equal" else j1

    def map_end(self, offset: int) -> int:
        tag, i1, _i2, j1, j2 = _op_at(self.ops, self.starts, offset - 1)
        return j1 + (offset - i1) if tag == "equal" else j2

    def inserted(self, start: int, end: int) -> bool:
        """Whether ``new[start:end]`` lies in text the alignment calls new."""
        for tag, _i1, _i2, j1, j2 in self.ops:
            if tag != "equal" and j1 <= start and end <= j2:
                return True
        return False

    def new_lines_inserted(self) -> list[str]:
        lines = []
        for tag, _i1, _i2, j1, j2 in self.ops:
            if tag != "equal" and j2 - j1 > 40:
                lines.extend(p for p in self.new[j1:j2].split("\n\n") if len(p) > 40)
        return lines


def label(alignment: Alignment, start: int, end: int) -> tuple[str, tuple[int, int] | None]:
    old, new = alignment.old, alignment.new
    exact = old[start:end]
    size = end - start
    kept = alignment.kept(start, end)
    new_start, new_end = alignment.map_start(start), alignment.map_end(end)
    if new_end > new_start and new[new_start:new_end].split() == exact.split():
        # The same words; lines may have been wrapped anew.
        return SURVIVED, (new_start, new_end)
    if kept >= KEPT_CHANGED * size:
        if new_end <= new_start:
            return UNCLEAR, None
        return CHANGED, (new_start, new_end)
    # Moved? The same words with a good deal of their old context, in inserted text.
    for context in (old[max(0, start - 16) : start] + exact, exact + old[end : end + 16]):
        position = new.find(context)
        if position != -1 and len(context) > size:
            quote_start = position + (len(context) - size if context.endswith(exact) else 0)
            if alignment.inserted(quote_start, quote_start + size) and new.count(context) == 1:
                return SURVIVED, (quote_start, quote_start + size)
    # The same words (white space aside), once in the old text and once in the new:
    # moved, maybe with the lines wrapped anew and other surroundings (a caption become
    # an attribute, say), where the alignment matched other text.
    olds, news = find_words(old, exact, 2), find_words(new, exact, 2)
    if len(olds) == 1 and len(news) == 1:
        return SURVIVED, news[0]
    if kept > KEPT_GONE * size:
        return UNCLEAR, None
    # Deleted, and new text put in its place that still reads much like it: the
    # alignment chose "delete and insert" where a reader may see an edit. Arguable.
    low, high = max(0, new_start - 2 * size), min(len(new), new_end + 2 * size)
    for passage in closest_passages(new[low:high], exact, limit=1):
        if kept_share(exact, passage.exact) > KEPT_CHANGED:
            return UNCLEAR, None
    # Or something much like it inserted elsewhere: moved and edited. Arguable too.
    for passage in closest_passages(new, exact, limit=3):
        inserted = alignment.inserted(passage.start, passage.end)
        if inserted and kept_share(exact, passage.exact) > KEPT_CHANGED:
            return UNCLEAR, None
    # A paragraph moved and edited too: arguable, not scored.
    paragraph_start = old.rfind("\n\n", 0, start) + 1
    paragraph_end = old.find("\n\n", end)
    paragraph = old[paragraph_start : paragraph_end if paragraph_end != -1 else len(old)]
    inserted = alignment.new_lines_inserted()
    if inserted and process.extractOne(paragraph, inserted, scorer=fuzz.ratio, score_cutoff=75):
        return UNCLEAR, None
    return GONE, None


# --------------------------------------------------------------------------------------
# Picking quotations
# --------------------------------------------------------------------------------------

_BOUNDARY = re.compile(r"(?<=[.!?;:,])[\s]+|\n\s*\n\s*|^\s*", re.MULTILINE)


def boundaries(text: str) -> list[int]:
    """Offsets where a sentence or clause starts (after punctuation and white space)."""
    return sorted({match.end() for match in _BOUNDARY.finditer(text)})


def in_code(text: str, start: int, end: int) -> bool:
    """Inside a fenced code block, or holding markup a quotation would not span."""
    if text.count("```", 0, start) % 2:
        return True
    span = text[start:end]
    return "```" in span or "\n\n" in span or "{{#" in span or "|" in span


def span_from(text: str, bounds: list[int], index: int, rng) -> tuple[int, int] | None:
    """A quotation starting at ``bounds[index]`` and ending, one to three clauses later,
    at a clause's final punctuation (without the white space after it)."""
    start = bounds[index]
    ends = bounds[index + 1 : index + 4]
    if not ends:
        return None
    stop = ends[rng.randrange(len(ends))]
    end = stop
    while end > start and text[end - 1].isspace():
        end -= 1
    if not MIN_QUOTE <= end - start <= MAX_QUOTE or in_code(text, start, end):
        return None
    if not any(c.isalpha() for c in text[start:end]):
        return None
    return start, end


def pick(text: str, alignment: Alignment, rng, random_count: int, touched_count: int):
    """Random quotations, and quotations overlapping the changed parts (else almost all of
    them would be trivially unchanged)."""
    bounds = boundaries(text)
    if len(bounds) < 4:
        return []
    spans = set()
    for _ in range(random_count * 4):
        if len(spans) >= random_count:
            break
        span = span_from(text, bounds, rng.randrange(len(bounds) - 1), rng)
        if span:
            spans.add(span)
    edits = [op for op in alignment.ops if op[0] != "equal"]
    touched = set()
    for _ in range(touched_count * 6):
        if not edits or len(touched) >= touched_count:
            break
        _tag, i1, i2, _j1, _j2 = edits[rng.randrange(len(edits))]
        at = rng.randrange(i1, i2) if i2 > i1 else i1
        index = max(0, min(len(bounds) - 2, _bisect_right(bounds, at) - 1 - rng.randrange(3)))
        span = span_from(text, bounds, index, rng)
        if span and span[0] <= at < span[1] + 1:
            touched.add(span)
    return sorted(spans | touched)


def _bisect_right(values, x):
    low, high = 0, len(values)
    while low < high:
        middle = (low + high) // 2
        if x < values[middle]:
            high = middle
        else:
            low = middle + 1
    return low


def quotations(repo, pathspecs, rng, wanted, pairs_limit=None):
    """Yield ``(old_text, new_text, quotations)`` per pair of versions, picking until
    ``wanted`` (a dict label -> count) is reached for every scored label. Pairs are
    visited in a seeded random order."""
    pairs = modified_files(repo, pathspecs)
    rng.shuffle(pairs)
    if pairs_limit:
        pairs = pairs[:pairs_limit]
    counts = dict.fromkeys([SURVIVED, CHANGED, GONE, UNCLEAR], 0)
    blobs = Blobs(repo)
    try:
        for index, (commit, path) in enumerate(pairs):
            if all(counts[k] >= n for k, n in wanted.items()):
                break
            old = blobs.read(f"{commit}^:{path}")
            new = blobs.read(f"{commit}:{path}")
            if not old or not new or old == new or len(old) > 200_000:
                continue
            alignment = Alignment(old, new)
            chosen = []
            for start, end in pick(old, alignment, rng, random_count=2, touched_count=4):
                kind, span = label(alignment, start, end)
                if kind in wanted and counts[kind] >= wanted[kind]:
                    continue
                counts[kind] += 1
                chosen.append(
                    Quotation(
                        path,
                        commit,
                        index,
                        start,
                        end,
                        old[start:end],
                        old[max(0, start - CONTEXT_LENGTH) : start],
                        old[end : end + CONTEXT_LENGTH],
                        kind,
                        span,
                    )
                )
            if chosen:
                yield old, new, chosen
    finally:
        blobs.close()
