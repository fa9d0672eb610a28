"""
``manage.py compile_translations [PO_FILE …]``: compile the translation catalogues
(``locale/<language>/LC_MESSAGES/django.po`` and ``djangojs.po``) into the ``.mo`` files
Django reads, with Babel: pure Python, so a fresh clone needs no GNU gettext to run.

Django's own ``compilemessages`` calls GNU ``msgfmt``; this command does the same job
with ``babel.messages.pofile.read_po`` and ``babel.messages.mofile.write_mo``. A
catalogue that does not parse is refused, naming its file and line, and nothing of it
is written. Fuzzy entries are left out of the ``.mo``, as ``msgfmt`` leaves them out.

The ``.mo`` files are built, not committed (``.gitignore``): ``make run`` and ``make test``
run this command first. A ``.mo`` whose content would not change is not rewritten, so
the development server's reloader is not woken for nothing.

Refreshing the catalogues from the code is ``make messages`` (Django's ``makemessages``,
which needs GNU gettext); its options are :data:`MAKEMESSAGES_OPTIONS`, which
``tests/platform/test_translations.py`` also uses to check the catalogues are current.
"""

import io
import os
import re
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

#: The languages with a catalogue, in gettext's spelling (the folder names under locale/).
CATALOGUE_LANGUAGES = ("es", "pt_BR", "fr", "ar")

#: The Plural-Forms of each catalogue: those of Django's own catalogues, so Django can merge
#: ours with its own into one catalogue per language.
PLURAL_FORMS = {
    "es": (3, "n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2"),
    "pt_BR": (2, "(n > 1)"),
    "fr": (3, "(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2"),
    "ar": (
        6,
        "n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 "
        ": n%100>=11 && n%100<=99 ? 4 : 5",
    ),
}

#: What makemessages writes in a new catalogue's header until a person fills it in.
PLURAL_FORMS_PLACEHOLDER = "nplurals=INTEGER; plural=EXPRESSION;"

#: The two gettext domains: templates and Python, and the JavaScript catalogue.
DOMAINS = ("django", "djangojs")

# Folders that hold no interface text: the virtualenv, runtime data, tests, benchmarks,
# documentation, built files and third-party JavaScript.
_IGNORED = [".venv", "var", "tests", "bench", "docs", "test-artifacts", "build", "*.egg-info"]

#: ``makemessages`` options per domain, shared by ``make messages`` (the Makefile spells
#: them out) and the catalogue test. ``--add-location=file`` keeps the file a string
#: comes from, which tells a translator where it is shown, without the line numbers that
#: would rewrite every catalogue whenever a line moves.
MAKEMESSAGES_OPTIONS = {
    "django": {
        "domain": "django",
        "extensions": ["html", "txt", "py"],
        "ignore_patterns": [*_IGNORED, "static"],
        "no_obsolete": True,
        "add_location": "file",
    },
    "djangojs": {
        "domain": "djangojs",
        "extensions": ["js"],
        "ignore_patterns": [*_IGNORED, "static/vendor", "claims", "sources", "factcheck"],
        "no_obsolete": True,
        "add_location": "file",
    },
}


class CatalogueError(Exception):
    """A catalogue that cannot be compiled; the message names its file and line."""


def catalogue_paths(locale_dirs=None) -> list[Path]:
    """Every ``.po`` file under ``locale_dirs`` (by default ``settings.LOCALE_PATHS``)."""
    folders = settings.LOCALE_PATHS if locale_dirs is None else locale_dirs
    return sorted(
        path
        for folder in folders
        for path in Path(folder).glob("*/LC_MESSAGES/*.po")
        if path.stem in DOMAINS
    )


def read_catalogue(po_path: Path) -> Catalog:
    """
    The catalogue in ``po_path``, parsed by Babel with every problem an error.

    Raises :class:`CatalogueError` with ``file:line: what is wrong`` when it does not parse.
    """
    try:
        _check_lines(po_path)
        with open(po_path, "rb") as handle:
            return read_po(handle, abort_invalid=True)
    except PoFileError as error:
        # Babel counts lines from 0 and puts " on <line>" at the end of its message.
        reason = str(error).rsplit(" on ", 1)[0]
        line = error.lineno + 1
        raise CatalogueError(f"{po_path}:{line}: {reason}: {error.line.strip()!r}") from None
    except (UnicodeDecodeError, ValueError, LookupError) as error:
        raise CatalogueError(f"{po_path}: cannot be read: {error}") from None


# A line of a catalogue: blank, a comment, a keyword and its quoted string, or a quoted
# string continuing the one above. Babel lets an unclosed quotation mark through.
_PO_LINE = re.compile(
    r'\s*(?:#.*|(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(?:[^"\\]|\\.)*"'
    r'|"(?:[^"\\]|\\.)*")?\s*'
)


def plural_forms_header(language: str) -> str:
    """The header line ``Plural-Forms: …`` the catalogue of ``language`` has."""
    count, expression = PLURAL_FORMS.get(language, (2, "(n != 1)"))
    return f"Plural-Forms: nplurals={count}; plural={expression};"


def _check_lines(po_path: Path) -> None:
    with open(po_path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if PLURAL_FORMS_PLACEHOLDER in line:
                # A new catalogue from makemessages: Babel would stumble on it further on.
                language = po_path.parent.parent.name
                raise CatalogueError(
                    f"{po_path}:{number}: the header's Plural-Forms is still makemessages' "
                    f"placeholder: write '{plural_forms_header(language)}\\n'"
                )
            if not _PO_LINE.fullmatch(line):
                raise CatalogueError(
                    f"{po_path}:{number}: not a line of a catalogue: {line.strip()!r}"
                )


def compile_catalogue(po_path: Path) -> bytes:
    """The ``.mo`` content compiled from ``po_path`` (fuzzy entries left out)."""
    buffer = io.BytesIO()
    write_mo(buffer, read_catalogue(po_path), use_fuzzy=False)
    return buffer.getvalue()


def write_compiled(po_path: Path) -> bool:
    """
    Compile ``po_path`` beside itself as ``.mo``; return whether the file changed.

    The new file replaces the old in one rename, so a server reading it never sees half.
    """
    content = compile_catalogue(po_path)
    mo_path = po_path.with_suffix(".mo")
    if mo_path.exists() and mo_path.read_bytes() == content:
        return False
    handle, temporary = tempfile.mkstemp(dir=mo_path.parent, suffix=".mo.tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(temporary, mo_path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True


class Command(BaseCommand):
    help = (
        "Compile the translation catalogues (locale/*/LC_MESSAGES/*.po) to .mo files with "
        "Babel, without GNU gettext. Refuses a catalogue that does not parse."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "po_files", nargs="*", help="Catalogues to compile (default: every one in LOCALE_PATHS)"
        )

    def handle(self, *, po_files, **options):
        paths = [Path(name) for name in po_files] or catalogue_paths()
        errors = []
        for path in paths:
            try:
                changed = write_compiled(path)
            except (CatalogueError, OSError) as error:
                errors.append(str(error))
                continue
            if options["verbosity"] > 1 or (changed and options["verbosity"] > 0):
                state = "compiled" if changed else "up to date"
                self.stdout.write(f"{path.with_suffix('.mo')}: {state}")
        if errors:
            raise CommandError(
                "Cannot compile these catalogues; fix them (or refresh them with `make "
                "messages`) and run the command again:\n" + "\n".join(errors)
            )
