"""Word (.docx) and OpenDocument text (.odt) sources (sources._documents): recognising them,
their text in document order, and hostile files (zip bombs, entity declarations) refused
before any XML parser sees them. Files are built in the tests (tests.documents); the last
tests go through the real extraction child and the real upload view."""

import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from factcheck.models import AuditEvent
from sources import _documents as documents
from sources._documents import DOCX, ODT, check_archive, document_type, extract_docx, extract_odt
from sources._extract_child import Failure
from sources.models import ExtractionStatus, Quotation, Source, SourceVersion
from sources.services import quotation_create_from_selection
from tests import documents as build

PASSWD = Path("/etc/passwd").read_text().splitlines()[0]  # what an external entity would read


def _infos(content: bytes) -> list[zipfile.ZipInfo]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return archive.infolist()


def refusal(extract, content) -> Failure:
    with pytest.raises(Failure) as caught:
        extract(content)
    assert PASSWD not in caught.value.reason
    return caught.value


# --------------------------------------------------------------------------------------------
# Recognition
# --------------------------------------------------------------------------------------------


def test_word_and_opendocument_text_files_are_recognised_by_their_type_members():
    assert document_type(build.make_docx("recognised")) == DOCX
    assert document_type(build.make_odt("recognised")) == ODT


@pytest.mark.parametrize(
    "make",
    [
        build.plain_zip,
        build.xlsx,
        build.ods,
        lambda marker: build.truncated(build.make_docx(marker)),
        lambda marker: build.truncated(build.make_odt(marker)),
        build.encrypted_docx,
        lambda marker: f"Plain text {marker}".encode(),
        lambda marker: b"",
        lambda marker: build.many_members_docx(marker, documents.MAX_MEMBERS + 1),
    ],
    ids=[
        "plain-zip-with-a-word-document-xml",
        "excel-workbook",
        "opendocument-spreadsheet",
        "truncated-docx",
        "truncated-odt",
        "password-protected-docx",
        "not-a-zip",
        "empty",
        "too-many-members",
    ],
)
def test_any_other_zip_or_a_damaged_one_is_not_recognised(make):
    assert document_type(make("not-recognised")) is None


@pytest.mark.parametrize(
    "make, media_type",
    [
        (build.zip_bomb_docx, DOCX),
        (build.xxe_docx, DOCX),
        (build.billion_laughs_odt, ODT),
    ],
    ids=["docx-zip-bomb", "docx-external-entity", "odt-billion-laughs"],
)
def test_a_hostile_document_is_still_recognised_for_the_child_to_refuse(make, media_type):
    assert document_type(make("recognised-hostile")) == media_type


def test_a_type_declaration_over_its_cap_is_not_read_in_the_web_process():
    good = build.make_docx("big-content-types")
    types = build.read_member(good, "[Content_Types].xml")
    padded = types.replace(
        b"<Types ", b"<!--" + b" " * documents.MAX_TYPE_MEMBER_BYTES + b"--><Types "
    )

    assert document_type(build.rebuild(good, {"[Content_Types].xml": padded})) is None


def test_password_protected_word_files_are_told_apart_from_other_ole_files():
    assert documents.is_encrypted_office_file(build.encrypted_docx("ole"))
    assert not documents.is_encrypted_office_file(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, extract, extractor",
    [
        (build.make_docx, extract_docx, "python-docx 1.2.0"),
        (build.make_odt, extract_odt, "odfdo 3.27.3"),
    ],
    ids=["docx", "odt"],
)
def test_the_body_is_given_in_document_order_with_each_block_located(make, extract, extractor):
    result = extract(make("body-order"))

    text = result["text"]
    assert text == build.expected_text("body-order")
    assert result["page_offsets"] == []
    assert result["extractor"] == extractor
    assert [s["kind"] for s in result["sections"]] == build.EXPECTED_KINDS
    located = {s["kind"]: text[s["start"] : s["end"]] for s in reversed(result["sections"])}
    assert located["heading"] == build.HEADING
    assert located["list"] == "Élément un\nÉlément deux"
    assert located["table"].splitlines()[2] == "قال الوزير | مليون وجبة"
    assert result["sections"][-1]["end"] == len(text)


