from django.core.management.base import BaseCommand, CommandError

from claims.corrections import verify_chain


class Command(BaseCommand):
    help = (
        "Walk the published corrections' hash chain and report the first entry that does not "
        "match. Exits non-zero when the chain is broken."
    )

    def handle(self, *args, **options):
        report = verify_chain()
        if not report.ok:
            entry = report.broken
            raise CommandError(
                f"The corrections chain is broken at entry {entry.sequence} (id {entry.pk}, "
                f"“{entry}”): it {report.problem}. {report.checked} entries before it verify."
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"The corrections chain verifies: {report.checked} published entries, "
                f"head {report.head}."
            )
        )
