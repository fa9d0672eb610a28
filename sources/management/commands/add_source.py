"""
``manage.py add_source PATH_OR_URL``: store a file, or a web page fetched now, as a
new source or as the next version of one, for a newsroom's scripts and for bulk
loading.

A file goes through the services the upload form uses (``source_create`` and
``source_version_upload``), so the same checks apply: the type read from the
bytes, the size limit, the refusal of hostile files; and its text is extracted
by the task worker, as for an upload. An http(s) address goes through the
services the "from a web address" forms use (``sources.capture``): the forgery
guard, the same checks on what comes back, the fetch record and its WARC.

``--case SLUG``: a case is linked to one source only, its piece under check
(other sources reach a case only through the quotations of its claims' evidence),
so the file is stored as the next version of that piece, as ``--source`` with
the piece's id would. A case does not gather sources of its own to add one to.
"""

import json
import re
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from claims.models import Case
from sources.capture import source_capture, version_capture
from sources.models import Source, SourceRole, SourceVersion
from sources.services import source_create, source_version_upload, too_large_message

#: A scheme and "://": what a URL starts with, and a path given on a command line does not.
#: Any scheme is taken as an address, so that ftp:// is refused for its scheme, not as a path.
URL_START = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

#: The options that describe a new source; an existing one keeps its own.
METADATA = ("title", "publisher", "authors", "url", "role")