def test_word_keeps_tracked_insertions_links_fields_and_content_controls_but_not_deletions():
    body = (
        "<w:p><w:r><w:t xml:space='preserve'>Kept </w:t></w:r>"
        "<w:ins w:id='1' w:author='Ed'><w:r><w:t>inserted</w:t></w:r></w:ins>"
        "<w:del w:id='2' w:author='Ed'><w:r><w:delText>deleted</w:delText></w:r></w:del>"
        "<w:r><w:t xml:space='preserve'> and </w:t></w:r>"
        "<w:hyperlink w:anchor='top'><w:r><w:t>linked</w:t></w:r></w:hyperlink>"
        "<w:r><w:t xml:space='preserve'> on </w:t></w:r>"
        "<w:r><w:fldChar w:fldCharType='begin'/></w:r>"
        "<w:r><w:instrText xml:space='preserve'> DATE \\@ \"d MMMM yyyy\" </w:instrText></w:r>"
        "<w:r><w:fldChar w:fldCharType='separate'/></w:r>"
        "<w:r><w:t>1 May 2026</w:t></w:r>"
        "<w:r><w:fldChar w:fldCharType='end'/></w:r>"
        "<w:r><w:footnoteReference w:id='1'/></w:r>"
        "<w:r><w:t>.</w:t></w:r></w:p>"
        "<w:sdt><w:sdtPr><w:alias w:val='Box'/></w:sdtPr><w:sdtContent>"
        "<w:p><w:r><w:t>In a content control.</w:t></w:r></w:p></w:sdtContent></w:sdt>"
        "<w:p><w:r><w:t>Before the break</w:t><w:br w:type='page'/><w:t>after it</w:t>"
        "<w:noBreakHyphen/><w:t>joined</w:t></w:r></w:p>"
    )

    result = extract_docx(build.docx_with_body("word-features", body))

    assert result["text"] == (
        "Kept inserted and linked on 1 May 2026.\n\nIn a content control.\n\n"
        "Before the break\nafter it-joined\n\nword-features"
    )


def test_word_headings_by_outline_level_and_lists_by_numbering_are_told_from_paragraphs():
    body = (
        "<w:p><w:pPr><w:outlineLvl w:val='0'/></w:pPr><w:r><w:t>Outlined</w:t></w:r></w:p>"
        "<w:p><w:pPr><w:numPr><w:ilvl w:val='0'/><w:numId w:val='1'/></w:numPr></w:pPr>"
        "<w:r><w:t>Numbered</w:t></w:r></w:p>"
        "<w:p><w:pPr><w:pStyle w:val='ListBullet'/><w:numPr><w:numId w:val='0'/></w:numPr>"
        "</w:pPr><w:r><w:t>Numbering taken off</w:t></w:r></w:p>"
    )

    result = extract_docx(build.docx_with_body("word-kinds", body))

    assert [(s["kind"], result["text"][s["start"] : s["end"]]) for s in result["sections"]] == [
        ("heading", "Outlined"),
        ("list", "Numbered"),
        ("paragraph", "Numbering taken off"),
        ("paragraph", "word-kinds"),
    ]


def test_opendocument_collapses_white_space_keeps_spacers_and_leaves_notes_and_comments_out():
    body = (
        "<text:h text:outline-level='2'>Sub  heading</text:h>"
        "<text:p>  Kept<text:note text:id='n1' text:note-class='footnote'>"
        "<text:note-citation>1</text:note-citation><text:note-body><text:p>Footnote text"
        "</text:p></text:note-body></text:note> words \n  collapsed<text:s text:c='3'/>kept"
        "<office:annotation><text:p>Comment text</text:p></office:annotation>"
        "<text:span>.</text:span></text:p>"
        "<text:section text:name='S'><text:p>In a section.</text:p></text:section>"
        "<text:tracked-changes><text:changed-region text:id='c1'><text:deletion>"
        "<text:p>Deleted paragraph.</text:p></text:deletion></text:changed-region>"
        "</text:tracked-changes>"
    )

    result = extract_odt(build.odt_with_body("odt-features", body))

    assert result["text"] == (
        "Sub heading\n\nKept words collapsed   kept.\n\nIn a section.\n\nodt-features"
    )
    assert result["sections"][0]["kind"] == "heading"


