"""Writes for the sources app. Each function records what it did in the audit trail."""

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max

from factcheck.audit import acting_user, record
from sources.models import ExtractionStatus, MediaType, Quotation, Source, SourceVersion


@transaction.atomic
def source_create(*, actor, title, **fields):
    """Register a source (its metadata; documents come as versions)."""
    source = Source(title=title, created_by=acting_user(actor), **fields)
    source.full_clean()
    source.save()
    record(actor=actor, action="source.create", target=source, changes={"title": title})
    return source


@transaction.atomic
def source_version_create_from_text(
    *, source, text, actor, media_type=MediaType.TEXT, original_filename=""
):
    """
    Store ``text`` as a new version of ``source`` whose extracted text is the text
    itself, ready to quote at once. Returns ``(version, created)``: the same text
    again gives back the existing version instead of a duplicate.
    """
    content = text.encode("utf-8")
    sha256 = SourceVersion.digest(content)
    existing = source.versions.filter(sha256=sha256).first()
    if existing:
        return existing, False
    if not text.strip():
        raise ValidationError("The text is empty: there is nothing to quote.", code="empty")

    # Lock the source so that two uploads cannot both take the next number.
    Source.objects.select_for_update().filter(pk=source.pk).first()
    number = (source.versions.aggregate(last=Max("number"))["last"] or 0) + 1
    version = SourceVersion(
        source=source,
        number=number,
        media_type=media_type,
        byte_size=len(content),
        sha256=sha256,
        original_filename=original_filename[:255],
        extracted_text=text,
        extraction_status=ExtractionStatus.READY,
        uploaded_by=acting_user(actor),
    )
    version.file.save(original_filename or "pasted.txt", ContentFile(content), save=False)
    version.save()
    record(
        actor=actor,
        action="sourceversion.create",
        target=version,
        changes={"sha256": sha256, "byte_size": len(content), "media_type": media_type},
    )
    return version, True


def find_span(text, exact, occurrence=1):
    """
    The ``(start, end)`` of the ``occurrence``-th (1-based) appearance of
    ``exact`` in ``text``; ValidationError saying so when it is not there.
    """
    start = -1
    for _ in range(occurrence):
        start = text.find(exact, start + 1)
        if start == -1:
            times = "" if occurrence == 1 else f" {occurrence} times"
            raise ValidationError(
                f"The quotation “{exact[:80]}” does not appear in the source text{times}.",
                code="quotation_not_found",
            )
    return start, start + len(exact)


@transaction.atomic
def quotation_create(*, version, start, end, actor):
    """
    Quote ``version``'s text from ``start`` to ``end``. The same span again gives
    back the existing quotation. Returns ``(quotation, created)``.
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
    return quotation, True
