"""
Backup and restore of the whole site: the database and the uploaded files.

A backup is a directory holding

- the database: ``database.sqlite3``, a consistent copy made with SQLite's
  online backup API, or ``database.dump``, ``pg_dump``'s custom format for
  PostgreSQL;
- ``media.tar``: every file under ``MEDIA_ROOT``;
- ``manifest.json``: the SHA-256 of both, the SHA-256 of every uploaded file,
  and the number of rows in every table as the dump holds them.

``restore_backup`` checks the database file's and the archive's hashes before
it touches anything, then replaces the database, unpacks the files into
``MEDIA_ROOT``, and checks every file's hash, every source version's file
against the digest the database records, and every table's row count. Any
mismatch raises ``BackupError``.

Uploads are content-addressed and never change, so files written while a backup
runs can only be extra; every file the dumped rows name is already on disk.
"""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import connection, transaction
from django.utils import timezone

MANIFEST = "manifest.json"
MEDIA_ARCHIVE = "media.tar"
DATABASE_FILES = {"sqlite": "database.sqlite3", "postgresql": "database.dump"}
FORMAT = 1


class BackupError(Exception):
    """A backup that cannot be made, or one that does not match its manifest."""


def sha256_file(path):
    """The SHA-256 of the file at ``path``, as 64 hex digits, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _tables():
    with connection.cursor() as cursor:
        existing = set(connection.introspection.table_names(cursor))
    return sorted(
        table for table in connection.introspection.django_table_names() if table in existing
    )


def _count_rows(cursor, tables):
    counts = {}
    for table in tables:
        # Table names come from the app registry, quoted by the backend; no user input.
        cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
        counts[table] = cursor.fetchone()[0]
    return counts


def _pg_command(program, settings_dict):
    """``program``'s connection options and environment for the database in ``settings_dict``."""
    args = [program, "--no-password"]
    for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if settings_dict.get(key):
            args.append(f"{option}={settings_dict[key]}")
    environment = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        environment["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    return args, environment


def _run(args, environment):
    try:
        # Our own argument list (pg_dump/pg_restore and settings), never a shell.
        subprocess.run(args, env=environment, check=True, capture_output=True, text=True)  # noqa: S603
    except FileNotFoundError:
        raise BackupError(f"{args[0]} is not installed (the PostgreSQL client tools).") from None
    except subprocess.CalledProcessError as failed:
        raise BackupError(f"{args[0]} failed: {failed.stderr.strip()}") from None


def _dump_database(target):
    """Write the database to ``target``; return the row counts the copy holds."""
    vendor = connection.vendor
    tables = _tables()
    if vendor == "sqlite":
        connection.ensure_connection()
        copy = sqlite3.connect(target)
        try:
            connection.connection.backup(copy)
            return _count_rows(copy.cursor(), tables)
        finally:
            copy.close()
    if vendor == "postgresql":
        settings_dict = connection.settings_dict
        args, environment = _pg_command("pg_dump", settings_dict)
        # Count the rows in the very snapshot that pg_dump dumps.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
            counts = _count_rows(cursor, tables)
            _run(
                [
                    *args,
                    "--format=custom",
                    f"--snapshot={snapshot}",
                    f"--file={target}",
                    settings_dict["NAME"],
                ],
                environment,
            )
        return counts
    raise BackupError(f"Backups of a {vendor} database are not supported.")


def _media_root():
    if not isinstance(default_storage, FileSystemStorage):
        return None
    return Path(settings.MEDIA_ROOT)


def create_backup(directory):
    """
    Back up the database and ``MEDIA_ROOT`` into ``directory`` (created; it
    must not hold a backup already). Returns the manifest written there.
    """
    directory = Path(directory)
    if (directory / MANIFEST).exists():
        raise BackupError(f"{directory} already holds a backup.")
    directory.mkdir(parents=True, exist_ok=True)
    vendor = connection.vendor
    if vendor not in DATABASE_FILES:
        raise BackupError(f"Backups of a {vendor} database are not supported.")
    database_file = directory / DATABASE_FILES[vendor]
    counts = _dump_database(database_file)

    media_root = _media_root()
    files = {}
    if media_root is not None:
        with tarfile.open(directory / MEDIA_ARCHIVE, "w") as archive:
            if media_root.is_dir():
                for path in sorted(media_root.rglob("*")):
                    if path.is_file() and not path.is_symlink():
                        name = path.relative_to(media_root).as_posix()
                        files[name] = sha256_file(path)
                        archive.add(path, arcname=name, recursive=False)
    manifest = {
        "format": FORMAT,
        "created_at": timezone.now().isoformat(),
        "database": {
            "vendor": vendor,
            "file": database_file.name,
            "sha256": sha256_file(database_file),
            "rows": counts,
        },
        "media": (
            {"archive": MEDIA_ARCHIVE, "sha256": sha256_file(directory / MEDIA_ARCHIVE)}
            if media_root is not None
            else {"archive": None, "note": "uploads are not on the file system; not backed up"}
        )
        | {"files": files},
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return manifest


def read_manifest(directory):
    """The manifest of the backup in ``directory``, with the hashes of its parts checked."""
    directory = Path(directory)
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except FileNotFoundError:
        raise BackupError(f"{directory} holds no backup ({MANIFEST} is missing).") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"Unknown backup format {manifest.get('format')!r}.")
    parts = [(manifest["database"]["file"], manifest["database"]["sha256"])]
    if manifest["media"]["archive"]:
        parts.append((manifest["media"]["archive"], manifest["media"]["sha256"]))
    for name, expected in parts:
        path = directory / name
        if not path.is_file():
            raise BackupError(f"The backup is incomplete: {name} is missing.")
        if sha256_file(path) != expected:
            raise BackupError(f"{name} does not match its SHA-256 in the manifest: it changed.")
    return manifest


def _restore_database(path):
    vendor = connection.vendor
    if vendor == "sqlite":
        connection.ensure_connection()
        source = sqlite3.connect(path)
        try:
            source.backup(connection.connection)
        finally:
            source.close()
        return
    settings_dict = connection.settings_dict
    args, environment = _pg_command("pg_restore", settings_dict)
    # The pool's idle connections hold no locks, but release them all the same.
    connection.close()
    _run(
        [
            *args,
            "--clean",
            "--if-exists",
            "--no-owner",
            "--single-transaction",
            f"--dbname={settings_dict['NAME']}",
            str(path),
        ],
        environment,
    )


def _restore_media(archive_path, files):
    media_root = _media_root()
    if media_root is None:
        raise BackupError("Uploads are not on the file system here: cannot restore MEDIA_ROOT.")
    media_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=media_root.parent, prefix=".restore-") as unpacked:
        with tarfile.open(archive_path) as archive:
            # The "data" filter refuses absolute names, "..", links out and devices.
            archive.extractall(unpacked, filter="data")
        for name, expected in files.items():
            path = Path(unpacked, name)
            if not path.is_file() or sha256_file(path) != expected:
                raise BackupError(f"The uploaded file {name} does not match its SHA-256.")
        for name in files:
            target = media_root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(Path(unpacked, name), target)