def test_word_tables_give_merged_cells_once_and_nested_tables_inside_their_cell():
    def cell(text, merge=""):
        properties = f"<w:tcPr><w:vMerge{merge}/></w:tcPr>" if merge is not None else ""
        return f"<w:tc>{properties}<w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"

    nested = "<w:tbl><w:tr>" + cell("in", None) + cell("side", None) + "</w:tr></w:tbl>"
    merged_down = cell("Merged down", " w:val='restart'")
    merged_on = cell("", "")
    body = (
        "<w:tbl>"
        f"<w:tr>{merged_down}{cell('B1', None)}</w:tr>"
        f"<w:tr>{merged_on}{cell('B2', None)}</w:tr>"
        f"<w:tr><w:tc><w:p><w:r><w:t>Outer</w:t></w:r></w:p>{nested}<w:p/></w:tc></w:tr>"
        "</w:tbl>"
    )

    result = extract_docx(build.docx_with_body("word-table", body))

    assert result["text"] == "Merged down | B1\nB2\nOuter in | side\n\nword-table"


def test_opendocument_tables_leave_covered_cells_out_and_nested_lists_are_list_lines():
    body = (
        "<table:table table:name='T'><table:table-column table:number-columns-repeated='2'/>"
        "<table:table-header-rows><table:table-row>"
        "<table:table-cell table:number-columns-spanned='2'><text:p>Spanning</text:p>"
        "</table:table-cell><table:covered-table-cell/></table:table-row>"
        "</table:table-header-rows>"
        "<table:table-row><table:table-cell><text:p>A2</text:p><text:p>more</text:p>"
        "</table:table-cell><table:table-cell><text:p>B2</text:p></table:table-cell>"
        "</table:table-row></table:table>"
        "<text:list><text:list-item><text:p>One</text:p><text:list><text:list-item>"
        "<text:p>One, first</text:p></text:list-item></text:list></text:list-item>"
        "<text:list-item><text:p>Two</text:p></text:list-item></text:list>"
    )

    result = extract_odt(build.odt_with_body("odt-table", body))

    assert result["text"] == "Spanning\nA2 more | B2\n\nOne\nOne, first\nTwo\n\nodt-table"
    assert [s["kind"] for s in result["sections"]] == ["table", "list", "paragraph"]


@pytest.mark.parametrize(
    "make, extract, message",
    [
        (
            build.make_empty_docx,
            extract_docx,
            "This Word file has no text in its body (it is empty, or holds only images, text "
            "boxes or headers and footers, which are not read).",
        ),
        (
            build.make_empty_odt,
            extract_odt,
            "This OpenDocument file has no text in its body (it is empty, or holds only "
            "images, text boxes or headers and footers, which are not read).",
        ),
    ],
    ids=["docx", "odt"],
)
def test_a_document_without_body_text_has_no_text(make, extract, message):
    failure = refusal(extract, make("empty-body"))

    assert (failure.kind, failure.reason) == ("no_text", message)


# --------------------------------------------------------------------------------------------
# Hostile files
# --------------------------------------------------------------------------------------------

WORD_REFUSED = "This Word file was refused: "
ODT_REFUSED = "This OpenDocument file was refused: "


