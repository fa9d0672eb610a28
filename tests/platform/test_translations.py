"""
Translations kept honest: no user-facing text left unmarked, and catalogues that are
complete, current, well-formed and compiled. The rules are in tests/i18n_checks.py.
"""

import os
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from factcheck.management.commands.compile_translations import (
    CATALOGUE_LANGUAGES,
    DOMAINS,
    MAKEMESSAGES_OPTIONS,
    PLURAL_FORMS,
)
from tests import i18n_checks as checks

LOCALE = checks.BASE_DIR / "locale"
GETTEXT_TOOLS = ("xgettext", "msgmerge", "msguniq")


def catalogue(language, domain="django"):
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


def existing_catalogues():
    """Every catalogue there should be; fails the test while one is not written yet."""
    missing = [str(catalogue(language)) for language in CATALOGUE_LANGUAGES]
    missing = [path for path in missing if not Path(path).exists()]
    assert missing == [], "Missing catalogues: run `make messages`, then translate them."
    return [
        (language, catalogue(language, domain))
        for language in CATALOGUE_LANGUAGES
        for domain in DOMAINS
        if catalogue(language, domain).exists()
    ]


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------
# Nothing shown is left unmarked


def test_every_template_has_its_user_facing_text_marked_for_translation():
    findings = [
        finding
        for path in checks.template_files()
        for finding in checks.unmarked_template_text(
            str(path.relative_to(checks.BASE_DIR)), path.read_text(encoding="utf-8")
        )
    ]

    assert checks.template_files()
    assert findings == [], f"{len(findings)} unmarked texts in templates:\n" + "\n".join(findings)


def test_every_python_module_has_its_user_facing_strings_marked_for_translation():
    files = checks.python_files()
    findings = checks.unmarked_python_strings(
        {str(path.relative_to(checks.BASE_DIR)): path.read_text(encoding="utf-8") for path in files}
    )

    assert files
    assert findings == [], f"{len(findings)} unmarked strings in Python:\n" + "\n".join(findings)


def test_the_template_check_finds_unmarked_text_attributes_and_literal_fallbacks():
    source = (
        "{% load i18n %}\n"
        '<h1 title="Open claims">{% translate "Claims" %}</h1>\n'
        "<p>Nothing yet</p>\n"
        '<img alt="{{ name }} portrait" src="{{ url }}">\n'
        '<input type="submit" value="Save">\n'
        '<meta name="description" content="All the claims">\n'
        '<button data-confirm="Withdraw it?">{% translate "Withdraw" %}</button>\n'
        '<dd>{{ claim.verdict|default:"No verdict" }}</dd>\n'
        '{% include "part.html" with where="above the text" anchor="reader-heading" %}\n'
    )

    findings = checks.unmarked_template_text("t.html", source)

    assert [finding.split(": ", 1)[0] for finding in findings] == [
        "t.html:2",
        "t.html:3",
        "t.html:4",
        "t.html:5",
        "t.html:6",
        "t.html:7",
        "t.html:8",
        "t.html:9",
    ]
    assert "'Nothing yet'" in findings[1]
    assert "'portrait'" in findings[2]
    assert "'No verdict'" in findings[6]
    assert "'above the text'" in findings[7]


def test_the_template_check_accepts_marked_text_code_symbols_and_the_brand():
    source = (
        "{% extends 'base.html' %}{% load i18n %}\n"
        '{% block title %}{% translate "Claims" %} · factcheck{% endblock title %}\n'
        '<p aria-label="{% translate "Pages" %}">{{ count }} &times; → — 12</p>\n'
        "{% blocktranslate trimmed count counter=n %}\n"
        "  {{ counter }} claim\n"
        "{% plural %}\n"
        "  {{ counter }} claims\n"
        "{% endblocktranslate %}\n"
        '<script>const label = "not prose";</script><style>p::after { content: "x"; }</style>\n'
        "<code>make messages</code>{# a comment #}\n"
        "{% comment %}A note for developers{% endcomment %}\n"
        '<input type="text" value="prefilled" id="claim-form" class="wide">\n'
        '<dd>{{ claim.claimant|default:"—" }}{{ x|default:_("None yet") }}</dd>\n'
    )

    assert checks.unmarked_template_text("t.html", source) == []


