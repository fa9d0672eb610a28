from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from claims.seed import seed_first_case
from factcheck.demo import DEMO_EDITOR


class Command(BaseCommand):
    help = (
        "Seed the first case, “Three numbers, one announcement”: the article, the four "
        "sources it cites and one claim per checkable statement. Safe to run again."
    )

    def handle(self, *args, **options):
        lead_editor = get_user_model().objects.filter(username=DEMO_EDITOR).first()
        result = seed_first_case(lead_editor=lead_editor)
        total = result.case.claims.count()
        if result.created_claims or result.created_sources:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Seeded “{result.case}”: {result.created_sources} sources and "
                    f"{result.created_claims} claims created ({total} claims in the case)."
                )
            )
        else:
            self.stdout.write(f"“{result.case}” is already seeded ({total} claims); nothing to do.")
