"""
The checks that keep the translations honest, importable on their own; the tests that
run them on the project are tests/platform/test_translations.py. Each returns a list
of findings, one sentence each, ``file:line: what is wrong … (what to do)``; an empty
list is a pass.

Templates (:func:`unmarked_template_text`). A template is read by Django's own lexer
(its DebugLexer, which keeps each token's place). The text outside ``{% translate %}``
and ``{% blocktranslate %}`` is put back together with each tag and variable replaced by
a mark that has no letter, then read as HTML:

- the text between tags is checked, except inside ``<script>``, ``<style>`` (code, not
  prose: the JavaScript's strings go through the JavaScript catalogue) and ``<code>``,
  ``<kbd>``, ``<samp>`` (literal commands and identifiers, the same in every language);
- the attributes a reader sees or hears: ``title``, ``alt``, ``placeholder``,
  ``aria-label``, ``aria-description``, ``aria-roledescription``, ``data-confirm`` and
  ``data-announce`` (the confirm dialog and the live region read them out), ``value`` of
  ``<input type=submit|button|reset>`` and ``content`` of ``<meta name=description>``;
- a variable shown there with a literal fallback, ``{{ x|default:"None yet" }}``: the
  fallback is shown as it is (write ``default:_("None yet")``);
- a literal handed to ``{% include … with %}`` or ``{% with %}`` that has a space in it
  (a phrase, ``where="above the text"``: ids and query strings have none);
- in ``.txt`` templates (mail bodies, subjects) all text outside the tags.

Text counts when it has a letter in any script (``\\w`` less digits and ``_``), after
the allow-list :data:`NOT_LANGUAGE` is taken out.

Python (:func:`unmarked_python_strings`). An AST scan for a string literal with a letter
(also an f-string, or ``"…" % x`` and ``"…".format()``) not inside a gettext call
(``_``, ``gettext``, ``ngettext``, ``pgettext``, ``npgettext`` and their ``_lazy``
forms), in one of these places:

- the first argument (or ``message=``) of ``ValidationError``, and of
  ``factcheck.exceptions.Refused``, ``NotAllowed``, ``NotFound``, ``Conflict`` and any
  subclass of them defined in the scanned code, raised by name;
- the message of ``messages.success/info/warning/error/debug(request, message)`` and of
  ``messages.add_message(request, level, message)``;
- the error of ``form.add_error(field, "…")``;
- the keyword arguments ``label=``, ``help_text=``, ``verbose_name=``,
  ``verbose_name_plural=``, ``empty_label=``, and the values of an ``error_messages={…}``;
  a model's ``Meta.verbose_name`` and ``Meta.verbose_name_plural``;
- the class attributes ``title`` and ``description`` of a feed (a class whose base is a
  ``Feed``), and a literal a feed's ``title``/``description`` method returns;
- the first positional argument of a model field (its verbose name), ``models.XField("…")``
  except the relations, whose first argument is the model;
- the label of a ``choices=[(value, "Label"), …]`` pair, and the label of a
  ``TextChoices``/``IntegerChoices`` member, ``DRAFT = "draft", "Draft"``. A member with
  no label at all (``DRAFT = "draft"``) is reported too: Django makes "Draft" from its
  name, in English whatever the language.

Catalogues (:func:`catalogue_defects`): the file parses; its header names the right
``Language`` and the right ``Plural-Forms`` (``PLURAL_FORMS`` of the compile_translations
command, the ones Django's own catalogues use, compared by what they compute for n = 0 …
2000 and the millions); the header is not fuzzy; no entry is fuzzy; no ``msgstr`` (nor
plural form of one) is empty; a ``python-format`` entry has the placeholders (``%(name)s``,
``%s``) of its ``msgid`` in its ``msgstr``, no more and no fewer. In a plural entry the last
form (every language's "other") has those of the plural msgid; another form may leave out
one, the count, where the form says it in words (Arabic's "one" and "two").

Extraction (:func:`extracted_messages`) is Django's ``makemessages`` itself, run on a
copy of the sources with the options of ``make messages``, so the msgids compared with
the catalogues are exactly the ones ``make messages`` would write.
"""