def test_the_template_check_reads_every_line_of_a_text_template():
    source = '{% load i18n %}{% translate "Hello" %} {{ name }},\nYour claim is due.\n—\n'

    findings = checks.unmarked_template_text("mail.txt", source)

    assert len(findings) == 1
    assert findings[0].startswith("mail.txt:2: the text 'Your claim is due.'")


def test_the_python_check_finds_literals_in_every_user_facing_place():
    code = textwrap.dedent(
        """
        from django.utils.translation import gettext_lazy as _

        class StaleClaim(Conflict):
            pass

        class Status(models.TextChoices):
            DRAFT = "draft", "Draft"
            DONE = "done", _("Done")
            GONE = "gone"

        class ClaimsFeed(Feed):
            title = "Corrections"
            description = _("Every correction")

        class Claim(models.Model):
            statement = models.TextField("Statement", help_text="What was said")
            case = models.ForeignKey("claims.Case", verbose_name="case", on_delete=CASCADE)
            kind = models.CharField(choices=[("a", "Alpha"), ("b", _("Beta"))])

            class Meta:
                verbose_name_plural = "claims"

        def view(request, form):
            messages.success(request, f"Saved claim {number}.")
            messages.add_message(request, messages.INFO, "Noted.")
            form.add_error("statement", "Too long")
            raise StaleClaim("Someone else saved it.")

        def check(value):
            if not value:
                raise ValidationError("Write something." % {}, code="blank")
            raise ValidationError(_("Fine."), code="fine")

        field = forms.CharField(label="Name", error_messages={"required": "Needed"})
        """
    )

    findings = checks.unmarked_python_strings({"m.py": code})
    found = [(finding.split(": ", 1)[0], finding.split(": ", 1)[1][:24]) for finding in findings]

    assert found == [
        ("m.py:8", "'Draft' (the label of St"),
        ("m.py:10", "Status.GONE has no label"),
        ("m.py:13", "'Corrections' (the feed'"),
        ("m.py:17", "'Statement' (the verbose"),
        ("m.py:17", "'What was said' (help_te"),
        ("m.py:18", "'case' (verbose_name=) i"),
        ("m.py:19", "'Alpha' (a choice's labe"),
        ("m.py:22", "'claims' (Meta.verbose_n"),
        ("m.py:25", "'Saved claim .' (a messa"),
        ("m.py:26", "'Noted.' (a messages.add"),
        ("m.py:27", "'Too long' (a form error"),
        ("m.py:28", "'Someone else saved it.'"),
        ("m.py:32", "'Write something.' (the "),
        ("m.py:35", "'Name' (label=) is not m"),
        ("m.py:35", "'Needed' (error_messages"),
    ], "\n".join(findings)
    assert findings[0].endswith(
        "is not marked for translation: wrap it in _() (gettext, or "
        "gettext_lazy where the module loads)"
    )


def test_the_python_check_leaves_logs_codes_and_developer_errors_alone():
    code = textwrap.dedent(
        """
        from django.utils.translation import gettext as _, ngettext

        def run(claim, n):
            logger.info("Claim %s published", claim.pk)
            audit.record(action="claim.published")
            if n < 0:
                raise ImproperlyConfigured("Set SECRET_KEY")
            raise NotAllowed(_("Only the editor may publish claim %(number)s.") % {"number": 1})
            return ngettext("%(count)s claim", "%(count)s claims", n) % {"count": n}
        """
    )

    assert checks.unmarked_python_strings({"m.py": code}) == []


# ---------------------------------------------------------------------------------------
# The catalogues


def test_a_catalogue_exists_for_every_language_offered():
    assert existing_catalogues()