def _check_restored(manifest):
    from sources.models import SourceVersion

    with connection.cursor() as cursor:
        counts = _count_rows(cursor, sorted(manifest["database"]["rows"]))
    different = {
        table: (expected, counts[table])
        for table, expected in manifest["database"]["rows"].items()
        if counts[table] != expected
    }
    if different:
        raise BackupError(f"Row counts differ after the restore (expected, found): {different}")
    if manifest["media"]["archive"]:
        files = manifest["media"]["files"]
        for name, sha256 in SourceVersion.objects.values_list("file", "sha256").iterator():
            if files.get(name) != sha256:
                raise BackupError(f"The file of a source version, {name}, is missing or altered.")


def restore_backup(directory):
    """
    Replace the database and the uploaded files with the backup in
    ``directory``, after checking the backup's hashes, then check what was
    restored. Returns the manifest.
    """
    directory = Path(directory)
    manifest = read_manifest(directory)
    if manifest["database"]["vendor"] != connection.vendor:
        raise BackupError(
            f"The backup is of a {manifest['database']['vendor']} database; this site runs "
            f"on {connection.vendor}."
        )
    if manifest["media"]["archive"]:
        # Unpack and check the files first, so a bad archive leaves everything alone.
        _restore_media(directory / manifest["media"]["archive"], manifest["media"]["files"])
    _restore_database(directory / manifest["database"]["file"])
    # What was cached from the replaced database may be keyed by ids that the
    # restored one hands out again for other rows. (On Redis this empties the
    # shared database: sessions are read again from the restored tables.)
    for cache in caches.all():
        cache.clear()
    _check_restored(manifest)
    return manifest
