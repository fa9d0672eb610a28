"""What the templates themselves must keep to, checked on their source."""

import re
from pathlib import Path

from django.conf import settings

TEMPLATE_DIRS = [Path(settings.BASE_DIR) / "templates"] + [
    Path(settings.BASE_DIR) / app / "templates" for app in ("claims", "sources", "factcheck")
]


def template_files():
    return [path for folder in TEMPLATE_DIRS if folder.is_dir() for path in folder.rglob("*.html")]


def test_every_template_comment_closes_on_its_own_line_so_readers_never_see_it():
    # Django's {# … #} ends at the line's end: one spread over two lines is shown as text.
    unclosed = [
        f"{path.relative_to(settings.BASE_DIR)}:{number}"
        for path in template_files()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if re.search(r"\{#(?!.*#\})", line)
    ]

    assert template_files()
    assert unclosed == []
