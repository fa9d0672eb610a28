"""``manage.py draw_quotation_pages``: queue the page drawings that were never made."""

from django.core.management.base import BaseCommand

from sources.page_images import quotations_not_drawn
from sources.tasks import draw_quotation_pages


class Command(BaseCommand):
    help = (
        "Queue the drawing of every quotation of a PDF or a scan that has no drawn page: "
        "quotations made before pages were drawn, or whose drawing failed (a limit reached "
        "under load, the sandbox down). The task worker draws them; a page drawn already is "
        "never drawn again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="Say how many would be queued; queue none."
        )

    def handle(self, *args, dry_run=False, **options):
        quotation_ids = list(quotations_not_drawn().values_list("pk", flat=True))
        if not dry_run:
            for quotation_id in quotation_ids:
                draw_quotation_pages.enqueue(quotation_id)
        verb = "would be queued" if dry_run else "queued"
        self.stdout.write(f"{len(quotation_ids)} quotation(s) without a drawn page {verb}.")
