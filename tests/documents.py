"""Word (.docx) and OpenDocument text (.odt) files built for the tests, good and hostile.

The good ones are made by the libraries that read them (python-docx, odfdo); the hostile ones
are those files with a member replaced, or ZIPs written byte by byte (:func:`raw_zip`) where
a header has to lie. Nothing is downloaded, and no bomb is ever held inflated in memory: a
gigabyte of spaces is one deflated megabyte repeated (:func:`deflated_spaces`).

Every builder takes a ``marker`` that ends up in the file, so that two tests never store the
same bytes (the test media directory names files by their SHA-256).
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass

MB = 1024 * 1024

HEADING = "Informe de verificación"
#: Decomposed "é" on purpose: the extracted text is NFC.
INTRO = "The minister said the café served 2.6 million meals.".replace("é", "e\u0301")
INTRO_NFC = "The minister said the café served 2.6 million meals."
BROKEN_LINE = ("First line of the letter,", "second line\tafter a tab.")
LIST_ITEMS = ("Élément un", "Élément deux")
TABLE = (("Année", "Repas"), ("2024", "2,6 millions"), ("قال الوزير", "مليون وجبة"))
ARABIC = "قال الوزير إن المطعم قدّم مليوني وجبة."
CLOSING = "Quoted sentence for the quotation test."


def expected_text(marker: str) -> str:
    """The text both :func:`make_docx` and :func:`make_odt` extract to."""
    return "\n\n".join(
        [
            HEADING,
            INTRO_NFC,
            f"{BROKEN_LINE[0]}\n{BROKEN_LINE[1]}",
            "\n".join(LIST_ITEMS),
            "\n".join(" | ".join(row) for row in TABLE),
            ARABIC,
            f"{CLOSING} {marker}",
        ]
    )


EXPECTED_KINDS = ["heading", "paragraph", "paragraph", "list", "table", "paragraph", "paragraph"]


def make_docx(marker: str) -> bytes:
    """A Word file with a heading, paragraphs (accented, Arabic), a line break and a tab, a
    bulleted list, a table and an empty paragraph."""
    import docx

    document = docx.Document()
    document.add_heading(HEADING, level=1)
    document.add_paragraph(INTRO)
    broken = document.add_paragraph(BROKEN_LINE[0])
    broken.add_run().add_break()
    broken.add_run(BROKEN_LINE[1])
    for item in LIST_ITEMS:
        document.add_paragraph(item, style="List Bullet")
    table = document.add_table(rows=len(TABLE), cols=2)
    for r, row in enumerate(TABLE):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("")
    document.add_paragraph(ARABIC)
    document.add_paragraph(f"{CLOSING} {marker}")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_odt(marker: str) -> bytes:
    """The OpenDocument twin of :func:`make_docx`."""
    from odfdo import Document, Header, LineBreak, List, Paragraph, Tab, Table

    document = Document("text")
    body = document.body
    body.clear()
    body.append(Header(1, HEADING))
    body.append(Paragraph(INTRO))
    broken = Paragraph(BROKEN_LINE[0])
    broken.append(LineBreak())
    before, after = BROKEN_LINE[1].split("\t")
    broken.append(before)
    broken.append(Tab())
    broken.append(after)
    body.append(broken)
    body.append(List(list(LIST_ITEMS)))
    table = Table("Meals", width=2, height=len(TABLE))
    for r, row in enumerate(TABLE):
        for c, value in enumerate(row):
            table.set_value((c, r), value)
    body.append(table)
    body.append(Paragraph(""))
    body.append(Paragraph(ARABIC))
    body.append(Paragraph(f"{CLOSING} {marker}"))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_empty_docx(marker: str) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.title = marker  # unique bytes, and not body text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_empty_odt(marker: str) -> bytes:
    from odfdo import Document

    document = Document("text")
    document.body.clear()
    document.set_part("marker.txt", marker.encode())
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_with_body(marker: str, body_xml: str) -> bytes:
    """A Word file whose body is ``body_xml`` (WordprocessingML, the ``w`` prefix bound),
    followed by a paragraph holding ``marker``."""
    import docx

    document = docx.Document()
    document.add_paragraph(marker)
    xml = read_member(_saved(document), "word/document.xml").decode()
    namespace = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    assert namespace in xml
    xml = xml.replace("<w:body>", f"<w:body>{body_xml}", 1)
    return rebuild(_saved(document), {"word/document.xml": xml.encode()})


def odt_with_body(marker: str, body_xml: str) -> bytes:
    """An OpenDocument text whose body is ``body_xml`` (the ``text`` and ``office``
    prefixes bound), followed by a paragraph holding ``marker``."""
    from odfdo import Document, Paragraph

    document = Document("text")
    document.body.clear()
    document.body.append(Paragraph(marker))
    out = io.BytesIO()
    document.save(out)
    xml = read_member(out.getvalue(), "content.xml").decode()
    xml = xml.replace("<office:text>", f"<office:text>{body_xml}", 1)
    return rebuild(out.getvalue(), {"content.xml": xml.encode()})


def _saved(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# ZIPs member by member
# --------------------------------------------------------------------------------------------


@dataclass
class RawMember:
    """A ZIP member as written: ``data`` is stored as it is (already deflated for
    ``method`` 8), and the header says ``file_size``, ``crc`` and ``compress_size`` (by
    default the truth about ``data``), whatever ``data`` really holds."""

    name: str
    data: bytes
    method: int
    file_size: int
    crc: int
    compress_size: int | None = None
    flags: int = 0


def deflated(name: str, content: bytes) -> RawMember:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(content) + compressor.flush()
    return RawMember(name, data, zipfile.ZIP_DEFLATED, len(content), zlib.crc32(content))


def stored(name: str, content: bytes) -> RawMember:
    return RawMember(name, content, zipfile.ZIP_STORED, len(content), zlib.crc32(content))


def deflated_spaces(name: str, megabytes: int) -> RawMember:
    """A member of ``megabytes`` MB of spaces, deflated, built without holding them: one
    megabyte compressed after a full flush (so that it starts from an empty history) is the
    same bytes every time, and is repeated; an empty final block ends the stream."""
    block = b" " * MB
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    piece = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert piece == again, "a fully flushed block must compress the same every time"
    crc = 0
    for _ in range(megabytes):
        crc = zlib.crc32(block, crc)
    data = piece * megabytes + b"\x03\x00"  # final, fixed-Huffman, empty block
    return RawMember(name, data, zipfile.ZIP_DEFLATED, megabytes * MB, crc)


def raw_zip(members: list[RawMember]) -> bytes:
    """A ZIP written byte by byte, each header saying what its RawMember says."""
    out = io.BytesIO()
    central = []
    for member in members:
        offset = out.tell()
        name = member.name.encode("utf-8")
        flags = member.flags | 0x800  # UTF-8 names
        compress_size = len(member.data) if member.compress_size is None else member.compress_size
        out.write(
            struct.pack(
                "<4s2B4HL2L2H",
                b"PK\x03\x04",
                20,
                0,
                flags,
                member.method,
                0,
                0x21,
                member.crc,
                compress_size,
                member.file_size,
                len(name),
                0,
            )
        )
        out.write(name)
        out.write(member.data)
        central.append(
            struct.pack(
                "<4s4B4HL2L5H2L",
                b"PK\x01\x02",
                20,
                3,
                20,
                0,
                flags,
                member.method,
                0,
                0x21,
                member.crc,
                compress_size,
                member.file_size,
                len(name),
                0,
                0,
                0,
                0,
                0o100644 << 16,
                offset,
            )
            + name
        )
    directory = b"".join(central)
    start = out.tell()
    out.write(directory)
    out.write(
        struct.pack(
            "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), start, 0
        )
    )
    return out.getvalue()


def members_of(content: bytes) -> list[RawMember]:
    """The members of a ZIP, in order, as RawMembers (deflated again, ``mimetype`` stored)."""
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return [
            (stored if info.filename == "mimetype" else deflated)(info.filename, archive.read(info))
            for info in archive.infolist()
        ]


def read_member(content: bytes, name: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return archive.read(name)


def rebuild(
    content: bytes, replace: dict[str, bytes | RawMember], add: list[RawMember] = ()
) -> bytes:
    """The ZIP ``content`` with members replaced (bytes are deflated) and some added."""
    members = []
    for member in members_of(content):
        new = replace.get(member.name)
        if isinstance(new, bytes):
            new = deflated(member.name, new)
        members.append(new or member)
    return raw_zip([*members, *add])


# --------------------------------------------------------------------------------------------
# Hostile files
# --------------------------------------------------------------------------------------------

XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'


def _with_doctype(xml: str, doctype: str, reference: str, after: str) -> str:
    """``xml`` with ``doctype`` after its XML declaration and ``reference`` right after the
    first ``after``."""
    assert xml.startswith("<?xml"), xml[:60]
    end = xml.index("?>") + 2
    xml = xml[:end] + doctype + xml[end:]
    at = xml.index(after) + len(after)
    return xml[:at] + reference + xml[at:]


def _declare_encoding(xml: str, encoding: str) -> str:
    declaration = re.compile(r"""encoding=["'][^"']*["']""")
    assert declaration.search(xml[:100]), xml[:100]
    return declaration.sub(f'encoding="{encoding}"', xml, count=1)


XXE_DOCTYPE = '<!DOCTYPE w:document [<!ENTITY e SYSTEM "file:///etc/passwd">]>'


def xxe_docx(marker: str, *, encoding: str = "utf-8") -> bytes:
    """A Word file whose document.xml declares an external entity reading /etc/passwd and
    uses it in the text; ``encoding`` "utf-16" writes that member in UTF-16 with a BOM."""
    good = make_docx(marker)
    xml = read_member(good, "word/document.xml").decode()
    xml = _with_doctype(xml, XXE_DOCTYPE, "&e;", f"{CLOSING} ")
    if encoding == "utf-16":
        data = _declare_encoding(xml, "UTF-16").encode("utf-16")
    else:
        data = xml.encode(encoding)
    return rebuild(good, {"word/document.xml": data})


def xxe_odt(marker: str) -> bytes:
    """An OpenDocument text whose content.xml declares an external entity reading
    /etc/passwd and uses it in the text."""
    good = make_odt(marker)
    xml = read_member(good, "content.xml").decode()
    doctype = XXE_DOCTYPE.replace("w:document", "office:document-content")
    xml = _with_doctype(xml, doctype, "&e;", f"{CLOSING} ")
    return rebuild(good, {"content.xml": xml.encode()})


def utf16_switch_docx(marker: str) -> bytes:
    """A Word file whose document.xml starts in ASCII, declares UTF-16, and goes on in
    UTF-16 from there, DOCTYPE included: libxml2 switches encodings mid-declaration."""
    good = make_docx(marker)
    xml = read_member(good, "word/document.xml").decode()
    xml = _with_doctype(xml, XXE_DOCTYPE, "&e;", f"{CLOSING} ")
    xml = _declare_encoding(xml, "UTF-16")
    split = xml.index('"UTF-16"') + len('"UTF-16"')
    data = xml[:split].encode("ascii") + xml[split:].encode("utf-16-le")
    return rebuild(good, {"word/document.xml": data})


def utf7_docx(marker: str) -> bytes:
    """A Word file whose document.xml says it is UTF-7 and hides its DOCTYPE that way."""
    good = make_docx(marker)
    xml = read_member(good, "word/document.xml").decode()
    hidden = XXE_DOCTYPE.replace("<", "+ADw-").replace(">", "+AD4-")
    xml = _with_doctype(xml, hidden, "&e;", f"{CLOSING} ")
    xml = _declare_encoding(xml, "UTF-7")
    return rebuild(good, {"word/document.xml": xml.encode("ascii", "xmlcharrefreplace")})


BILLION_LAUGHS_DOCTYPE = (
    "<!DOCTYPE office:document-content ["
    '<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">'
        for n in range(1, 10)
    )
    + "]>"
)


def billion_laughs_odt(marker: str) -> bytes:
    """An OpenDocument text whose content.xml expands ``&lol9;`` to a billion "lol"s."""
    good = make_odt(marker)
    xml = read_member(good, "content.xml").decode()
    xml = _with_doctype(xml, BILLION_LAUGHS_DOCTYPE, "&lol9;", f"{CLOSING} ")
    return rebuild(good, {"content.xml": xml.encode()})


def zip_bomb_docx(marker: str, megabytes: int = 1024) -> bytes:
    """A Word file whose document.xml is ``megabytes`` MB of spaces (one deflated MB)."""
    return rebuild(
        make_docx(marker), {"word/document.xml": deflated_spaces("word/document.xml", megabytes)}
    )


def lying_header_docx(marker: str, declared: int = 2000) -> bytes:
    """A Word file whose document.xml header says ``declared`` bytes while its data inflates
    to a gigabyte of spaces."""
    bomb = deflated_spaces("word/document.xml", 1024)
    bomb.file_size = declared
    return rebuild(make_docx(marker), {"word/document.xml": bomb})


def svg_with_entities(marker: str) -> bytes:
    """An SVG as Adobe Illustrator writes it: a DOCTYPE declaring entities."""
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" ['
        '<!ENTITY ns_extend "http://ns.adobe.com/Extensibility/1.0/">'
        '<!ENTITY ns_ai "http://ns.adobe.com/AdobeIllustrator/10.0/">]>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg"><title>{marker}</title></svg>'
    ).encode()


def docx_with_member(marker: str, name: str, data: bytes, content_type: str = "") -> bytes:
    """A Word file with one more member, given a Default content type for its extension
    when ``content_type`` is said."""
    good = make_docx(marker)
    replace = {}
    if content_type:
        types = read_member(good, "[Content_Types].xml").decode()
        extension = name.rsplit(".", 1)[1]
        default = f'<Default Extension="{extension}" ContentType="{content_type}"/>'
        replace["[Content_Types].xml"] = types.replace("<Default ", default + "<Default ", 1)
        replace["[Content_Types].xml"] = replace["[Content_Types].xml"].encode()
    return rebuild(good, replace, [deflated(name, data)])


def encrypted_odt(marker: str) -> bytes:
    """An OpenDocument text as LibreOffice saves it with a password: its manifest gives the
    parts' encryption data, and content.xml is ciphertext (here, random-looking bytes)."""
    good = make_odt(marker)
    manifest = read_member(good, "META-INF/manifest.xml").decode()
    entry = re.search(r'<manifest:file-entry manifest:full-path="content.xml"[^>]*?/>', manifest)
    encrypted_entry = (
        entry.group()[:-2] + '><manifest:encryption-data manifest:checksum-type="SHA1/1K" '
        'manifest:checksum="AAAA"><manifest:algorithm '
        'manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/>'
        "</manifest:encryption-data></manifest:file-entry>"
    )
    manifest = manifest.replace(entry.group(), encrypted_entry)
    ciphertext = bytes((i * 151 + 7) % 256 for i in range(4096)) + marker.encode()
    return rebuild(
        good,
        {
            "META-INF/manifest.xml": manifest.encode(),
            "content.xml": stored("content.xml", ciphertext),
        },
    )


