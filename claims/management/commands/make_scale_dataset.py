import time

from django.core.management.base import BaseCommand, CommandError

from claims.scale import ScaleOptions, dataset_present, make_scale_dataset


class Command(BaseCommand):
    help = (
        "Generate a newsroom-sized dataset with bulk inserts: cases, claims, sources with "
        "20–200 KB of text (and a few of 1 MB), quotations, evidence, reviews in every state, "
        "users, a chain of published corrections, the search index. For benchmarks; run it "
        "on a database of its own."
    )

    def add_arguments(self, parser):
        defaults = ScaleOptions.__dataclass_fields__
        for name, help_text in (
            ("cases", "cases, each checking a piece of its own"),
            ("claims", "claims, over all cases (the first case gets up to 200)"),
            ("sources", "sources, the pieces under check included"),
            ("users", "users: a tenth editors, the rest reviewers"),
            ("quotations", "quotations: one per claim, the rest in the cited sources"),
            ("corrections", "published corrections"),
            ("min-kb", "smallest source text, in KB"),
            ("max-kb", "largest ordinary source text, in KB"),
            ("large-kb", "size of the large sources, in KB"),
            ("seed", "random seed: the same flags and seed give the same data"),
        ):
            default = defaults[name.replace("-", "_")].default
            parser.add_argument(
                f"--{name}", type=int, default=default, help=f"{help_text} ({default})"
            )
        parser.add_argument(
            "--large-sources",
            type=int,
            default=None,
            help="how many sources get the large size (one per thousand sources, at least 1)",
        )
        parser.add_argument(
            "--if-absent",
            action="store_true",
            help="do nothing (and succeed) when a scale dataset is already present",
        )

    def handle(self, *args, **options):
        if dataset_present():
            if options["if_absent"]:
                self.stdout.write("A scale dataset is already present; nothing to do.")
                return
            raise CommandError(
                "A scale dataset is already present in this database; use a fresh database."
            )
        try:
            scale = ScaleOptions(
                **{
                    name: options[name]
                    for name in ScaleOptions.__dataclass_fields__
                    if name in options
                }
            )
        except ValueError as invalid:
            raise CommandError(str(invalid)) from None
        began = time.monotonic()

        def progress(message):
            self.stdout.write(f"[{time.monotonic() - began:6.1f} s] {message}")

        result = make_scale_dataset(scale, progress=progress)
        summary = ", ".join(f"{count:,} {name}" for name, count in result.counts.items())
        self.stdout.write(
            self.style.SUCCESS(
                f"Scale dataset written in {time.monotonic() - began:.0f} s: {summary}."
            )
        )