import ast
import contextlib
import gettext as gnu_gettext
import html.parser
import io
import os
import re
import shutil
from pathlib import Path

from babel.messages.pofile import read_po
from django.core.management import call_command
from django.template.base import DebugLexer, TokenType
from django.test import override_settings

from factcheck.management.commands.compile_translations import (
    MAKEMESSAGES_OPTIONS,
    PLURAL_FORMS,
    PLURAL_FORMS_PLACEHOLDER,
    CatalogueError,
    compile_catalogue,
    read_catalogue,
)

BASE_DIR = Path(__file__).resolve().parents[1]

#: Words that are not language: the same in every translation.
NOT_LANGUAGE = {
    # The product's name, shown as a brand in the header, the footer and mail subjects.
    "factcheck",
    # The names of formats and of the hash, the same in every language (feed links, digests).
    "atom",
    "rss",
    "json",
    "sha",
}

LETTER = re.compile(r"[^\W\d_]")

_PLURAL_SAMPLES = [*range(2001), 1_000_000, 2_000_000, 1_000_001, 3_000_000]


def has_language(text: str) -> bool:
    """Whether ``text`` has a letter once the allow-listed words are taken out."""
    words = re.sub(r"[^\w]+", " ", text).split()
    return any(LETTER.search(word) for word in words if word.lower() not in NOT_LANGUAGE)


def _shown(text: str) -> str:
    return " ".join(text.replace(_MARK, " ").split())


# ---------------------------------------------------------------------------------------
# Templates

# What stands in for a tag in the text put back together: no letter, and HTML reads it
# as the space between words or attributes (`<body{% if … %} class="x"{% endif %}>`).
_MARK = " "
_VARIABLE = re.compile("\x01(\\d+)\x02")
_TEXT_ATTRIBUTES = {
    "title",
    "alt",
    "placeholder",
    "aria-label",
    "aria-description",
    "aria-roledescription",
    "data-confirm",
    "data-announce",
}
_NOT_PROSE = {"script", "style", "code", "kbd", "samp"}
_LITERAL_FALLBACK = re.compile(r"\|\s*default(?:_if_none)?\s*:\s*(?P<q>[\"'])(?P<text>.*?)(?P=q)")
_WITH_LITERAL = re.compile(r"(\w+)=(?P<q>[\"'])(?P<text>[^\"']*\s[^\"']*)(?P=q)")
_TRANSLATED_BLOCKS = {"blocktranslate": "endblocktranslate", "blocktrans": "endblocktrans"}


def _flatten(source: str):
    """
    The template's text outside translation tags, each other token replaced by a mark of
    the same number of lines; variables by a numbered mark, returned beside.
    """
    pieces, variables = [], []
    closing = None
    for token in DebugLexer(source).tokenize():
        start, end = token.position
        raw = source[start:end]
        keep_lines = "\n" * raw.count("\n")
        if closing is not None:
            if token.token_type == TokenType.BLOCK and token.contents.split()[0] == closing:
                closing = None
            pieces.append(_MARK + keep_lines)
            continue
        if token.token_type == TokenType.TEXT:
            pieces.append(raw)
        elif token.token_type == TokenType.VAR:
            variables.append((token.contents, token.lineno))
            pieces.append(f"\x01{len(variables) - 1}\x02" + keep_lines)
        else:
            if token.token_type == TokenType.BLOCK:
                name = token.contents.split()[0]
                if name in _TRANSLATED_BLOCKS:
                    closing = _TRANSLATED_BLOCKS[name]
                elif name == "comment":
                    closing = "endcomment"
                elif name in {"include", "with"}:
                    variables.append((token.contents, token.lineno))
                    pieces.append(f"\x01{len(variables) - 1}\x02" + keep_lines)
                    continue
            pieces.append(_MARK + keep_lines)
    return "".join(pieces), variables


def _literal_findings(where, contents):
    found = [match["text"] for match in _LITERAL_FALLBACK.finditer(contents)]
    if contents.split()[0] in {"include", "with"}:
        found += [match["text"] for match in _WITH_LITERAL.finditer(contents)]
    return [
        f"{where}: {text!r} is passed as a literal: write _({text!r}) so it is translated"
        for text in found
        if has_language(text)
    ]


