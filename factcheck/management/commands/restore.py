from django.core.management.base import BaseCommand, CommandError

from factcheck.backup import BackupError, read_manifest, restore_backup


class Command(BaseCommand):
    help = (
        "Replace the database and the uploaded files with a backup made by `manage.py backup`, "
        "after checking its SHA-256s; then check every file's hash and every table's row count."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="the backup's directory")
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help="do not ask for confirmation",
        )

    def handle(self, *args, directory, interactive=True, **options):
        try:
            manifest = read_manifest(directory)
            if interactive:
                answer = input(
                    f"This replaces the whole database and restores the uploaded files from the "
                    f"backup of {manifest['created_at']}. Type 'yes' to continue: "
                )
                if answer != "yes":
                    raise CommandError("Restore cancelled.")
            manifest = restore_backup(directory)
        except BackupError as error:
            raise CommandError(str(error)) from None
        rows = sum(manifest["database"]["rows"].values())
        self.stdout.write(
            self.style.SUCCESS(
                f"Restored {rows:,} rows and {len(manifest['media']['files']):,} uploaded files "
                f"from {directory}; hashes and row counts match."
            )
        )
