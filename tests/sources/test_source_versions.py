import hashlib

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from claims.selectors import case_with_piece_in_reach
from sources.models import ExtractionStatus, ImmutableRecordError, SourceVersion
from sources.services import source_version_create_from_text
from tests.factories import (
    SAMPLE_TEXT,
    CaseFactory,
    PieceUnderCheckFactory,
    SourceFactory,
    SourceVersionFactory,
)

pytestmark = pytest.mark.django_db


def test_a_version_stores_the_sha256_and_size_of_its_bytes():
    version = SourceVersionFactory()

    content = SAMPLE_TEXT.encode("utf-8")
    assert version.sha256 == hashlib.sha256(content).hexdigest()
    assert version.byte_size == len(content)
    with version.file.open("rb") as stored:
        assert hashlib.sha256(stored.read()).hexdigest() == version.sha256


def test_the_stored_file_name_is_ours_not_the_uploaders():
    source = SourceFactory()
    version, _created = source_version_create_from_text(
        source=source, text="Some text.", actor=None, original_filename="../../etc/passwd"
    )

    assert version.file.name == f"sources/{version.sha256[:2]}/{version.sha256}.txt"
    assert version.original_filename == "passwd"  # the last path part, for display only


def test_the_same_text_again_leads_to_the_existing_version():
    version = SourceVersionFactory()

    again, created = source_version_create_from_text(
        source=version.source, text=SAMPLE_TEXT, actor=None
    )

    assert not created
    assert again == version
    assert version.source.versions.count() == 1


def test_new_text_for_a_source_becomes_its_next_version():
    version = SourceVersionFactory()

    second, created = source_version_create_from_text(
        source=version.source, text=SAMPLE_TEXT + "\nA correction was appended.", actor=None
    )

    assert created
    assert (version.number, second.number) == (1, 2)


@pytest.mark.parametrize(
    "field, value",
    [("sha256", "0" * 64), ("byte_size", 1), ("media_type", "text/html"), ("number", 7)],
)
def test_a_saved_version_cannot_be_changed_through_the_model(field, value):
    version = SourceVersionFactory()
    setattr(version, field, value)

    with pytest.raises(ImmutableRecordError, match=field):
        version.save()


@pytest.mark.parametrize(
    "changes",
    [{"sha256": "0" * 64}, {"file": "sources/elsewhere.txt"}, {"extracted_text": "rewritten"}],
)
def test_the_database_refuses_to_change_a_saved_version(changes):
    version = SourceVersionFactory()

    with pytest.raises(Exception, match="cannot be changed"), transaction.atomic():
        SourceVersion.objects.filter(pk=version.pk).update(**changes)

    version.refresh_from_db()
    assert version.extracted_text == SAMPLE_TEXT


def test_a_version_cannot_be_deleted():
    version = SourceVersionFactory()

    with pytest.raises(ImmutableRecordError):
        version.delete()
    assert SourceVersion.objects.filter(pk=version.pk).exists()


def test_the_database_refuses_a_second_version_with_the_same_number():
    # The same bytes may come again (a source put back as it was), as a new number.
    version = SourceVersionFactory()
    duplicate = SourceVersion(
        source=version.source,
        number=1,
        file="sources/duplicate.txt",
        media_type=version.media_type,
        byte_size=version.byte_size,
        sha256=version.sha256,
    )

    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()


def test_the_case_page_reads_the_current_version_and_leaves_its_text(editor):
    case = CaseFactory(source_under_check=PieceUnderCheckFactory())
    assert case_with_piece_in_reach(case.slug, editor)[1] is None  # nothing uploaded yet

    readable = SourceVersionFactory(source=case.source_under_check, text="Growth was 3 percent.")
    unreadable = SourceVersionFactory(source=case.source_under_check, text="Growth was 4 percent.")
    SourceVersion.objects.filter(pk=unreadable.pk).update(extraction_status=ExtractionStatus.FAILED)

    with CaptureQueriesContext(connection) as queries:
        found, version = case_with_piece_in_reach(case.slug, editor)

    assert len(queries) == 2  # the case, then its piece's current version
    assert found == case
    # A version whose text could not be read is not the current one (current_first).
    assert version == readable == case.source_under_check.latest_version
    assert version.number == 1
    assert "extracted_text" in version.get_deferred_fields()
    assert version.extracted_text == "Growth was 3 percent."


def test_a_newer_version_still_being_read_is_the_case_pages_current_one(editor):
    case = CaseFactory(source_under_check=PieceUnderCheckFactory())
    SourceVersionFactory(source=case.source_under_check, text="Growth was 3 percent.")
    newer = SourceVersionFactory(source=case.source_under_check, text="Growth was 4 percent.")
    SourceVersion.objects.filter(pk=newer.pk).update(extraction_status=ExtractionStatus.PENDING)

    version = case_with_piece_in_reach(case.slug, editor)[1]

    assert version == newer == case.source_under_check.latest_version
    assert not version.is_ready
