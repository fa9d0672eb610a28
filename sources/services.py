"""Writes for the sources app. Each function records what it did in the audit trail."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Exists, Max, OuterRef
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from factcheck import search
from factcheck.audit import acting_user, record
from factcheck.exceptions import NotAllowed
from factcheck.languages import BY_CODE, detect_language
from sources import anchoring
from sources.extraction import UnsupportedUpload, detect_media_type
from sources.highlighting import part_starts
from sources.models import (
    UNREADABLE,
    AnchoringStatus,
    ExtractionStatus,
    MediaType,
    Quotation,
    Reanchoring,
    Source,
    SourceVersion,
)
from sources.signals import quotations_reanchored, reanchoring_confirmed, source_retitled

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.db.models import QuerySet

    from sources.extraction import ExtractionResult


@transaction.atomic
def source_create(
    *,
    actor: User | None,
    title: str,
    content: bytes | None = None,
    filename: str = "",
    **fields: Any,
) -> Source:
    """
    Register a source (its metadata, ``fields``); with ``content``, the bytes of
    its first version too (``source_version_upload``): both or neither are stored.
    """
    source = Source(title=title, created_by=acting_user(actor), **fields)
    source.full_clean()
    source.save()
    record(actor=actor, action="source.create", target=source, changes={"title": title})
    if content is not None:
        source_version_upload(source=source, content=content, filename=filename, actor=actor)
    return source


@transaction.atomic
def source_update(*, source: Source, actor: User | None, **fields: Any) -> Source:
    """
    Change a source's metadata (never its versions). A new title is part of
    what reviewers signed off (each quotation is shown with its source's
    title): ``source_retitled`` is sent, in the same transaction, so that the
    claims quoting the source that are still in the workflow go back to review
    (claims/receivers.py); published claims keep their sign-offs.
    """
    changes = {}
    for name, value in fields.items():
        old = getattr(source, name)
        if old != value:
            changes[name] = [old, value]
            setattr(source, name, value)
    if changes:
        source.full_clean()
        source.save()
        record(actor=actor, action="source.update", target=source, changes=changes)
    if "title" in changes:
        source_retitled.send(
            sender=Source, source=source, old_title=changes["title"][0], actor=actor
        )
    return source


def display_filename(filename: str | None) -> str:
    """
    The uploader's file name as kept for display (``original_filename``): its last path
    part only (no ``../`` or ``C:\\`` parts), without control, format (bidi override,
    zero-width) or other invisible characters, other white space as plain spaces, in
    NFC, at most 255 characters (the extension kept). Never used as a path: files are
    stored under a name made from their digest.
    """
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    kept = []
    for char in unicodedata.normalize("NFC", name):
        category = unicodedata.category(char)
        if category[0] == "Z":
            kept.append(" ")
        elif category[0] != "C":
            kept.append(char)
    name = " ".join("".join(kept).split())
    if name in {".", ".."}:
        return ""
    if len(name) > 255:
        stem, dot, extension = name.rpartition(".")
        if dot and stem and len(extension) <= 16:
            name = stem[: 255 - len(extension) - 1] + "." + extension
        else:
            name = name[:255]
    return name


def too_large_message(size: int, limit: int) -> str:
    """
    Why a file of ``size`` bytes is refused: in megabytes, or in bytes where
    the two round to the same figure (one byte over would read "25.0 MB, over
    the limit of 25.0 MB").
    """
    if filesizeformat(size) == filesizeformat(limit):
        return _(
            "The file is %(size)s bytes, over the limit of %(limit)s bytes (%(limit_size)s)."
        ) % {
            "size": number_format(size, force_grouping=True),
            "limit": number_format(limit, force_grouping=True),
            "limit_size": filesizeformat(limit),
        }
    return _("The file is %(size)s, over the limit of %(limit)s.") % {
        "size": filesizeformat(size),
        "limit": filesizeformat(limit),
    }


def check_upload(content: bytes, filename: str = "") -> str:
    """
    The media type of uploaded ``content``, decided from the bytes themselves;
    ValidationError naming the reason when it cannot be accepted: empty, over
    the size limit, of another type, or not decodable.
    """
    limit = settings.SOURCE_UPLOAD_MAX_BYTES
    if len(content) > limit:
        raise ValidationError(too_large_message(len(content), limit), code="too_large")
    try:
        return detect_media_type(content, filename)
    except UnsupportedUpload as error:
        # The sentence and its phrases ("a PNG image") are catalogued; numbers stay numbers.
        params = {
            name: _(value) if isinstance(value, str) else number_format(value, force_grouping=True)
            for name, value in error.params.items()
        }
        raise ValidationError(_(error.message) % params, code="unsupported") from error


@transaction.atomic
def source_version_upload(
    *, source: Source, content: bytes, filename: str, actor: User | None
) -> tuple[SourceVersion, bool]:
    """
    Store uploaded ``content`` as the next version of ``source`` and queue its
    text extraction. Returns ``(version, created)``: the bytes of the latest
    version again (same SHA-256) give back that version instead of a duplicate.
    The bytes of an earlier version are a new version: the source went back to
    them (an edit undone), and its record must say so.
    Raises ValidationError for content that cannot be accepted.
    """
    media_type = check_upload(content, filename)
    # Locked before looking: two uploads of the same bytes must not both find them new.
    _lock_source(source)
    latest = _latest_with_same_bytes(source, content)
    if latest is not None:
        return latest, False
    version = _store_version(
        source=source, content=content, media_type=media_type, filename=filename, actor=actor
    )
    # Enqueued in the same transaction: with the database backend the worker
    # cannot see the task before the version it names is committed.
    from sources.tasks import extract_source_version

    extract_source_version.enqueue(version.pk)
    return version, True


@transaction.atomic
def source_version_create_from_text(
    *,
    source: Source,
    text: str,
    actor: User | None,
    media_type: str = MediaType.TEXT,
    original_filename: str = "",
    language: str | None = None,
) -> tuple[SourceVersion, bool]:
    """
    Store ``text`` as a new version of ``source`` whose extracted text is the text
    itself, ready to quote at once (used for seeding); quotations of the previous
    version are carried over as after an extraction. Its ``language`` is the one
    given ("" for not known), else the one detected in the text, as extraction
    does. Returns ``(version, created)``; the latest version's text again gives
    back that version.
    """
    if language is not None:
        check_language(language)
    content = text.encode("utf-8")
    _lock_source(source)
    latest = _latest_with_same_bytes(source, content)
    if latest is not None:
        return latest, False
    if not text.strip():
        raise ValidationError(_("The text is empty: there is nothing to quote."), code="empty")
    version = _store_version(
        source=source,
        content=content,
        media_type=media_type,
        filename=original_filename,
        actor=actor,
        extracted_text=text,
        extraction_status=ExtractionStatus.READY,
        extractor="utf-8",
        extracted_at=timezone.now(),
        language=detect_language(text) if language is None else language,
    )
    version_reanchor(version=version)
    return version, True


def _lock_source(source: Source) -> None:
    """Lock ``source``'s row until the transaction ends: one upload at a time takes a number."""
    Source.objects.select_for_update().filter(pk=source.pk).first()


def _latest_with_same_bytes(source: Source, content: bytes) -> SourceVersion | None:
    """``source``'s latest version if ``content`` is its bytes, else None."""
    latest = source.versions.order_by("-number").first()
    return latest if latest is not None and latest.sha256 == SourceVersion.digest(content) else None


def _store_version(
    *,
    source: Source,
    content: bytes,
    media_type: str,
    filename: str,
    actor: User | None,
    **extraction: Any,
) -> SourceVersion:
    # Two uploads must not both take the next number.
    _lock_source(source)
    number = (source.versions.aggregate(last=Max("number"))["last"] or 0) + 1
    version = SourceVersion(
        source=source,
        number=number,
        media_type=media_type,
        byte_size=len(content),
        sha256=SourceVersion.digest(content),
        original_filename=display_filename(filename),
        uploaded_by=acting_user(actor),
        **extraction,
    )
    # The storage name comes from the digest (see version_upload_to), never the user;
    # bytes the source had before are already stored under it.
    earlier = source.versions.filter(sha256=version.sha256).exclude(file="").first()
    if earlier is not None and earlier.file.storage.exists(earlier.file.name):
        version.file.name = earlier.file.name
    else:
        version.file.save("upload", ContentFile(content), save=False)
    version.save()
    if version.is_ready:
        index_version_text(version)
    record(
        actor=actor,
        action="sourceversion.create",
        target=version,
        changes={"sha256": version.sha256, "byte_size": len(content), "media_type": media_type},
    )
    return version


def find_span(text: str, exact: str, occurrence: int = 1) -> tuple[int, int]:
    """
    The ``(start, end)`` of the ``occurrence``-th (1-based) appearance of
    ``exact`` in ``text``; ValidationError saying so when it is not there.
    """
    start = -1
    for _time in range(occurrence):
        start = text.find(exact, start + 1)
        if start == -1:
            if occurrence == 1:
                message = _("The quotation “%(exact)s” does not appear in the source text.")
            else:
                message = ngettext(
                    "The quotation “%(exact)s” does not appear in the source text "
                    "%(occurrence)s time.",
                    "The quotation “%(exact)s” does not appear in the source text "
                    "%(occurrence)s times.",
                    occurrence,
                )
            raise ValidationError(
                message,
                code="quotation_not_found",
                params={"exact": exact[:80], "occurrence": occurrence},
            )
    return start, start + len(exact)


@transaction.atomic
def quotation_create(
    *, version: SourceVersion, start: int, end: int, actor: User | None
) -> tuple[Quotation, bool]:
    """
    Quote ``version``'s text from ``start`` to ``end``. The same span again gives
    back the existing quotation. Returns ``(quotation, created)``. A new quotation
    of a PDF, or of a scan read by OCR, is queued to be drawn on its page
    (``sources.page_images``).
    """
    existing = Quotation.objects.filter(version=version, start=start, end=end).first()
    if existing:
        return existing, False
    quotation = Quotation.for_span(version, start, end, created_by=acting_user(actor))
    quotation.save()
    record(
        actor=actor,
        action="quotation.create",
        target=quotation,
        changes={"start": start, "end": end, "exact": quotation.exact},
    )
    from sources.page_images import drawable

    if drawable(version):
        # Enqueued in the same transaction: with the database backend the worker
        # cannot see the task before the quotation it names is committed.
        from sources.tasks import draw_quotation_pages

        draw_quotation_pages.enqueue(quotation.pk)
    return quotation, True


def _same_words(one: str, other: str) -> bool:
    return " ".join(one.split()) == " ".join(other.split())


def quotation_create_from_selection(
    *, version: SourceVersion, start: int, end: int, selected_text: str, actor: User | None
) -> tuple[Quotation, bool]:
    """
    Quote what a reader selected: ``start`` and ``end`` are code-point offsets
    into the version's text, ``selected_text`` what the browser says was
    selected. Both must agree with the stored text (white space aside, since a
    browser renders paragraph breaks its own way) or the quotation is refused.
    A version replaced since the page was opened, or while a newer one is being
    read, is refused too (``superseded``): a reader quotes what the source says
    now, and the next version's text may differ. A newer upload whose text could
    not be read replaces nothing.
    """
    if not version.is_ready:
        raise ValidationError(_("This version's text is not ready to quote yet."), code="not_ready")
    newer = (
        SourceVersion.objects.filter(source_id=version.source_id, number__gt=version.number)
        .exclude(extraction_status__in=UNREADABLE)
        .order_by("-number")
        .values_list("number", "extraction_status")
        .first()
    )
    if newer and newer[1] == ExtractionStatus.READY:
        raise ValidationError(
            _(
                "Version %(number)s was replaced by version %(newer)s after this page was "
                "opened, so nothing was quoted. The page now shows version %(newer)s: select "
                "the passage there again."
            ),
            code="superseded",
            params={"number": version.number, "newer": newer[0]},
        )
    if newer:
        raise ValidationError(
            _(
                "Version %(newer)s of this source is being read now, so nothing was quoted: "
                "quote once its text is shown, so that the quotation is of what the source "
                "says now."
            ),
            code="superseded",
            params={"newer": newer[0]},
        )
    text = version.extracted_text
    if not (0 <= start < end <= len(text)):
        raise ValidationError(
            ngettext(
                "The selection %(start)s–%(end)s is outside the text (%(length)s character).",
                "The selection %(start)s–%(end)s is outside the text (%(length)s characters).",
                len(text),
            ),
            code="offsets_out_of_range",
            params={"start": start, "end": end, "length": len(text)},
        )
    stored = text[start:end]
    if not stored.strip():
        raise ValidationError(_("The selection is only white space."), code="blank")
    if not _same_words(stored, selected_text):
        raise ValidationError(
            _(
                "The selection does not match the stored text at %(start)s–%(end)s: the text "
                "there reads “%(stored)s”. Reload the page and select again."
            ),
            code="selection_mismatch",
            params={"start": start, "end": end, "stored": stored[:80]},
        )
    # A selection often catches a stray space at either end; quote the words.
    start += len(stored) - len(stored.lstrip())
    end -= len(stored) - len(stored.rstrip())
    return quotation_create(version=version, start=start, end=end, actor=actor)


@transaction.atomic
def version_extraction_finish(
    *,
    version: SourceVersion,
    result: ExtractionResult | None = None,
    status: str,
    error: str = "",
) -> SourceVersion:
    """
    Record the outcome of extracting ``version``'s text: the text itself when
    ``status`` is ready, else the reason it failed. Then carry the quotations of
    the previous version over to this one.
    """
    version.extraction_status = status
    version.extraction_error = error
    version.extracted_at = timezone.now()
    if result is not None:
        version.extracted_text = result.text
        version.page_offsets = result.page_offsets
        version.sections = result.sections
        version.extractor = result.extractor
        version.ocr_confidence = result.ocr_confidence
        version.ocr_layout = result.ocr_layout
    # An editor may have named the language while the text was being read: theirs stands.
    version.language = (
        SourceVersion.objects.filter(pk=version.pk).values_list("language", flat=True).first()
        or version.language
    )
    if version.is_ready and not version.language:
        version.language = detect_language(version.extracted_text)
    version.save()
    record(
        actor=None,
        action=f"sourceversion.extraction_{status}",
        target=version,
        changes={"error": error}
        if error
        else {"characters": len(version.extracted_text), "language": version.language},
    )
    if version.is_ready:
        index_version_text(version)
        version_reanchor(version=version)
    return version


def _passage_location(version: SourceVersion, start: int, end: int) -> str:
    """Where a searchable passage is: its pages (the match may be on any of them), or offsets."""
    # Not translated: the search index stores it, and is read in every language.
    if not version.page_offsets:
        return f"version {version.number}, characters {start}–{end}"
    first, last = version.page_at(start), version.page_at(max(start, end - 1))
    pages = f"p. {first}" if first == last else f"pp. {first}–{last}"
    return f"version {version.number}, {pages}"


def index_version_text(version: SourceVersion) -> None:
    """
    Make ``version``'s text the searchable text of its source (the latest version
    wins), in the version's language.
    """
    source = version.source
    search.replace_entries(
        kind="source",
        object_id=version.source_id,
        language=version.language,
        passages=[
            search.Passage(
                title=str(version.source),
                body=passage,
                url=source.text_url(start),
                location=_passage_location(version, start, start + len(passage)),
            )
            for start, passage in search.chunk_text(
                version.extracted_text,
                breaks=part_starts(version.extracted_text, version.page_offsets or ()),
            )
        ],
    )


def check_language(language: str) -> None:
    """ValidationError unless ``language`` is a code of factcheck.languages or "" (not known)."""
    if language and language not in BY_CODE:
        raise ValidationError(
            _("“%(language)s” is not a language this desk knows: choose one from the list.")
            % {"language": language[:20]},
            code="unknown_language",
        )


@transaction.atomic
def version_set_language(
    *, version: SourceVersion, language: str, actor: User | None
) -> SourceVersion:
    """
    Say which language ``version``'s text is written in (a code of
    factcheck.languages, or "" for not known), putting right what detection
    guessed. The source's current version is searched in its language: its
    passages are indexed again, in the new one. Only who may change the
    source may do it (NotAllowed); an unknown code is a ValidationError, and
    nothing changes.
    """
    if actor is not None and not actor.has_perm("sources.change_source"):
        raise NotAllowed(_("Only an editor can change a source's language."), code="not_editor")
    check_language(language)
    _lock_source(version.source)
    old = SourceVersion.objects.filter(pk=version.pk).values_list("language", flat=True).get()
    version.language = language
    if old == language:
        return version
    SourceVersion.objects.filter(pk=version.pk).update(language=language)
    # The public pages that quote the source name its last change in their ETags.
    Source.objects.filter(pk=version.source_id).update(updated_at=timezone.now())
    record(
        actor=actor,
        action="sourceversion.language",
        target=version,
        changes={"language": [old, language]},
    )
    current = SourceVersion.objects.filter(source_id=version.source_id).current_first().first()
    if version.is_ready and current is not None and current.pk == version.pk:
        index_version_text(version)
    return version


def previous_ready_version(version: SourceVersion) -> SourceVersion | None:
    return (
        version.source.versions.filter(
            number__lt=version.number, extraction_status=ExtractionStatus.READY
        )
        .order_by("-number")
        .first()
    )


def stranded_quotations(previous: SourceVersion) -> QuerySet[Quotation]:
    """
    The quotations of ``previous``'s source that an earlier version orphaned
    and that no version since has found again: left behind in versions older
    than ``previous`` (the version before a new one), with every claim that
    relies on them flagged.
    """
    return (
        Quotation.objects.filter(
            version__source_id=previous.source_id,
            version__number__lt=previous.number,
            reanchorings__status=AnchoringStatus.ORPHANED,
        )
        .exclude(
            Exists(
                Reanchoring.objects.filter(quotation_id=OuterRef("pk")).exclude(
                    status=AnchoringStatus.ORPHANED
                )
            )
        )
        .distinct()
    )


@transaction.atomic
def version_reanchor(*, version: SourceVersion) -> list[Reanchoring]:
    """
    Carry every quotation of the source's previous ready version to ``version``:
    an exact match (prefix and suffix decide between repeats) becomes a new
    quotation with the same words, an approximate match a new quotation with the
    new words awaiting a person's confirmation, and text that is gone is
    orphaned. A quotation an earlier version orphaned (``stranded_quotations``)
    is looked for too, in its own version's text: text that came back is carried
    over as any other, and text still gone is left as it was (its claims are
    flagged already). Sends ``quotations_reanchored`` so that claims follow
    their quotations, or are flagged. Safe to run twice.
    """
    previous = previous_ready_version(version)
    if previous is None or not version.is_ready:
        return []
    already = set(version.reanchorings.values_list("quotation_id", flat=True))
    carried = [
        (quotation, previous)
        for quotation in previous.quotations.exclude(pk__in=already).order_by("start", "end")
    ]
    stranded = list(
        stranded_quotations(previous)
        .exclude(pk__in=already)
        .order_by("version__number", "start", "end")
    )
    # Each older version's text read once, however many of its quotations are looked for.
    older = SourceVersion.objects.in_bulk({quotation.version_id for quotation in stranded})
    carried += [(quotation, older[quotation.version_id]) for quotation in stranded]
    reanchorings = []
    for quotation, quoted_in in carried:
        outcome = anchoring.reanchor(
            quoted_in.extracted_text,
            version.extracted_text,
            quotation.start,
            quotation.end,
            quotation.exact,
            quotation.prefix,
            quotation.suffix,
        )
        new_quotation = None
        if outcome.status != AnchoringStatus.ORPHANED:
            new_quotation, _created = quotation_create(
                version=version, start=outcome.start, end=outcome.end, actor=None
            )
        elif quoted_in != previous:
            continue  # still gone: nothing new to say
        reanchorings.append(
            Reanchoring.objects.create(
                quotation=quotation,
                version=version,
                status=outcome.status,
                new_quotation=new_quotation,
            )
        )
    if reanchorings:
        counts = {}
        for reanchoring in reanchorings:
            # Text an older version had lost is counted apart from what was carried.
            from_previous = reanchoring.quotation.version_id == previous.pk
            kind = reanchoring.status if from_previous else "found_again"
            counts[kind] = counts.get(kind, 0) + 1
        record(actor=None, action="sourceversion.reanchor", target=version, changes=counts)
        quotations_reanchored.send(sender=Reanchoring, version=version, reanchorings=reanchorings)
    return reanchorings


@transaction.atomic
def reanchoring_confirm(*, reanchoring: Reanchoring, actor: User | None) -> Reanchoring:
    """
    A person confirms that a changed quotation's new words are the passage that
    was quoted, so that claims may rely on the new quotation.
    """
    if reanchoring.status != AnchoringStatus.CHANGED:
        raise ValidationError(
            _("Only a quotation whose text changed needs confirming."), code="not_changed"
        )
    if reanchoring.confirmed_at is not None:
        return reanchoring
    reanchoring.confirmed_by = acting_user(actor)
    reanchoring.confirmed_at = timezone.now()
    reanchoring.save(update_fields=["confirmed_by", "confirmed_at"])
    record(
        actor=actor,
        action="reanchoring.confirm",
        target=reanchoring,
        changes={
            "old_exact": reanchoring.quotation.exact,
            "new_exact": reanchoring.new_quotation.exact,
        },
    )
    reanchoring_confirmed.send(sender=Reanchoring, reanchoring=reanchoring, actor=actor)
    return reanchoring