def encrypted_docx(marker: str) -> bytes:
    """The start of what Word writes for a .docx with a password: an OLE compound file
    (not a ZIP) holding an ``EncryptedPackage`` stream."""
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    directory = "EncryptedPackage".encode("utf-16-le") + bytes(64)
    return header + directory + marker.encode() + bytes(1024)


def truncated(content: bytes) -> bytes:
    return content[: len(content) * 2 // 3]


def many_members_docx(marker: str, count: int) -> bytes:
    return rebuild(
        make_docx(marker), {}, [stored(f"customXml/item{n}.txt", b"x") for n in range(count)]
    )


def plain_zip(marker: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", f"Just a zip {marker}")
        archive.writestr("word/document.xml", "<x/>")  # the name alone does not make a DOCX
    return out.getvalue()


def xlsx(marker: str) -> bytes:
    """The parts of an Excel workbook that name its type."""
    types = (
        f"{XML_DECLARATION}"
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>'
    )
    return raw_zip(
        [
            deflated("[Content_Types].xml", types.encode()),
            deflated("xl/workbook.xml", f"<workbook>{marker}</workbook>".encode()),
        ]
    )


def ods(marker: str) -> bytes:
    from odfdo import Document

    document = Document("spreadsheet")
    document.set_part("marker.txt", marker.encode())
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
