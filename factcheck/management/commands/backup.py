from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from factcheck.backup import BackupError, create_backup


class Command(BaseCommand):
    help = (
        "Back up the database (SQLite's online backup API, or pg_dump) and the uploaded files "
        "(a tar of MEDIA_ROOT) into a new directory, with a manifest of SHA-256s and row counts."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "directory",
            nargs="?",
            help="where to write the backup (default: var/backups/<date and time>)",
        )

    def handle(self, *args, directory=None, **options):
        if directory is None:
            stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
            directory = Path(settings.BASE_DIR, "var", "backups", stamp)
        try:
            manifest = create_backup(directory)
        except BackupError as error:
            raise CommandError(str(error)) from None
        rows = sum(manifest["database"]["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {rows:,} rows ({manifest['database']['vendor']}) and "
                f"{len(manifest['media']['files']):,} uploaded files to {directory}"
            )
        )