class _TextReader(html.parser.HTMLParser):
    def __init__(self, name, variables):
        super().__init__(convert_charrefs=True)
        self.name, self.variables, self.findings = name, variables, []
        self.skipping = []

    def _where(self):
        return f"{self.name}:{self.getpos()[0]}"

    def _check(self, text, what):
        for index in _VARIABLE.findall(text):
            contents, line = self.variables[int(index)]
            self.findings += _literal_findings(f"{self.name}:{line}", contents)
        shown = _shown(_VARIABLE.sub(_MARK, text))
        if has_language(shown):
            self.findings.append(
                f"{self._where()}: {what} {shown!r} is not marked for translation: "
                "wrap it in {% translate %} (or {% blocktranslate %} with variables)"
            )

    def handle_starttag(self, tag, attrs):
        if tag in _NOT_PROSE:
            self.skipping.append(tag)
        values = dict(attrs)
        for name, value in attrs:
            shown = (
                name in _TEXT_ATTRIBUTES
                or (
                    name == "value"
                    and tag == "input"
                    and (values.get("type") or "").lower() in {"submit", "button", "reset"}
                )
                or (
                    name == "content"
                    and tag == "meta"
                    and (values.get("name") or "").lower() == "description"
                )
            )
            if shown and value:
                self._check(value, f"the {name} of <{tag}>")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag in _NOT_PROSE:
            self.skipping.pop()

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping:
            self._check(data, "the text")


def unmarked_template_text(name: str, source: str) -> list[str]:
    """The user-facing text of a template that is not inside a translation tag."""
    flat, variables = _flatten(source)
    if name.endswith(".txt"):
        findings = []
        for number, line in enumerate(flat.splitlines(), start=1):
            for index in _VARIABLE.findall(line):
                contents, at = variables[int(index)]
                findings += _literal_findings(f"{name}:{at}", contents)
            shown = _shown(_VARIABLE.sub(_MARK, line))
            if has_language(shown):
                findings.append(
                    f"{name}:{number}: the text {shown!r} is not marked for translation: "
                    "wrap it in {% translate %} (or {% blocktranslate %} with variables)"
                )
        return findings
    reader = _TextReader(name, variables)
    reader.feed(flat)
    reader.close()
    return reader.findings


def template_files(base_dir: Path = BASE_DIR) -> list[Path]:
    return sorted(
        path for path in (base_dir / "templates").rglob("*") if path.suffix in {".html", ".txt"}
    )


# ---------------------------------------------------------------------------------------
# Python

GETTEXT_CALLS = {
    "_",
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "npgettext_lazy",
}
REFUSALS = {"ValidationError", "Refused", "NotAllowed", "NotFound", "Conflict"}
_MESSAGE_LEVELS = {"success", "info", "warning", "error", "debug"}
_TEXT_KEYWORDS = {"label", "help_text", "verbose_name", "verbose_name_plural", "empty_label"}
_RELATIONS = {"ForeignKey", "OneToOneField", "ManyToManyField", "ForeignObject"}

#: The code whose strings are scanned, and what of it is not the interface.
PYTHON_PACKAGES = ("claims", "sources", "factcheck")
PYTHON_SKIPPED = ("migrations", "management", "seed", "tests")
PYTHON_SKIPPED_FILES = {"sources/_extract_child.py"}