class Command(BaseCommand):
    help = (
        "Store a file (PDF, HTML, text, Markdown, Word, OpenDocument or an image to read by "
        "OCR), or the web page at an http(s) address "
        "fetched now, as a new source with --title, or as the next version of an existing source "
        "with --source ID or of a case's piece under check with --case SLUG (a case has no other "
        "sources of its own). The same checks as the upload and fetch forms apply; the text is "
        "extracted by the task worker. Prints one line, 'version <id> of source <id> (<number>): "
        "<extraction status>', or a JSON object with --json. A page fetched again whose bytes "
        "are those of the source's latest version makes no new version: the line says "
        "'unchanged'."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path",
            help=(
                "the file to store, or the http(s) address of a page to fetch (a new source "
                "fetched by address may go without --title: it is named after the address)"
            ),
        )
        target = parser.add_mutually_exclusive_group()
        target.add_argument(
            "--source",
            type=int,
            metavar="ID",
            dest="source_id",
            help="store the file as the next version of this source",
        )
        target.add_argument(
            "--case",
            metavar="SLUG",
            dest="case_slug",
            help="store the file as the next version of this case's piece under check",
        )
        parser.add_argument("--title", help="the new source's title (required for a new source)")
        parser.add_argument("--publisher", help="the new source's publisher")
        parser.add_argument("--authors", help="the new source's authors, separated by commas")
        parser.add_argument("--url", help="the new source's own address, kept as a label")
        parser.add_argument(
            "--role",
            choices=SourceRole.values,
            help="the new source's role (default: primary)",
        )
        parser.add_argument(
            "--as",
            metavar="USERNAME",
            dest="username",
            help=(
                "the user recorded in the audit trail, who must be allowed to add sources "
                "(an editor); without it, the system"
            ),
        )
        parser.add_argument(
            "--json",
            action="store_true",
            dest="as_json",
            help='print {"source", "version", "number", "status", "created"} as JSON',
        )

    def handle(self, *, path, source_id, case_slug, username, as_json, **options):
        by_address = bool(URL_START.match(path))
        metadata = {name: options[name] for name in METADATA if options[name] is not None}
        adding_version = source_id is not None or case_slug is not None
        if adding_version and metadata:
            given = [f"--{name}" for name in metadata]
            named = given[0] if len(given) == 1 else ", ".join(given[:-1]) + " and " + given[-1]
            raise CommandError(
                f"{named} {'describes' if len(given) == 1 else 'describe'} a new source: leave "
                f"{'it' if len(given) == 1 else 'them'} out when adding a version to an existing "
                "one (its details are changed on its page)."
            )
        if by_address and "url" in metadata:
            raise CommandError(
                "--url is the address fetched: leave it out when adding a source by its address."
            )
        if not adding_version and not by_address and not metadata.get("title", "").strip():
            raise CommandError("A new source needs a title: give --title.")
        source = self.existing_source(source_id, case_slug) if adding_version else None
        permission = "sources.add_sourceversion" if adding_version else "sources.add_source"
        actor = self.actor(username, permission)
        try:
            if by_address:
                source, version, created = self.capture(path, source, metadata, actor)
            else:
                source, version, created = self.upload(Path(path), source, metadata, actor)
        except ValidationError as error:
            raise CommandError(f"{path} was not stored: {sentences(error)}") from None
        # The worker may have moved on since the upload (at once, with the immediate backend).
        status = SourceVersion.objects.values_list("extraction_status", flat=True).get(
            pk=version.pk
        )
        if as_json:
            said = {
                "source": source.pk,
                "version": version.pk,
                "number": version.number,
                "status": status,
                "created": created,
            }
            self.stdout.write(json.dumps(said))
        else:
            line = f"version {version.pk} of source {source.pk} ({version.number}): {status}"
            if not created:
                line += " (unchanged: these bytes are already its latest version)"
            self.stdout.write(line)

    def upload(self, path, source, metadata, actor):
        """Store the file at ``path``: ``(source, version, created)``."""
        content = self.read(path)
        if source is None:
            title = metadata.pop("title").strip()
            source = source_create(
                actor=actor, title=title, content=content, filename=path.name, **metadata
            )
            return source, source.versions.get(), True
        version, created = source_version_upload(
            source=source, content=content, filename=path.name, actor=actor
        )
        return source, version, created

    def capture(self, url, source, metadata, actor):
        """Fetch the page at ``url`` and store it: ``(source, version, created)``."""
        if source is None:
            title = (metadata.pop("title", None) or "").strip()
            source = source_capture(actor=actor, url=url, title=title, **metadata)
            return source, source.versions.get(), True
        version, created = version_capture(source=source, url=url, actor=actor)
        return source, version, created

    def existing_source(self, source_id, case_slug):
        if case_slug is not None:
            case = Case.objects.select_related("source_under_check").filter(slug=case_slug).first()
            if case is None:
                raise CommandError(f"There is no case with the slug {case_slug!r}.")
            return case.source_under_check
        source = Source.objects.filter(pk=source_id).first()
        if source is None:
            raise CommandError(f"There is no source with the id {source_id}.")
        return source

    def actor(self, username, permission):
        """The user named by ``--as``, if they may do this; None (the system) without it."""
        if username is None:
            return None
        User = get_user_model()
        try:
            user = User._default_manager.get_by_natural_key(username)
        except User.DoesNotExist:
            raise CommandError(f"There is no account with the username {username!r}.") from None
        if not user.is_active:
            raise CommandError(f"The account {username!r} is deactivated: it cannot add sources.")
        # The permission the upload pages require, so a script can do what its user could.
        if not user.has_perm(permission):
            raise CommandError(
                f"{username!r} may not add sources: that takes the permission {permission}, "
                "which editors have."
            )
        return user

    def read(self, path):
        """The bytes of the file at ``path``; CommandError saying why when they cannot be read."""
        if not path.exists():
            raise CommandError(f"There is no file at {path}.")
        if path.is_dir():
            raise CommandError(f"{path} is a directory: give the path of a file.")
        if not path.is_file():
            raise CommandError(f"{path} is not a regular file.")
        limit = settings.SOURCE_UPLOAD_MAX_BYTES
        try:
            size = path.stat().st_size
            if size > limit:
                # Refused before reading, as the upload form does.
                raise CommandError(f"{path} was not stored: {too_large_message(size, limit)}")
            with path.open("rb") as file:
                # One byte over the limit is enough for the upload's own check to refuse it.
                return file.read(limit + 1)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.") from None


def sentences(error):
    """A ValidationError's messages in one line, each field's named."""
    if hasattr(error, "error_dict"):
        return " ".join(
            f"{name}: {message}" if name != "__all__" else message
            for name, messages in error.message_dict.items()
            for message in messages
        )
    return " ".join(error.messages)