@pytest.mark.parametrize(
    "make, extract, reason",
    [
        (
            build.zip_bomb_docx,
            extract_docx,
            WORD_REFUSED + "its member word/document.xml would expand to 1,073,741,824 bytes, "
            "more than the limit of 100 MB for one member — possibly a zip bomb.",
        ),
        (
            build.lying_header_docx,
            extract_docx,
            WORD_REFUSED + "its member word/document.xml expands past the 2,000 bytes its "
            "header declares — possibly a zip bomb.",
        ),
        (
            lambda marker: build.rebuild(
                build.make_docx(marker),
                {},
                [
                    build.RawMember(f"word/media/part{n}.bin", b"", 8, 90 * build.MB, 0, build.MB)
                    for n in range(3)
                ],
            ),
            extract_docx,
            WORD_REFUSED + "its members would expand to more than 200 MB in all — possibly a "
            "zip bomb.",
        ),
        (
            lambda marker: build.many_members_docx(marker, documents.MAX_MEMBERS + 1),
            extract_docx,
            WORD_REFUSED + "it holds more than 5,000 members, the most that is accepted — "
            "possibly a zip bomb.",
        ),
        (
            build.xxe_docx,
            extract_docx,
            WORD_REFUSED + "its XML declares entities (an external entity, which can read files "
            "or reach the network, in word/document.xml), which documents do not need and "
            "attacks use.",
        ),
        (
            lambda marker: build.xxe_docx(marker, encoding="utf-16"),
            extract_docx,
            WORD_REFUSED + "its XML declares entities (an external entity, which can read files "
            "or reach the network, in word/document.xml), which documents do not need and "
            "attacks use.",
        ),
        (
            build.utf16_switch_docx,
            extract_docx,
            WORD_REFUSED + "its XML member word/document.xml starts in one encoding and "
            "declares another (UTF-16), which can hide declarations from this check.",
        ),
        (
            build.utf7_docx,
            extract_docx,
            WORD_REFUSED + "its XML member word/document.xml is in an encoding (UTF-7) that "
            "documents do not use and that can hide declarations from this check.",
        ),
        (
            lambda marker: build.docx_with_member(
                marker, "word/extra.xml", build.svg_with_entities(marker)
            ),
            extract_docx,
            WORD_REFUSED + "its XML declares entities (internal entities, in word/extra.xml), "
            "which documents do not need and attacks use.",
        ),
        (
            build.billion_laughs_odt,
            extract_odt,
            ODT_REFUSED + "its XML declares entities (entities that expand into other entities, "
            "as in the “billion laughs” attack, in content.xml), which documents do not need "
            "and attacks use.",
        ),
        (
            build.xxe_odt,
            extract_odt,
            ODT_REFUSED + "its XML declares entities (an external entity, which can read files "
            "or reach the network, in content.xml), which documents do not need and attacks "
            "use.",
        ),
    ],
    ids=[
        "docx-member-inflating-to-1-gb",
        "docx-member-whose-header-lies-about-its-size",
        "docx-members-over-200-mb-in-all",
        "docx-with-too-many-members",
        "docx-external-entity",
        "docx-external-entity-in-utf-16",
        "docx-doctype-hidden-after-switching-to-utf-16",
        "docx-doctype-hidden-in-utf-7",
        "docx-non-image-member-declaring-entities",
        "odt-billion-laughs",
        "odt-external-entity",
    ],
)
def test_a_hostile_file_is_refused_with_a_message_before_any_parser_sees_it(make, extract, reason):
    failure = refusal(extract, make("hostile"))

    assert (failure.kind, failure.reason) == ("failed", reason)


def test_a_large_member_compressed_over_200_to_1_is_refused():
    content = build.zip_bomb_docx("ratio", megabytes=50)
    compressed = next(i for i in _infos(content) if i.filename == "word/document.xml")
    assert compressed.file_size > 1000 * compressed.compress_size

    failure = refusal(extract_docx, content)

    assert failure.reason == (
        WORD_REFUSED + "its member word/document.xml is compressed more than 200 to 1 "
        f"({compressed.compress_size:,} bytes expanding to 52,428,800) — possibly a zip bomb."
    )


def test_a_plain_doctype_without_entities_is_refused_too():
    good = build.make_odt("plain-doctype")
    xml = build.read_member(good, "styles.xml").decode()
    xml = build._with_doctype(xml, "<!DOCTYPE office:document-styles>", "", "?>")

    failure = refusal(extract_odt, build.rebuild(good, {"styles.xml": xml.encode()}))

    assert failure.reason == (
        ODT_REFUSED + "its XML has a document type declaration (in styles.xml), which "
        "documents do not need and attacks use."
    )


