"""What the templates themselves must keep to, checked on their source."""

import re
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.template import Context, Template

from factcheck.people import display_name

TEMPLATE_DIRS = [Path(settings.BASE_DIR) / "templates"] + [
    Path(settings.BASE_DIR) / app / "templates" for app in ("claims", "sources", "factcheck")
]

#: Longer lines are broken at tag or attribute boundaries (a Django tag stays on one line).
LONGEST_LINE = 160


def template_files():
    return [
        path
        for folder in TEMPLATE_DIRS
        if folder.is_dir()
        for path in folder.rglob("*")
        if path.suffix in {".html", ".txt"}
    ]


def template_lines():
    for path in template_files():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            yield f"{path.relative_to(settings.BASE_DIR)}:{number}", line


def test_every_template_comment_closes_on_its_own_line_so_readers_never_see_it():
    # Django's {# … #} ends at the line's end: one spread over two lines is shown as text.
    unclosed = [where for where, line in template_lines() if re.search(r"\{#(?!.*#\})", line)]

    assert template_files()
    assert unclosed == []


def test_every_template_tag_closes_on_its_own_line_so_readers_never_see_it():
    # A {% tag %} broken over two lines is not a tag to Django: the page shows it as text.
    unclosed = [where for where, line in template_lines() if re.search(r"\{%(?!.*%\})", line)]

    assert template_files()
    assert unclosed == []


def test_no_template_line_is_longer_than_160_characters():
    too_long = [
        f"{where} ({len(line)})" for where, line in template_lines() if len(line) > LONGEST_LINE
    ]

    assert template_files()
    assert too_long == []


def test_every_endblock_and_endpartialdef_names_what_it_ends():
    unnamed = [
        f"{where}: {found}"
        for where, line in template_lines()
        for found in re.findall(r"\{%\s*(?:endblock|endpartialdef)\s*%\}", line)
    ]

    assert template_files()
    assert unnamed == []


def test_a_person_is_named_by_their_full_name_else_their_username():
    User = get_user_model()
    named = User(username="ada", first_name="Ada", last_name="Lovelace")
    unnamed = User(username="zed", first_name="", last_name="")
    page = Template("{% load people %}[{{ named|display_name }}] [{{ unnamed|display_name }}]")

    assert page.render(Context({"named": named, "unnamed": unnamed})) == "[Ada Lovelace] [zed]"
    assert display_name(named) == "Ada Lovelace"
    assert display_name(unnamed) == "zed"
    assert display_name(None) == ""
