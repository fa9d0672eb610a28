"""Backup and restore: the database and the uploaded files come back exactly as they were."""

import hashlib
import json
import tarfile

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from bench.scale import ScaleOptions, make_scale_dataset
from claims.corrections import verify_chain
from claims.models import Claim
from factcheck.backup import MANIFEST, BackupError, create_backup, restore_backup
from sources.models import Source, SourceVersion
from tests.factories import EditorFactory, SourceFactory, SourceVersionFactory

# The restore replaces the database under the test's feet: no wrapping transaction.
pytestmark = pytest.mark.django_db(transaction=True)

SMALL = ScaleOptions(
    cases=2,
    claims=12,
    sources=6,
    users=6,
    quotations=30,
    corrections=8,
    large_sources=1,
    min_kb=1,
    max_kb=3,
    large_kb=16,
)


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def row_counts():
    with connection.cursor() as cursor:
        tables = connection.introspection.django_table_names(only_existing=True)
        counts = {}
        for table in sorted(tables):
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def file_hashes(root):
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in root.rglob("*")
        if path.is_file()
    }


def test_a_populated_site_round_trips_through_backup_and_restore(media_root, tmp_path):
    make_scale_dataset(SMALL)
    counts, hashes = row_counts(), file_hashes(media_root)
    assert counts["claims_claim"] == SMALL.claims and len(hashes) == SMALL.sources

    call_command("backup", str(tmp_path / "backup"))

    # Afterwards the site changes: a new source, a lost file, a deleted claim.
    SourceVersionFactory(text="Written after the backup.")
    next(media_root.rglob("*.txt")).unlink()
    Claim.objects.filter(status="draft", corrections=None).delete()
    assert row_counts() != counts

    call_command("restore", str(tmp_path / "backup"), "--noinput")

    restored = row_counts()
    assert restored == counts
    assert {name: digest for name, digest in file_hashes(media_root).items() if name in hashes} == (
        hashes
    )
    assert verify_chain().ok
    for version in SourceVersion.objects.all():
        with version.file.open("rb") as stored:
            assert hashlib.sha256(stored.read()).hexdigest() == version.sha256


def test_the_manifest_lists_every_file_and_table(media_root, tmp_path):
    SourceVersionFactory(text="One small source.")

    manifest = create_backup(tmp_path / "backup")

    assert manifest["database"]["vendor"] == connection.vendor
    assert manifest["media"]["files"] == file_hashes(media_root)
    assert manifest["database"]["rows"]["sources_sourceversion"] == 1
    with tarfile.open(tmp_path / "backup" / "media.tar") as archive:
        assert sorted(archive.getnames()) == sorted(manifest["media"]["files"])
    assert json.loads((tmp_path / "backup" / MANIFEST).read_text()) == manifest


def test_a_backup_whose_archive_changed_is_refused_and_nothing_is_touched(media_root, tmp_path):
    SourceVersionFactory(text="Kept as it is.")
    create_backup(tmp_path / "backup")
    source = Source.objects.create(title="Made after the backup")
    archive = tmp_path / "backup" / "media.tar"
    data = bytearray(archive.read_bytes())
    data[700] ^= 0xFF
    archive.write_bytes(bytes(data))

    with pytest.raises(BackupError, match=r"media\.tar does not match its SHA-256"):
        restore_backup(tmp_path / "backup")

    assert Source.objects.filter(pk=source.pk).exists()


def test_a_file_altered_inside_the_archive_is_refused(media_root, tmp_path):
    version = SourceVersionFactory(text="The original words.")
    manifest = create_backup(tmp_path / "backup")
    # Rewrite the archive with other bytes under the same name, and fix its own hash,
    # as someone editing the backup by hand would.
    forged = tmp_path / "forged.txt"
    forged.write_text("Other words.")
    archive_path = tmp_path / "backup" / "media.tar"
    with tarfile.open(archive_path, "w") as archive:
        archive.add(forged, arcname=version.file.name)
    manifest["media"]["sha256"] = hashlib.sha256(archive_path.read_bytes()).hexdigest()
    (tmp_path / "backup" / MANIFEST).write_text(json.dumps(manifest))

    with pytest.raises(BackupError, match="does not match its SHA-256"):
        restore_backup(tmp_path / "backup")
    with version.file.open("rb") as stored:
        assert stored.read() == b"The original words."


def test_backing_up_twice_into_one_directory_is_refused(media_root, tmp_path):
    call_command("backup", str(tmp_path / "backup"))

    with pytest.raises(CommandError, match="already holds a backup"):
        call_command("backup", str(tmp_path / "backup"))


def test_a_text_uploaded_after_a_restore_is_shown_not_one_rendered_under_its_id(
    media_root, tmp_path
):
    source = SourceFactory()
    browser = Client()
    browser.force_login(EditorFactory())
    call_command("backup", str(tmp_path / "backup"))
    before = SourceVersionFactory(source=source, text="Words read before the restore.")
    assert "Words read before the restore." in browser.get(source.get_absolute_url()).text

    call_command("restore", str(tmp_path / "backup"), "--noinput")
    after = SourceVersionFactory(source=source, text="Words uploaded after the restore.")

    assert after.pk == before.pk  # the restored database hands the id out again
    page = browser.get(source.get_absolute_url()).text
    assert "Words uploaded after the restore." in page
    assert "Words read before the restore." not in page