def test_a_member_name_is_shown_without_its_control_or_direction_characters():
    content = build.docx_with_member(
        "shown-name", "word/\u202eevil\x1b[31m.xml", build.svg_with_entities("shown-name")
    )

    failure = refusal(extract_docx, content)

    assert "in word/evil[31m.xml)" in failure.reason


def test_an_svg_image_declaring_entities_as_illustrator_writes_it_is_not_refused():
    content = build.docx_with_member(
        "svg-image", "word/media/chart.svg", build.svg_with_entities("svg-image"), "image/svg+xml"
    )

    assert extract_docx(content)["text"] == build.expected_text("svg-image")


@pytest.mark.parametrize(
    "make, extract, message",
    [
        (
            build.encrypted_docx,
            extract_docx,
            "This Word file is protected by a password, so its text cannot be read. Save a "
            "copy without the password and upload that.",
        ),
        (
            build.encrypted_odt,
            extract_odt,
            "This OpenDocument file is protected by a password, so its text cannot be read. "
            "Save a copy without the password and upload that.",
        ),
    ],
    ids=["docx", "odt"],
)
def test_a_password_protected_file_says_so(make, extract, message):
    failure = refusal(extract, make("password"))

    assert (failure.kind, failure.reason) == ("no_text", message)


def _corrupted(content: bytes) -> bytes:
    member = next(m for m in build.members_of(content) if m.name == "word/document.xml")
    member.data = member.data[:100] + bytes([member.data[100] ^ 0xFF]) + member.data[101:]
    return build.rebuild(content, {"word/document.xml": member})


@pytest.mark.parametrize(
    "damage",
    [build.truncated, _corrupted, lambda content: b"PK\x03\x04" + content[4:200]],
    ids=["truncated", "flipped-byte", "only-a-header"],
)
def test_a_damaged_file_could_not_be_read(damage):
    failure = refusal(extract_docx, damage(build.make_docx("damaged")))

    assert failure.kind == "failed"
    assert failure.reason.startswith("This Word file could not be read: it is damaged")


def test_a_file_of_the_other_kind_could_not_be_read():
    failure = refusal(extract_odt, build.make_docx("other-kind"))

    assert failure.reason.startswith("This OpenDocument file could not be read:")


def test_check_archive_inflates_a_lying_member_no_further_than_its_header_says():
    bomb = build.lying_header_docx("inflated", declared=documents.MAX_MEMBER_BYTES)
    # It declares 100 MB and holds 1 GB.
    info = next(i for i in _infos(bomb) if i.filename == "word/document.xml")
    produced = 0
    with pytest.raises(documents._Refused):
        for chunk in documents._inflate(bomb, info):
            produced += len(chunk)
    assert produced == documents.MAX_MEMBER_BYTES

    with pytest.raises(Failure, match="expands past the 104,857,600 bytes its header declares"):
        check_archive(bomb, DOCX)


def test_even_unchecked_python_docx_leaves_an_external_entity_unresolved():
    """What the module's docstring says of python-docx's own parser."""
    import docx

    document = docx.Document(io.BytesIO(build.xxe_docx("unchecked-docx")))

    assert "&e;" in document.element.xml  # the reference is kept as it is
    text = "\n".join(p.text for p in document.paragraphs)
    assert f"{build.CLOSING} " in text
    assert PASSWD not in text


def test_even_unchecked_odfdo_never_loads_an_external_entity():
    """What the module's docstring says of odfdo's parser (lxml's defaults)."""
    import odfdo
    from lxml.etree import XMLSyntaxError

    document = odfdo.Document(io.BytesIO(build.xxe_odt("unchecked-odt")))

    with pytest.raises(XMLSyntaxError, match="Entity 'e' not defined"):
        document.body  # noqa: B018 - parsing content.xml is the point


# --------------------------------------------------------------------------------------------
# Through the real extraction child (in its sandbox where bubblewrap works: a read-only file
# system, no network), and through the upload view
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, media_type", [(build.make_docx, DOCX), (build.make_odt, ODT)], ids=["docx", "odt"]
)
def test_the_sandboxed_child_extracts_a_document(make, media_type):
    from sources.extraction import extract_text

    result = extract_text(make("child"), media_type, memory_limit_mb=768)

    assert result.text == build.expected_text("child")
    assert [s["kind"] for s in result.sections] == build.EXPECTED_KINDS