def test_the_catalogues_hold_every_marked_string_and_nothing_else(tmp_path):
    catalogues = existing_catalogues()
    missing_tools = [tool for tool in GETTEXT_TOOLS if shutil.which(tool) is None]
    if missing_tools:
        message = f"GNU gettext is missing ({', '.join(missing_tools)}): apt-get install gettext"
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run installs it.")
        pytest.skip(message)
    extracted = checks.extracted_messages(tmp_path)

    problems = [
        f"{catalogue(language, domain)} is missing, and the code has strings for it: run "
        "`make messages`, then translate them"
        for language in CATALOGUE_LANGUAGES
        for domain in DOMAINS
        if extracted[domain] and not catalogue(language, domain).exists()
    ]
    for _language, path in catalogues:
        domain = path.stem
        present = checks.message_keys(path)
        problems += [
            f"{path}: {checks.describe(key)} is in the code but not in the catalogue: "
            "run `make messages`, then translate it"
            for key in sorted(extracted[domain] - present, key=str)
        ]
        problems += [
            f"{path}: {checks.describe(key)} is no longer in the code: run `make messages`"
            for key in sorted(present - extracted[domain], key=str)
        ]

    assert extracted["django"], "makemessages found no marked string in the code"
    assert problems == [], f"{len(problems)} catalogue entries differ:\n" + "\n".join(problems)


def test_every_catalogue_is_complete_and_well_formed():
    defects = [
        defect
        for language, path in existing_catalogues()
        for defect in checks.catalogue_defects(path, language)
    ]

    assert defects == [], f"{len(defects)} defects:\n" + "\n".join(defects)


def test_every_compiled_catalogue_is_what_its_po_compiles_to_now():
    stale = [
        reason
        for language, path in existing_catalogues()
        if (reason := checks.stale_compilation(path)) is not None
    ]

    assert stale == []