def _name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def literal_text(node) -> str | None:
    """The literal text of ``node`` if it is a string built from a literal, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) else _MARK for part in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        left, right = literal_text(node.left), literal_text(node.right)
        if left is not None or right is not None:
            return (left or _MARK) + (right or _MARK)
    if isinstance(node, ast.Call) and _name(node.func) == "format":
        return literal_text(node.func.value) if isinstance(node.func, ast.Attribute) else None
    return None


def refusal_names(trees) -> set[str]:
    """``REFUSALS`` and every class in ``trees`` that derives from one, however deep."""
    names = set(REFUSALS)
    classes = [node for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    grown = True
    while grown:
        grown = False
        for node in classes:
            if node.name not in names and any(_name(base) in names for base in node.bases):
                names.add(node.name)
                grown = True
    return names


class _StringFinder(ast.NodeVisitor):
    def __init__(self, name, refusals):
        self.name, self.refusals, self.findings = name, refusals, []

    def _report(self, node, where):
        text = literal_text(node)
        if text is not None and has_language(_shown(text)):
            self.findings.append(
                f"{self.name}:{node.lineno}: {_shown(text)!r} ({where}) is not marked for "
                "translation: wrap it in _() (gettext, or gettext_lazy where the module loads)"
            )

    def visit_Call(self, node):
        called = _name(node.func)
        if called in GETTEXT_CALLS:
            return  # Marked: what is inside is the msgid.
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        if called in self.refusals:
            message = node.args[0] if node.args else keywords.get("message")
            if message is not None:
                self._report(message, f"the message of {called}")
        if (
            isinstance(node.func, ast.Attribute)
            and _name(node.func.value) == "messages"
            and (called in _MESSAGE_LEVELS or called == "add_message")
        ):
            position = 2 if called == "add_message" else 1
            message = node.args[position] if len(node.args) > position else None
            message = message or keywords.get("message")
            if message is not None:
                self._report(message, f"a messages.{called}")
        if called == "add_error":
            error = node.args[1] if len(node.args) > 1 else keywords.get("error")
            if error is not None:
                self._report(error, "a form error")
        if called and called.endswith("Field") and called not in _RELATIONS and node.args:
            self._report(node.args[0], f"the verbose name of a {called}")
        for keyword in node.keywords:
            if keyword.arg in _TEXT_KEYWORDS:
                self._report(keyword.value, f"{keyword.arg}=")
            elif keyword.arg == "error_messages" and isinstance(keyword.value, ast.Dict):
                for value in keyword.value.values:
                    self._report(value, "error_messages=")
            elif keyword.arg == "choices":
                self._choices(keyword.value)
        self.generic_visit(node)

    def _choices(self, node):
        if isinstance(node, ast.List | ast.Tuple):
            for pair in node.elts:
                if isinstance(pair, ast.Tuple) and len(pair.elts) == 2:
                    if isinstance(pair.elts[1], ast.List | ast.Tuple):
                        self._choices(pair.elts[1])  # A named group of choices.
                    else:
                        self._report(pair.elts[1], "a choice's label")

    def visit_Assign(self, node):
        if any(_name(target) and _name(target).endswith("CHOICES") for target in node.targets):
            self._choices(node.value)
        self.generic_visit(node)

    def visit_ClassDef(self, node):
        bases = {_name(base) for base in node.bases}
        if any(base and base.endswith("Choices") for base in bases):
            self._choice_members(node)
        if any(base and base.endswith("Feed") for base in bases):
            self._feed(node)
        if node.name == "Meta":
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if _name(target) in {"verbose_name", "verbose_name_plural"}:
                            self._report(statement.value, f"Meta.{_name(target)}")
        self.generic_visit(node)

    def _choice_members(self, node):
        for statement in node.body:
            if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                continue
            target = statement.targets[0]
            if not isinstance(target, ast.Name) or target.id.startswith("_"):
                continue
            value = statement.value
            if isinstance(value, ast.Tuple) and len(value.elts) >= 2:
                self._report(value.elts[-1], f"the label of {node.name}.{target.id}")
            elif isinstance(value, ast.Constant):
                self.findings.append(
                    f"{self.name}:{statement.lineno}: {node.name}.{target.id} has no label, "
                    "so Django shows its name in English: give it one, "
                    f'{target.id} = {value.value!r}, _("…")'
                )

    def _feed(self, node):
        for statement in node.body:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if _name(target) in {"title", "description"}:
                        self._report(statement.value, f"the feed's {_name(target)}")
            elif isinstance(statement, ast.FunctionDef) and statement.name in {
                "title",
                "description",
            }:
                for inner in ast.walk(statement):
                    if isinstance(inner, ast.Return) and inner.value is not None:
                        self._report(inner.value, f"the feed's {statement.name}")


def python_files(base_dir: Path = BASE_DIR) -> list[Path]:
    files = []
    for package in PYTHON_PACKAGES:
        for path in sorted((base_dir / package).rglob("*.py")):
            relative = path.relative_to(base_dir)
            if set(relative.parts) & set(PYTHON_SKIPPED):
                continue
            if relative.as_posix() in PYTHON_SKIPPED_FILES:
                continue
            files.append(path)
    return files


def unmarked_python_strings(sources: dict[str, str]) -> list[str]:
    """The user-facing string literals in ``sources`` ({name: code}) not wrapped in _()."""
    trees = {name: ast.parse(code, filename=name) for name, code in sources.items()}
    refusals = refusal_names(trees.values())
    findings = []
    for name, tree in trees.items():
        finder = _StringFinder(name, refusals)
        finder.visit(tree)
        findings += finder.findings
    return findings


# ---------------------------------------------------------------------------------------
# Catalogues

_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa%]")


def placeholders(text: str) -> list[str]:
    return sorted(found for found in _PLACEHOLDER.findall(text) if found != "%%")


def plural_behaviour(expression: str) -> list[int]:
    plural = gnu_gettext.c2py(expression)
    return [plural(n) for n in _PLURAL_SAMPLES]


def catalogue_defects(po_path: Path, language: str) -> list[str]:
    """What is wrong with the catalogue ``po_path`` of ``language`` (gettext's spelling)."""
    try:
        catalogue = read_catalogue(po_path)
    except CatalogueError as error:
        return [f"{error} (fix the file so it parses)"]
    defects = []
    named = _raw_header(po_path, "Language")
    if (named or "").replace("-", "_") != language:
        defects.append(
            f"{po_path}:1: the header's Language is {named!r}: write 'Language: {language}\\n'"
        )
    expected_count, expected = PLURAL_FORMS[language]
    header = _raw_header(po_path, "Plural-Forms")
    match = re.fullmatch(r"\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*(.+?);?\s*", header or "")
    right = bool(match) and int(match[1]) == expected_count
    if right:
        try:
            right = plural_behaviour(match[2]) == plural_behaviour(expected)
        except (ValueError, SyntaxError):
            right = False
    if not right:
        defects.append(
            f"{po_path}:1: the header's Plural-Forms is {header!r}: write "
            f"'Plural-Forms: nplurals={expected_count}; plural={expected};\\n'"
        )
    if catalogue.fuzzy:
        defects.append(
            f"{po_path}:1: the header is marked fuzzy: fill it in and remove the '#, fuzzy' "
            "above it"
        )
    for message in list(catalogue)[1:]:
        where = f"{po_path}:{message.lineno}"
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        shown = f"{msgid!r}" + (f" (context {message.context!r})" if message.context else "")
        if message.fuzzy:
            defects.append(
                f"{where}: {shown} is fuzzy: check the translation and remove '#, fuzzy'"
            )
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.pluralizable and len(strings) != expected_count:
            defects.append(
                f"{where}: {shown} has {len(strings)} plural forms; {language} has {expected_count}"
            )
        for index, string in enumerate(strings):
            form = f" (plural form {index})" if message.pluralizable else ""
            if not string:
                defects.append(f"{where}: {shown} has an empty translation{form}: translate it")
                continue
            if "python-format" not in message.flags:
                continue
            if not message.pluralizable:
                if placeholders(string) != placeholders(msgid):
                    defects.append(
                        f"{where}: {shown} has the placeholders {placeholders(string)} but "
                        f"the msgid has {placeholders(msgid)}: keep the same ones"
                    )
                continue
            defect = _plural_placeholder_defect(message.id, string, last=index == len(strings) - 1)
            if defect:
                defects.append(f"{where}: {shown}{form} {defect}")
    return defects


def _plural_placeholder_defect(msgids, string, *, last):
    """
    What is wrong with the placeholders of one plural form, or None. The last form (the
    "other" of every language here) has those of the plural msgid; another form may leave
    out one of them, the count, where the form itself says it (Arabic's "one" and "two").
    """
    allowed = set(placeholders(msgids[0])) | set(placeholders(msgids[1]))
    found = set(placeholders(string))
    invented = sorted(found - allowed)
    missing = sorted(set(placeholders(msgids[1])) - found)
    if invented:
        return f"has the placeholders {invented}, which the msgid has not: keep the same ones"
    if missing and (last or len(missing) > 1):
        return f"leaves out the placeholders {missing}: keep the same ones as the msgid"
    return None


def _raw_header(po_path: Path, field: str) -> str | None:
    """The header ``field`` as the file writes it (Babel rewrites some as it reads them)."""
    text = po_path.read_text(encoding="utf-8", errors="replace")
    match = re.search(rf'"{field}:\s*((?:[^"\\]|\\.)*)"((?:\s*"(?:[^"\\]|\\.)*")*)', text)
    if not match:
        return None
    joined = match[1] + "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match[2]))
    return joined.split("\\n")[0].strip()


def compiled_messages(content: bytes) -> dict:
    """What a ``.mo`` file's content translates: ``{msgid (or (msgid, n)): msgstr}``."""
    return dict(gnu_gettext.GNUTranslations(io.BytesIO(content))._catalog)


def stale_compilation(po_path: Path) -> str | None:
    """Why the ``.mo`` beside ``po_path`` is not what compiling it now gives, or None."""
    mo_path = po_path.with_suffix(".mo")
    if not mo_path.exists():
        return f"{mo_path} is missing: run `make translations`"
    try:
        fresh = compiled_messages(compile_catalogue(po_path))
    except CatalogueError as error:
        return str(error)
    if compiled_messages(mo_path.read_bytes()) != fresh:
        return f"{mo_path} is not compiled from its .po as it is now: run `make translations`"
    return None


# ---------------------------------------------------------------------------------------
# Extraction


def _copy_sources(base_dir: Path, into: Path):
    skipped = {".git", ".venv", "var", "tests", "bench", "docs", "test-artifacts", "locale"}

    def ignore(folder, names):
        top = Path(folder).resolve() == base_dir.resolve()
        return [
            name
            for name in names
            if (top and name in skipped) or name == "__pycache__" or name.endswith(".egg-info")
        ]

    shutil.copytree(base_dir, into, ignore=ignore, symlinks=True)


def extracted_messages(workdir: Path, base_dir: Path = BASE_DIR) -> dict[str, set]:
    """
    ``{domain: {(context, msgid, msgid_plural)}}`` that ``make messages`` extracts from the
    code, by Django's ``makemessages`` with the same options, in a copy of the sources
    under ``workdir`` (it writes beside the templates while it reads them).
    """
    copy = workdir / "project"
    _copy_sources(base_dir, copy)
    (copy / "locale").mkdir()
    found = {}
    previous = Path.cwd()
    try:
        os.chdir(copy)
        with override_settings(LOCALE_PATHS=[]), contextlib.redirect_stdout(io.StringIO()):
            for domain, options in MAKEMESSAGES_OPTIONS.items():
                # makemessages adds its default patterns to the list it is given: a copy.
                given = {**options, "ignore_patterns": list(options["ignore_patterns"])}
                call_command("makemessages", locale=["es"], keep_pot=True, verbosity=0, **given)
                pot = copy / "locale" / f"{domain}.pot"
                found[domain] = message_keys(pot) if pot.exists() else set()
    finally:
        os.chdir(previous)
    return found


def message_keys(po_path: Path) -> set:
    """``{(context, msgid, msgid_plural)}`` of the entries of ``po_path`` (or a .pot)."""
    text = po_path.read_text(encoding="utf-8")
    # A template (.pot) has makemessages' placeholder header, which Babel cannot read.
    text = text.replace(PLURAL_FORMS_PLACEHOLDER, "nplurals=2; plural=(n != 1);")
    keys = set()
    for message in list(read_po(io.StringIO(text), abort_invalid=True))[1:]:
        if isinstance(message.id, tuple):
            keys.add((message.context, message.id[0], message.id[1]))
        else:
            keys.add((message.context, message.id, None))
    return keys


def describe(key) -> str:
    context, msgid, plural = key
    text = repr(msgid)
    if plural is not None:
        text += f" / {plural!r}"
    if context is not None:
        text += f" (context {context!r})"
    return text