@pytest.mark.parametrize(
    "make, media_type, reason",
    [
        (build.zip_bomb_docx, DOCX, WORD_REFUSED + "its member word/document.xml would expand"),
        (build.xxe_docx, DOCX, WORD_REFUSED + "its XML declares entities (an external entity"),
        (build.billion_laughs_odt, ODT, ODT_REFUSED + "its XML declares entities (entities"),
    ],
    ids=["docx-zip-bomb", "docx-external-entity", "odt-billion-laughs"],
)
def test_the_sandboxed_child_refuses_a_hostile_document(make, media_type, reason):
    from sources.extraction import ExtractionFailed, extract_text

    with pytest.raises(ExtractionFailed) as caught:
        extract_text(make("child-hostile"), media_type, memory_limit_mb=768)

    assert caught.value.reason.startswith(reason)
    assert PASSWD not in caught.value.reason


METADATA = {
    "title": "Ministry statement",
    "publisher": "Ministry of Food",
    "authors": "",
    "url": "",
    "published_on": "2026-05-01",
    "accessed_on": "",
    "role": "primary",
    "notes": "Sent by the press office.",
}


def upload(client, name, content):
    file = SimpleUploadedFile(name, content, content_type="application/octet-stream")
    return client.post(reverse("sources:source_create"), METADATA | {"file": file})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, make, media_type",
    [("statement.docx", build.make_docx, DOCX), ("statement.odt", build.make_odt, ODT)],
    ids=["docx", "odt"],
)
def test_an_uploaded_document_is_read_and_its_sentences_quoted_exactly(
    editor_client, editor, name, make, media_type
):
    marker = f"upload-{media_type[-4:]}"
    response = upload(editor_client, name, make(marker))

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.media_type == media_type
    assert version.extraction_status == ExtractionStatus.READY
    assert version.extracted_text == build.expected_text(marker)
    for sentence in (build.INTRO_NFC, build.ARABIC, "2024 | 2,6 millions"):
        start = version.extracted_text.index(sentence)
        quotation, created = quotation_create_from_selection(
            version=version,
            start=start,
            end=start + len(sentence),
            selected_text=sentence,
            actor=editor,
        )
        assert created
        assert quotation.exact == sentence


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, make, media_type, reason",
    [
        (
            "bomb.docx",
            build.zip_bomb_docx,
            DOCX,
            WORD_REFUSED + "its member word/document.xml would expand to 1,073,741,824 bytes, "
            "more than the limit of 100 MB for one member — possibly a zip bomb.",
        ),
        (
            "passwd.docx",
            build.xxe_docx,
            DOCX,
            WORD_REFUSED + "its XML declares entities (an external entity, which can read files "
            "or reach the network, in word/document.xml), which documents do not need and "
            "attacks use.",
        ),
        (
            "laughs.odt",
            build.billion_laughs_odt,
            ODT,
            ODT_REFUSED + "its XML declares entities (entities that expand into other entities, "
            "as in the “billion laughs” attack, in content.xml), which documents do not need "
            "and attacks use.",
        ),
    ],
    ids=["docx-zip-bomb", "docx-external-entity", "odt-billion-laughs"],
)
def test_a_hostile_upload_is_kept_as_a_failed_version_and_changes_nothing_else(
    editor_client, name, make, media_type, reason
):
    response = upload(editor_client, name, make(f"upload-hostile-{name}"))

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.media_type == media_type
    assert version.extraction_status == ExtractionStatus.FAILED
    assert version.extraction_error == reason
    assert version.extracted_text == ""
    assert version.sections == []
    assert Source.objects.count() == 1
    assert not Quotation.objects.exists()
    assert list(AuditEvent.objects.order_by("pk").values_list("action", flat=True)) == [
        "source.create",
        "sourceversion.create",
        "sourceversion.extraction_failed",
    ]
    page = editor_client.get(reverse("sources:source_detail", args=[version.source_id]))
    assert PASSWD not in page.text