def test_make_messages_runs_makemessages_with_the_options_the_catalogue_test_uses():
    # `make -n` prints the recipe with its variables expanded, running nothing.
    printed = subprocess.run(
        ["make", "-n", "-s", "messages"],  # noqa: S607 (make from the PATH, as a developer runs it)
        cwd=checks.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    runs = [line for line in printed.replace("\\\n", " ").splitlines() if "makemessages" in line]

    assert len(runs) == len(MAKEMESSAGES_OPTIONS)
    for run, options in zip(runs, MAKEMESSAGES_OPTIONS.values(), strict=True):
        arguments = shlex.split(run)
        ignored = [arguments[i + 1] for i, word in enumerate(arguments) if word == "-i"]
        languages = [arguments[i + 1] for i, word in enumerate(arguments) if word == "-l"]
        assert arguments[arguments.index("-d") + 1] == options["domain"]
        assert arguments[arguments.index("-e") + 1].split(",") == options["extensions"]
        assert sorted(ignored) == sorted(options["ignore_patterns"])
        assert "--no-obsolete" in arguments
        assert f"--add-location={options['add_location']}" in arguments
        assert languages == list(CATALOGUE_LANGUAGES)


# ---------------------------------------------------------------------------------------
# The checks themselves, on catalogues made to be wrong

GOOD_HEADER = """
    msgid ""
    msgstr ""
    "Content-Type: text/plain; charset=UTF-8\\n"
    "Language: {language}\\n"
    "Plural-Forms: {plural_forms}\\n"
"""
ARABIC = "nplurals=6; plural=" + PLURAL_FORMS["ar"][1] + ";"


def test_the_catalogue_check_finds_empty_fuzzy_and_mismatched_entries(tmp_path):
    path = write(
        tmp_path / "es" / "LC_MESSAGES" / "django.po",
        GOOD_HEADER.format(language="es", plural_forms="nplurals=2; plural=(n != 1);")
        + """
        msgid "Claims"
        msgstr ""

        #, fuzzy
        msgid "Cases"
        msgstr "Casos"

        #, python-format
        msgid "Claim %(number)s is published."
        msgstr "La afirmación %(numero)s está publicada."

        #, python-format
        msgid "%(count)s claim"
        msgid_plural "%(count)s claims"
        msgstr[0] "%(count)s afirmación"
        msgstr[1] ""
        """,
    )

    defects = checks.catalogue_defects(path, "es")

    assert defects == [
        f"{path}:1: the header's Plural-Forms is 'nplurals=2; plural=(n != 1);': write "
        "'Plural-Forms: nplurals=3; plural=n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2;\\n'",
        f"{path}:7: 'Claims' has an empty translation: translate it",
        f"{path}:11: 'Cases' is fuzzy: check the translation and remove '#, fuzzy'",
        f"{path}:15: 'Claim %(number)s is published.' has the placeholders ['%(numero)s'] but "
        "the msgid has ['%(number)s']: keep the same ones",
        f"{path}:19: '%(count)s claim' has 2 plural forms; es has 3",
        f"{path}:19: '%(count)s claim' has an empty translation (plural form 1): translate it",
    ]


def test_the_catalogue_check_passes_a_right_arabic_catalogue_with_six_plural_forms(tmp_path):
    forms = "\n".join(f'msgstr[{index}] "{word} %(count)s"' for index, word in enumerate("abcdef"))
    path = write(
        tmp_path / "django.po",
        GOOD_HEADER.format(language="ar", plural_forms=ARABIC)
        + '\n#, python-format\nmsgid "%(count)s claim"\nmsgid_plural "%(count)s claims"\n'
        + forms.replace('"b %(count)s"', '"مطالبة واحدة"')
        + '\n\nmsgid "Claims"\nmsgstr "المطالبات"\n',
    )

    assert checks.catalogue_defects(path, "ar") == []


def test_the_catalogue_check_finds_a_wrong_language_a_fuzzy_header_and_a_broken_file(tmp_path):
    fuzzy = write(
        tmp_path / "fuzzy.po",
        "#, fuzzy\n" + GOOD_HEADER.format(language="fr", plural_forms=ARABIC),
    )
    broken = write(tmp_path / "broken.po", 'msgid "Claims"\nmsgstr "Afirmaciones"\nmsgwhat "x"\n')

    fuzzy_defects = checks.catalogue_defects(fuzzy, "ar")
    broken_defects = checks.catalogue_defects(broken, "es")

    assert ["Language is 'fr'" in fuzzy_defects[0], "header is marked fuzzy" in fuzzy_defects[1]]
    assert len(fuzzy_defects) == 2
    assert broken_defects == [
        f"{broken}:3: not a line of a catalogue: 'msgwhat \"x\"' (fix the file so it parses)"
    ]


def test_compiling_refuses_a_catalogue_that_does_not_parse_naming_its_file_and_line(tmp_path):
    good = write(
        tmp_path / "es" / "LC_MESSAGES" / "django.po",
        GOOD_HEADER.format(language="es", plural_forms="nplurals=2; plural=(n != 1);")
        + '\nmsgid "Claims"\nmsgstr "Afirmaciones"\n',
    )
    broken = write(
        tmp_path / "fr" / "LC_MESSAGES" / "django.po", 'msgid "Claims"\nmsgstr "Affirmations\n'
    )

    with pytest.raises(CommandError) as refused:
        call_command("compile_translations", str(good), str(broken), verbosity=0)

    assert f"{broken}:2: not a line of a catalogue: 'msgstr \"Affirmations'" in str(refused.value)
    assert not broken.with_suffix(".mo").exists()
    assert checks.compiled_messages(good.with_suffix(".mo").read_bytes())["Claims"] == (
        "Afirmaciones"
    )


def test_a_compiled_catalogue_is_stale_once_its_po_changes_and_current_once_recompiled(tmp_path):
    path = write(
        tmp_path / "django.po",
        GOOD_HEADER.format(language="es", plural_forms="nplurals=2; plural=(n != 1);")
        + '\nmsgid "Claims"\nmsgstr "Afirmaciones"\n',
    )
    missing = checks.stale_compilation(path)
    call_command("compile_translations", str(path), verbosity=0)
    current = checks.stale_compilation(path)
    path.write_text(path.read_text().replace("Afirmaciones", "Declaraciones"))
    # The .mo is newer than nothing now: only its content tells it is stale.
    os.utime(path.with_suffix(".mo"))

    assert "is missing: run `make translations`" in missing
    assert current is None
    assert "is not compiled from its .po as it is now" in checks.stale_compilation(path)


def test_compiling_a_new_catalogue_asks_for_its_plural_forms_header(tmp_path):
    # makemessages writes this placeholder in a catalogue of a language Django has none for.
    new = write(
        tmp_path / "ar" / "LC_MESSAGES" / "django.po",
        GOOD_HEADER.format(language="ar", plural_forms="nplurals=INTEGER; plural=EXPRESSION;"),
    )

    with pytest.raises(CommandError) as refused:
        call_command("compile_translations", str(new), verbosity=0)

    assert f"{new}:5: the header's Plural-Forms is still makemessages' placeholder: write " in (
        str(refused.value)
    )
    assert f"'Plural-Forms: nplurals=6; plural={PLURAL_FORMS['ar'][1]};\\n'" in str(refused.value)
