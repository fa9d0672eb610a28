"""Word (.docx) and OpenDocument text (.odt) files: what they are, and their text.

:func:`document_type` tells a Word or OpenDocument text file from any other ZIP. It runs in
the web process on every upload, so it reads only the ZIP's central directory and, with a
size cap, the one small member that names the type (``mimetype``, ``[Content_Types].xml``),
and never hands XML to a parser.

:func:`extract_docx` (python-docx) and :func:`extract_odt` (odfdo) run in the extraction
child (:mod:`sources._extract_child`), within its memory and time limits, on its read-only
file system. Both first call :func:`check_archive`, which refuses, before any XML parser has
seen the file:

* a zip bomb: more than :data:`MAX_MEMBERS` members; a member that declares more than
  :data:`MAX_MEMBER_BYTES` or, in all, more than :data:`MAX_TOTAL_BYTES`; a member over
  :data:`RATIO_CHECKED_FROM` bytes compressed more than :data:`MAX_RATIO` to 1; or a member
  that inflates to more than its header declares. Every member is inflated here, a chunk at
  a time, and never past what it declares, so a lying header is caught without inflating
  what it hides;
* XML that declares a document type or entities (external entities, the "billion laughs"):
  Word and OpenDocument files never need them. Every member that can be XML (its first bytes
  say so, whatever its name) is scanned whole, after decoding it as libxml2 would (a UTF-16
  part is decoded; an encoding in which ``<!DOCTYPE`` would not be those ASCII bytes, such
  as UTF-7, UTF-32 or EBCDIC, is refused). Images are not scanned (an SVG from Illustrator
  declares entities), since neither library parses them: in a Word file, a member whose
  content type python-docx itself reads as ``image/…``; in an OpenDocument file, ``*.svg``
  (odfdo parses only its fixed parts, ``content.xml`` and the like);
* encrypted (password-protected) and damaged files, with a sentence saying so.

The parsers themselves would not resolve external entities nor reach the network anyway,
as their sources show (python-docx 1.2.0, odfdo 3.27.3, lxml 6.1): python-docx parses every
part with ``etree.XMLParser(remove_blank_text=True, resolve_entities=False)``
(``docx/oxml/parser.py``, ``docx/opc/oxml.py``); odfdo parses with lxml's default parser
(``odfdo/xmlpart.py``, ``odfdo/container.py``), whose defaults since lxml 5 are
``resolve_entities="internal"``, ``no_network=True``, ``load_dtd=False`` and
``huge_tree=False``. Internal entities, though, odfdo's parser would expand: hence the check.
Neither library reaches the network or writes a file when it opens a document from memory:
python-docx reads the parts it needs from a ``zipfile.ZipFile`` over the ``BytesIO``, and
skips a relationship whose target is external (a linked template or picture: it keeps the
address, ``docx/opc/pkgreader.py``); odfdo reads every member into memory
(``Container._read_zip``, after its own zip-bomb check, ``odfdo.security``). Given bytes,
odfdo's ``Document`` would take them for a path: it is always given a ``BytesIO``.

The text is the body in document order, each block canonical (:func:`canonical_text`),
stripped, and joined with ``"\\n\\n"``; empty blocks are left out. ``sections`` gives each
block's offsets and kind:

* ``"heading"``: a heading (Word: a "Heading n", "Title" or "Subtitle" style, or an outline
  level; OpenDocument: ``text:h``);
* ``"paragraph"``: any other paragraph;
* ``"list"``: consecutive list items, one per line (joined with ``"\\n"``); the bullets and
  numbers are drawn by the word processor, not written in the file, and are not added;
* ``"table"``: one line per row, the cells joined with ``" | "``; a cell's paragraphs are
  joined with a space; a cell hidden under a merged cell is left out, as is a row with no
  text; OpenDocument's repeated rows and cells are given once.

Inside a paragraph, tabs stay ``"\\t"`` and line breaks (and Word's page and column breaks)
``"\\n"``. Word: text inserted with tracked changes is kept and deleted text left out; field
results are kept, field codes left out. OpenDocument: white space is collapsed as the format
says (``text:s`` keeps its spaces). Left out: headers and footers, footnotes and endnotes
(and their reference marks), comments, text boxes and shapes, equations, and the document's
properties (title, author).

This module imports only the standard library at import time; python-docx, odfdo and lxml
are imported inside the functions that use them.
"""

from __future__ import annotations

import codecs
import io
import re
import struct
import unicodedata
import zipfile
import zlib

from sources._extract_child import Failure, _join, canonical_text

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ODT = "application/vnd.oasis.opendocument.text"

_DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_DOCX_MAIN_PART = "/word/document.xml"

MB = 1024 * 1024
#: Members (files) in the ZIP. Word and LibreOffice write a few dozen, a few hundred with
#: many images.
MAX_MEMBERS = 5000
#: What one member may inflate to, and all of them together.
MAX_MEMBER_BYTES = 100 * MB
MAX_TOTAL_BYTES = 200 * MB
#: A member larger than this may not be compressed more than MAX_RATIO to 1. Word's XML
#: compresses some 5 to 20 to 1, very repetitive tables rarely past 100; deflate tops out
#: near 1030 to 1, where bombs sit.
RATIO_CHECKED_FROM = 10 * MB
MAX_RATIO = 200
#: Read by document_type, in the web process: the small members that name the type.
MAX_TYPE_MEMBER_BYTES = 1 * MB

PARAGRAPH_SEPARATOR = "\n\n"
LIST_ITEM_SEPARATOR = "\n"
ROW_SEPARATOR = "\n"
CELL_SEPARATOR = " | "
CELL_PARAGRAPH_SEPARATOR = " "

_CHUNK = 1 * MB
#: How much of a DTD is kept to say what it declares.
_DTD_EXCERPT = 64 * 1024

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_CENTRAL_DIRECTORY_ENTRY = b"PK\x01\x02"
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_STORED, _DEFLATED = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED

_NAMES = {DOCX: "Word file", ODT: "OpenDocument file"}


# --------------------------------------------------------------------------------------------
# Recognition (web process)
# --------------------------------------------------------------------------------------------


class _Unreadable(Exception):
    """The ZIP cannot be read (damaged, truncated, compressed with an unknown method)."""


class _Encrypted(Exception):
    """A member, or the whole file, is encrypted."""


class _Refused(Exception):
    """The file is refused as hostile: ``reason`` completes "This … was refused: "."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _open_archive(content: bytes) -> zipfile.ZipFile:
    """A ZipFile over ``content``, once the number of members is known to be small.

    zipfile builds an object for every entry of the central directory, and a 25 MB upload
    can hold half a million. Every entry it reads starts with the entry signature, at its
    own place in ``content``, so counting the signatures (one fast scan) bounds the entries
    before any is built."""
    if content.count(_CENTRAL_DIRECTORY_ENTRY) > MAX_MEMBERS:
        raise _Refused(
            f"it holds more than {MAX_MEMBERS:,} members, the most that is accepted — "
            "possibly a zip bomb."
        )
    try:
        return zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise _Unreadable(str(exc)) from None


def _read_small(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """The member's bytes, if it declares at most ``limit`` bytes (zipfile never inflates a
    member past what it declares, and checks its CRC at the end)."""
    if info.file_size > limit:
        raise _Unreadable(f"{info.filename} is too large to be a type declaration")
    with archive.open(info) as member:
        return member.read(limit + 1)


_OVERRIDE = re.compile(r"<(?:\w+:)?Override\b([^>]*)>")
_ATTRIBUTE = re.compile(r"""([\w:]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _declares_main_document(content_types: bytes) -> bool:
    """Whether ``[Content_Types].xml`` gives /word/document.xml the main document's type.
    Read with regular expressions on purpose: no XML parser runs in the web process."""
    if content_types.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = content_types.decode("utf-16", errors="replace")
    else:
        text = content_types.decode("utf-8", errors="replace")
    for match in _OVERRIDE.finditer(text):
        attributes = {
            name.rpartition(":")[2]: double if double else single
            for name, double, single in _ATTRIBUTE.findall(match.group(1))
        }
        if (
            attributes.get("PartName", "").lower() == _DOCX_MAIN_PART
            and attributes.get("ContentType", "").strip() == _DOCX_MAIN
        ):
            return True
    return False


def document_type(content: bytes) -> str | None:
    """:data:`DOCX` or :data:`ODT` for a ZIP that is one, None for any other ZIP, a damaged
    one, or anything else.

    ODT: the first member is ``mimetype`` and holds exactly the ODT media type. DOCX:
    ``[Content_Types].xml`` declares the part ``/word/document.xml`` with the Word main
    document's content type, and that member is there. Reads the central directory and at
    most :data:`MAX_TYPE_MEMBER_BYTES` of one member; never parses XML. Whether the file can
    be extracted is for :func:`check_archive`, in the extraction child."""
    if not content.startswith(b"PK"):
        return None
    try:
        with _open_archive(content) as archive:
            members = archive.infolist()
            if not members:
                return None
            if members[0].filename == "mimetype":
                data = _read_small(archive, members[0], MAX_TYPE_MEMBER_BYTES)
                return ODT if data == ODT.encode("ascii") else None
            names = set(archive.namelist())
            if "[Content_Types].xml" not in names or "word/document.xml" not in names:
                return None
            info = archive.getinfo("[Content_Types].xml")
            data = _read_small(archive, info, MAX_TYPE_MEMBER_BYTES)
            return DOCX if _declares_main_document(data) else None
    except (
        _Unreadable,
        _Refused,
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,  # a compression method zipfile does not know
        RuntimeError,  # an encrypted member
        KeyError,
        ValueError,
        EOFError,
        OSError,
        struct.error,
        zlib.error,
    ):
        return None


def is_encrypted_office_file(content: bytes) -> bool:
    """Whether ``content`` is a password-protected Word (or other OOXML) file: Office
    stores those not as a ZIP but inside an OLE compound file, as an ``EncryptedPackage``
    stream (whose name is written in UTF-16)."""
    return content.startswith(_OLE_MAGIC) and "EncryptedPackage".encode("utf-16-le") in content


# --------------------------------------------------------------------------------------------
# The archive check (extraction child)
# --------------------------------------------------------------------------------------------


def _shown(name: str) -> str:
    """A member's name as it may appear in a message: no control or formatting characters
    (bidirectional overrides), at most 80 characters."""
    cleaned = "".join(c for c in name if unicodedata.category(c) not in ("Cc", "Cf", "Cs"))
    return cleaned if len(cleaned) <= 80 else cleaned[:79] + "…"


def _bomb(reason: str) -> _Refused:
    return _Refused(f"{reason} — possibly a zip bomb.")


def _check_declared(members: list[zipfile.ZipInfo]) -> None:
    """Refuse, from the central directory alone, what would inflate too far; refuse to read
    what is encrypted or compressed with a method Word and LibreOffice never use. (How many
    members there are, :func:`_open_archive` has bounded.)"""
    total = 0
    for info in members:
        name = _shown(info.filename)
        if info.flag_bits & 0x1:
            raise _Encrypted()
        if info.compress_type not in (_STORED, _DEFLATED):
            raise _Unreadable(f"{name} uses ZIP compression method {info.compress_type}")
        if info.file_size > MAX_MEMBER_BYTES:
            raise _bomb(
                f"its member {name} would expand to {info.file_size:,} bytes, more than the "
                f"limit of {MAX_MEMBER_BYTES // MB} MB for one member"
            )
        if info.file_size > RATIO_CHECKED_FROM and info.file_size > MAX_RATIO * max(
            info.compress_size, 1
        ):
            raise _bomb(
                f"its member {name} is compressed more than {MAX_RATIO} to 1 "
                f"({info.compress_size:,} bytes expanding to {info.file_size:,})"
            )
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise _bomb(f"its members would expand to more than {MAX_TOTAL_BYTES // MB} MB in all")


def _member_data(content: bytes, info: zipfile.ZipInfo) -> memoryview:
    """The member's stored (compressed) bytes, found from its local header as zipfile
    finds them."""
    view = memoryview(content)
    start = info.header_offset
    header = bytes(view[start : start + _LOCAL_HEADER.size])
    if len(header) != _LOCAL_HEADER.size:
        raise _Unreadable(f"{_shown(info.filename)} is cut off")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != b"PK\x03\x04":
        raise _Unreadable(f"{_shown(info.filename)} has no local header")
    begin = start + _LOCAL_HEADER.size + fields[10] + fields[11]
    data = view[begin : begin + info.compress_size]
    if len(data) != info.compress_size:
        raise _Unreadable(f"{_shown(info.filename)} is cut off")
    return data


def _inflate(content: bytes, info: zipfile.ZipInfo):
    """Yield the member's bytes a chunk at a time, stopping at the first chunk that would
    go past what it declares (so a header that lies is caught, not obeyed); checks its
    length and CRC."""
    data = _member_data(content, info)
    name = _shown(info.filename)
    produced, crc = 0, 0

    def counted(chunk: bytes) -> bytes:
        nonlocal produced, crc
        produced += len(chunk)
        if produced > info.file_size:
            raise _bomb(
                f"its member {name} expands past the {info.file_size:,} bytes its header declares"
            )
        crc = zlib.crc32(chunk, crc)
        return chunk

    if info.compress_type == _STORED:
        for at in range(0, len(data), _CHUNK):
            yield counted(bytes(data[at : at + _CHUNK]))
    else:
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        try:
            for at in range(0, len(data), _CHUNK):
                pending = data[at : at + _CHUNK]
                while pending:
                    chunk = inflater.decompress(pending, _CHUNK)
                    pending = inflater.unconsumed_tail
                    if chunk:
                        yield counted(chunk)
            while chunk := inflater.decompress(b"", _CHUNK):  # output still held back
                yield counted(chunk)
        except zlib.error as exc:
            raise _Unreadable(f"{name} is damaged ({exc})") from None
        if not inflater.eof:
            raise _Unreadable(f"{name} is cut off")
    if produced != info.file_size:
        raise _Unreadable(f"{name} is shorter than its header declares")
    if crc != info.CRC:
        raise _Unreadable(f"{name} fails its checksum")


# Declared encodings in which "<!DOCTYPE" and "<!ENTITY" are those ASCII bytes.
_ASCII_COMPATIBLE = re.compile(
    r"utf-?8|(?:us-)?ascii|iso[-_ ]?8859[-_ ]\d+|latin-?1|(?:windows|cp)-?125\d", re.IGNORECASE
)
_UTF_16 = re.compile(r"utf-?16(?:-?[lb]e)?|ucs-?2", re.IGNORECASE)
_ENCODING_DECLARATION = re.compile(r"""^<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")
_DECLARATION = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)
_EXTERNAL_ENTITY = re.compile(r"<!ENTITY\s+(?:%\s+)?[^\s>]+\s+(?:SYSTEM|PUBLIC)\b", re.IGNORECASE)
# Bounded, so that a DTD of unclosed values costs little to look through.
_ENTITY_VALUE = re.compile(r"""<!ENTITY\s+(?:%\s+)?[^\s>]+\s+(["'])([^"']{0,2000})\1""", re.I)
_REFERENCE = re.compile(r"[&%][^\s;&%]+;")
#: How many first bytes of a member tell whether it is XML, and in which encoding.
_SNIFF = 1024


class _OddEncoding(Exception):
    """``encoding`` is the declared (or detected) encoding; ``switched``, whether the
    member starts in another one."""

    def __init__(self, encoding: str, switched: bool = False):
        super().__init__(encoding)
        self.encoding = encoding
        self.switched = switched


def _xml_encoding(head: bytes) -> str | None:
    """The codec to read a member starting with ``head`` as libxml2 would ("latin-1" for
    any ASCII-based encoding: only ASCII is searched), or None when it cannot be XML:
    libxml2 refuses a document that does not start, past a byte-order mark and white space,
    with "<". Raises _OddEncoding (with the encoding's name) for an encoding in which a
    declaration would not be found by searching those bytes."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) or head[:4] in (
        b"\x00\x00\x00<",
        b"<\x00\x00\x00",
        b"\x00\x00<\x00",
        b"\x00<\x00\x00",
    ):
        raise _OddEncoding("UTF-32")
    if head.startswith(b"\x4c\x6f\xa7\x94"):  # "<?xm" in EBCDIC
        raise _OddEncoding("EBCDIC")
    if head.startswith(codecs.BOM_UTF16_LE):
        codec, body = "utf-16-le", head[2:]
    elif head.startswith(codecs.BOM_UTF16_BE):
        codec, body = "utf-16-be", head[2:]
    elif head.startswith(codecs.BOM_UTF8):
        codec, body = "latin-1", head[3:]
    elif b"\x00" in head[:2]:  # UTF-16 without a byte-order mark
        codec, body = ("utf-16-be" if head[:1] == b"\x00" else "utf-16-le"), head
    else:
        codec, body = "latin-1", head
    text = body.decode(codec, errors="replace").lstrip(" \t\r\n")
    if not text.startswith("<"):
        return None
    declared = _ENCODING_DECLARATION.match(text)
    if declared:
        name = declared.group(1).strip()
        # libxml2 switches to the declared encoding right after its name, even from 8-bit
        # to UTF-16 (the rest of the declaration, and a DOCTYPE, in UTF-16), and to any
        # encoding iconv knows (UTF-7, say).
        fits = _UTF_16 if codec.startswith("utf-16") else _ASCII_COMPATIBLE
        if not fits.fullmatch(name):
            switched = bool(_UTF_16.fullmatch(name)) or (
                codec.startswith("utf-16") and bool(_ASCII_COMPATIBLE.fullmatch(name))
            )
            raise _OddEncoding(name, switched)
    return codec


class _DeclarationScan:
    """Looks through an XML member, a chunk at a time, for a document type or entity
    declaration; keeps up to :data:`_DTD_EXCERPT` characters from the first one."""

    def __init__(self, name: str):
        self.name = name
        self.excerpt: str | None = None
        self._head = b""
        self._decoder = None
        self._tail = ""
        self._off = False

    @property
    def full(self) -> bool:
        return self.excerpt is not None and len(self.excerpt) >= _DTD_EXCERPT

    def feed(self, chunk: bytes, *, final: bool = False) -> None:
        if self._off:
            return
        if self._decoder is None:
            self._head += chunk
            if len(self._head) < _SNIFF and not final:
                return
            try:
                codec = _xml_encoding(self._head[:_SNIFF])
            except _OddEncoding as odd:
                encoding = _shown(odd.encoding)[:40]
                if odd.switched:
                    raise _Refused(
                        f"its XML member {self.name} starts in one encoding and declares "
                        f"another ({encoding}), which can hide declarations from this check."
                    ) from None
                raise _Refused(
                    f"its XML member {self.name} is in an encoding ({encoding}) that "
                    "documents do not use and that can hide declarations from this check."
                ) from None
            if codec is None:
                self._off = True
                return
            self._decoder = codecs.getincrementaldecoder(codec)(errors="replace")
            chunk, self._head = self._head, b""
        text = self._decoder.decode(chunk, final)
        if self.excerpt is not None:
            self.excerpt += text
            return
        window = self._tail + text
        found = _DECLARATION.search(window)
        if found:
            self.excerpt = window[found.start() :]
        else:
            self._tail = window[-16:]

    def verdict(self) -> None:
        if self.excerpt is None:
            return
        excerpt = self.excerpt[:_DTD_EXCERPT]
        if _ENTITY.search(excerpt):
            raise _Refused(
                f"its XML declares entities ({_what_is_declared(excerpt)}, in "
                f"{self.name}), which documents do not need and attacks use."
            )
        raise _Refused(
            f"its XML has a document type declaration (in {self.name}), which documents "
            "do not need and attacks use."
        )


def _what_is_declared(excerpt: str) -> str:
    if _EXTERNAL_ENTITY.search(excerpt):
        return "an external entity, which can read files or reach the network"
    values = [value for _, value in _ENTITY_VALUE.findall(excerpt)]
    if any(_REFERENCE.search(value) for value in values):
        return "entities that expand into other entities, as in the “billion laughs” attack"
    return "internal entities"


def _check_member(content: bytes, info: zipfile.ZipInfo, *, scan: bool) -> None:
    """Inflate the member (:func:`_inflate`) and, if ``scan``, refuse it when it is XML
    that declares a document type or entities."""
    declarations = _DeclarationScan(_shown(info.filename)) if scan else None
    for chunk in _inflate(content, info):
        if declarations is not None:
            declarations.feed(chunk)
            if declarations.full:
                break
    if declarations is not None:
        declarations.feed(b"", final=True)
        declarations.verdict()


def _docx_images(content: bytes, archive: zipfile.ZipFile, members) -> set[str]:
    """The members python-docx reads as images (content type ``image/…``), by its own
    reading of ``[Content_Types].xml``, once that member has passed the check."""
    from docx.opc.packuri import PackURI
    from docx.opc.pkgreader import _ContentTypeMap

    try:
        info = archive.getinfo("[Content_Types].xml")
    except KeyError:
        return set()
    _check_member(content, info, scan=True)
    try:
        types = _ContentTypeMap.from_xml(archive.read(info))
    except Exception:  # python-docx says what is wrong when it opens the file itself
        return set()
    images = set()
    for member in members:
        try:
            kind = types[PackURI("/" + member.filename)]
        except (KeyError, ValueError):
            continue
        if kind.lower().startswith("image/"):
            images.add(member.filename)
    return images


def _odt_is_encrypted(archive: zipfile.ZipFile) -> bool:
    try:
        info = archive.getinfo("META-INF/manifest.xml")
    except KeyError:
        return False
    return b"encryption-data" in _read_small(archive, info, MAX_TYPE_MEMBER_BYTES)


def check_archive(content: bytes, media_type: str) -> None:
    """Raise :class:`Failure` unless ``content`` is a ZIP of type ``media_type`` (:data:`DOCX`
    or :data:`ODT`) that is safe to give its parser: see the module's docstring. Reads the
    central directory, then inflates every member a chunk at a time (nothing is kept)."""
    what = _NAMES[media_type]
    unreadable = Failure(
        "failed",
        f"This {what} could not be read: it is damaged or incomplete (for example a truncated "
        f"download), or it is not a {what}.",
    )
    encrypted = Failure(
        "no_text",
        f"This {what} is protected by a password, so its text cannot be read. Save a copy "
        "without the password and upload that.",
    )
    if is_encrypted_office_file(content):
        raise encrypted
    try:
        with _open_archive(content) as archive:
            members = archive.infolist()
            _check_declared(members)
            if media_type == ODT:
                if _odt_is_encrypted(archive):
                    raise _Encrypted()
                images = {m.filename for m in members if m.filename.lower().endswith(".svg")}
            else:
                images = _docx_images(content, archive, members)
            for info in members:
                _check_member(content, info, scan=info.filename not in images)
    except _Refused as refused:
        raise Failure("failed", f"This {what} was refused: {refused.reason}") from None
    except _Encrypted:
        raise encrypted from None
    except (_Unreadable, zipfile.BadZipFile, RuntimeError, NotImplementedError, struct.error):
        raise unreadable from None


# --------------------------------------------------------------------------------------------
# Building the text
# --------------------------------------------------------------------------------------------


class _Blocks:
    """The blocks of a body, in order: ``(kind, text)``, consecutive list items merged."""

    def __init__(self):
        self.parts: list[tuple[str, str]] = []
        self._items: list[str] = []

    def add(self, kind: str, text: str) -> None:
        text = canonical_text(text).strip()
        if not text:
            return
        if kind == "list":
            self._items.append(text)
            return
        self._end_list()
        self.parts.append((kind, text))

    def _end_list(self) -> None:
        if self._items:
            self.parts.append(("list", LIST_ITEM_SEPARATOR.join(self._items)))
            self._items = []

    def result(self, what: str, extractor: str) -> dict:
        self._end_list()
        if not self.parts:
            raise Failure(
                "no_text",
                f"This {what} has no text in its body (it is empty, or holds only images, "
                "text boxes or headers and footers, which are not read).",
            )
        text, sections = _join(self.parts, PARAGRAPH_SEPARATOR)
        return {"text": text, "page_offsets": [], "sections": sections, "extractor": extractor}


def _table_text(rows: list[list[str]]) -> str:
    lines = []
    for cells in rows:
        cleaned = [canonical_text(cell).strip() for cell in cells]
        if any(cleaned):
            lines.append(CELL_SEPARATOR.join(cleaned))
    return ROW_SEPARATOR.join(lines)


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def _nested_too_deeply(what: str) -> Failure:
    return Failure(
        "failed",
        f"This {what} was refused: its structure (tables in tables, or parts that refer "
        "to parts) is nested too deeply to be read.",
    )


def _unreadable_by(what: str, library: str, exc: Exception) -> Failure:
    detail = f"{type(exc).__name__}: {exc}"[:200]
    return Failure(
        "failed",
        f"This {what} could not be read: it is damaged, or not a complete {what} "
        f"({library} says {detail}).",
    )


# --------------------------------------------------------------------------------------------
# Word (python-docx)
# --------------------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"

# Never text of the body: properties, deleted text, and drawings (alternate content).
_DOCX_SKIPPED = {
    _W + name
    for name in (
        "pPr",
        "rPr",
        "sectPr",
        "tblPr",
        "tblGrid",
        "tblPrEx",
        "trPr",
        "tcPr",
        "sdtPr",
        "sdtEndPr",
        "customXmlPr",
        "smartTagPr",
        "del",
        "moveFrom",
    )
} | {_MC + "AlternateContent"}

_RUN_TEXT = {
    _W + "tab": "\t",
    _W + "ptab": "\t",
    _W + "br": "\n",
    _W + "cr": "\n",
    _W + "noBreakHyphen": "-",
}


def _wanted(element, wanted: frozenset, skipped: set):
    """The descendants of ``element`` whose tag is in ``wanted``, in document order, not
    looking inside those, nor inside ``skipped`` ones. Iterative: depth costs no stack."""
    stack = [iter(element)]
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if not isinstance(tag, str) or tag in skipped:
                continue  # comments and processing instructions have no string tag
            if tag in wanted:
                yield child
            else:
                stack.append(iter(child))
                break
        else:
            stack.pop()


_W_RUN = frozenset({_W + "r"})
_W_BLOCKS = frozenset({_W + "p", _W + "tbl"})
_W_ROWS = frozenset({_W + "tr"})
_W_CELLS = frozenset({_W + "tc"})


def _docx_run_text(run) -> str:
    parts = []
    for child in run:
        if child.tag == _W + "t":
            parts.append(child.text or "")
        elif child.tag in _RUN_TEXT:
            parts.append(_RUN_TEXT[child.tag])
    return "".join(parts)


def _docx_paragraph_text(paragraph) -> str:
    return "".join(_docx_run_text(run) for run in _wanted(paragraph, _W_RUN, _DOCX_SKIPPED))


class _WordStyles:
    """Which paragraph styles are headings and which number their paragraphs (a list),
    following ``basedOn``."""

    def __init__(self, styles_element):
        self._styles = {}
        self._default = None
        if styles_element is None:
            return
        for style in styles_element.iterchildren(_W + "style"):
            if style.get(_W + "type") != "paragraph":
                continue
            style_id = style.get(_W + "styleId")
            self._styles[style_id] = style
            if style.get(_W + "default") in ("1", "true", "on"):
                self._default = style_id

    def _chain(self, style_id):
        seen = set()
        while style_id in self._styles and style_id not in seen:
            seen.add(style_id)
            style = self._styles[style_id]
            yield style
            based_on = style.find(_W + "basedOn")
            style_id = based_on.get(_W + "val") if based_on is not None else None

    def is_heading(self, style_id) -> bool:
        for style in self._chain(style_id or self._default):
            name = style.find(_W + "name")
            name = (name.get(_W + "val") or "").lower() if name is not None else ""
            if name.startswith("heading") or name in ("title", "subtitle"):
                return True
            if _outline_level(style.find(_W + "pPr")) is not None:
                return True
        return False

    def numbering(self, style_id) -> bool | None:
        for style in self._chain(style_id or self._default):
            numbered = _numbering(style.find(_W + "pPr"))
            if numbered is not None:
                return numbered
        return None


def _outline_level(properties) -> int | None:
    level = properties.find(_W + "outlineLvl") if properties is not None else None
    if level is None:
        return None
    try:
        value = int(level.get(_W + "val", ""))
    except ValueError:
        return None
    return value if 0 <= value < 9 else None  # 9 is "body text"


def _numbering(properties) -> bool | None:
    """True for numbering, False for numbering explicitly removed (numId 0), None if
    unsaid."""
    numbering = properties.find(_W + "numPr") if properties is not None else None
    if numbering is None:
        return None
    number_id = numbering.find(_W + "numId")
    if number_id is None:
        return None
    return number_id.get(_W + "val") != "0"


def _docx_paragraph_kind(paragraph, styles: _WordStyles) -> str:
    properties = paragraph.find(_W + "pPr")
    style = properties.find(_W + "pStyle") if properties is not None else None
    style_id = style.get(_W + "val") if style is not None else None
    if _outline_level(properties) is not None or styles.is_heading(style_id):
        return "heading"
    numbered = _numbering(properties)
    if numbered is None:
        numbered = styles.numbering(style_id)
    return "list" if numbered else "paragraph"


def _docx_cell_text(cell, styles: _WordStyles) -> str:
    texts = []
    for block in _wanted(cell, _W_BLOCKS, _DOCX_SKIPPED):
        if block.tag == _W + "tbl":
            texts.append(_docx_table_text(block, styles))
        else:
            texts.append(_docx_paragraph_text(block))
    return CELL_PARAGRAPH_SEPARATOR.join(t.strip() for t in texts if t.strip())


def _continues_vertical_merge(cell) -> bool:
    properties = cell.find(_W + "tcPr")
    merge = properties.find(_W + "vMerge") if properties is not None else None
    return merge is not None and merge.get(_W + "val", "continue") == "continue"


def _docx_table_text(table, styles: _WordStyles) -> str:
    rows = [
        [
            _docx_cell_text(cell, styles)
            for cell in _wanted(row, _W_CELLS, _DOCX_SKIPPED | {_W + "tbl"})
            if not _continues_vertical_merge(cell)
        ]
        for row in _wanted(table, _W_ROWS, _DOCX_SKIPPED | {_W + "tbl"})
    ]
    return _table_text(rows)


def extract_docx(content: bytes) -> dict:
    """The text of a Word (.docx) file's body, after :func:`check_archive`."""
    check_archive(content, DOCX)

    import docx

    what = _NAMES[DOCX]
    blocks = _Blocks()
    try:
        document = docx.Document(io.BytesIO(content))
        styles = _WordStyles(document.styles.element)
        body = document.element.body
        for block in _wanted(body, _W_BLOCKS, _DOCX_SKIPPED):
            if block.tag == _W + "tbl":
                blocks.add("table", _docx_table_text(block, styles))
            else:
                kind = _docx_paragraph_kind(block, styles)
                blocks.add(kind, _docx_paragraph_text(block))
    except (Failure, MemoryError):
        raise
    except RecursionError:
        raise _nested_too_deeply(what) from None
    except Exception as exc:  # python-docx's errors on damaged files vary (KeyError, lxml's)
        raise _unreadable_by(what, "python-docx", exc) from None
    return blocks.result(what, f"python-docx {_version('python-docx')}")


# --------------------------------------------------------------------------------------------
# OpenDocument (odfdo)
# --------------------------------------------------------------------------------------------

# Never text of the body: notes, comments, drawings and frames (text boxes), tracked
# changes' deleted text, declarations, the templates of indexes, and ruby annotations.
_ODT_SKIPPED_TAGS = {
    "text:note",
    "office:annotation",
    "office:annotation-end",
    "office:forms",
    "text:tracked-changes",
    "text:sequence-decls",
    "text:variable-decls",
    "text:user-field-decls",
    "text:dde-connection-decls",
    "table:named-expressions",
    "text:soft-page-break",
    "text:ruby-text",
    "text:number",
    "table:table-columns",
    "table:table-column",
    "table:table-column-group",
    "table:table-header-columns",
}
_ODT_SKIPPED_PREFIXES = ("draw:", "dr3d:", "svg:", "presentation:", "form:", "chart:")


def _odt_skipped(tag: str) -> bool:
    return (
        tag in _ODT_SKIPPED_TAGS
        or tag.startswith(_ODT_SKIPPED_PREFIXES)
        or (tag.startswith("text:") and tag.endswith("-source"))  # index templates
    )


_ODF_SPACE = re.compile(r"[ \t\r\n]+")


def _odt_paragraph_text(paragraph) -> str:
    """A paragraph's text as ODF says to read it: runs of white space in the XML are one
    space, none at the start; ``text:s`` (spaces), ``text:tab`` and ``text:line-break``
    are kept as they are."""
    from odfdo.element import EText

    out: list[str] = []
    collapsible_end = True  # at the start, collapsible white space is dropped
    stack = [iter(paragraph.xpath("*|text()"))]
    while stack:
        for node in stack[-1]:
            if isinstance(node, EText):
                text = _ODF_SPACE.sub(" ", str(node))
                if collapsible_end and text.startswith(" "):
                    text = text[1:]
                if text:
                    out.append(text)
                    collapsible_end = text.endswith(" ")
                continue
            tag = node.tag
            if _odt_skipped(tag):
                continue
            if tag == "text:s":
                count = node.get_attribute_integer("text:c") or 1
                out.append(" " * max(1, min(count, 10_000)))
                collapsible_end = False
            elif tag == "text:tab":
                out.append("\t")
                collapsible_end = False
            elif tag == "text:line-break":
                out.append("\n")
                collapsible_end = True
            else:
                stack.append(iter(node.xpath("*|text()")))
                break
        else:
            stack.pop()
    return "".join(out)


class _OdtBody:
    def __init__(self):
        self.blocks = _Blocks()

    def walk(self, container, in_list: bool = False) -> None:
        for node in container.children:
            tag = node.tag
            if _odt_skipped(tag):
                continue
            if tag in ("text:p", "text:h"):
                kind = "list" if in_list else ("heading" if tag == "text:h" else "paragraph")
                self.blocks.add(kind, _odt_paragraph_text(node))
            elif tag == "table:table":
                self.blocks.add("table", _odt_table_text(node))
            elif tag in ("text:list", "text:numbered-paragraph"):
                self.walk(node, in_list=True)
            else:  # sections, list items, indexes' bodies...
                self.walk(node, in_list=in_list)


def _odt_cell_text(cell) -> str:
    texts: list[str] = []
    stack = [iter(cell.children)]
    while stack:
        for node in stack[-1]:
            tag = node.tag
            if _odt_skipped(tag):
                continue
            if tag in ("text:p", "text:h"):
                texts.append(_odt_paragraph_text(node))
            elif tag == "table:table":
                texts.append(_odt_table_text(node))
            else:
                stack.append(iter(node.children))
                break
        else:
            stack.pop()
    return CELL_PARAGRAPH_SEPARATOR.join(t.strip() for t in texts if t.strip())


def _odt_descendants(element, wanted: str, skipped: set):
    stack = [iter(element.children)]
    while stack:
        for node in stack[-1]:
            tag = node.tag
            if tag in skipped or _odt_skipped(tag):
                continue
            if tag == wanted:
                yield node
            else:
                stack.append(iter(node.children))
                break
        else:
            stack.pop()


def _odt_table_text(table) -> str:
    rows = [
        [
            _odt_cell_text(cell)
            for cell in _odt_descendants(
                row, "table:table-cell", {"table:table", "table:covered-table-cell"}
            )
        ]
        for row in _odt_descendants(table, "table:table-row", {"table:table"})
    ]
    return _table_text(rows)


def extract_odt(content: bytes) -> dict:
    """The text of an OpenDocument text (.odt) file's body, after :func:`check_archive`."""
    check_archive(content, ODT)

    from odfdo import Document

    what = _NAMES[ODT]
    walker = _OdtBody()
    try:
        document = Document(io.BytesIO(content))
        if document.mimetype != ODT:
            raise Failure(
                "failed",
                f"This {what} could not be read: it is an OpenDocument file of another kind "
                f"({_shown(str(document.mimetype))[:80]}), not a text document.",
            )
        walker.walk(document.body)
    except (Failure, MemoryError):
        raise
    except RecursionError:
        raise _nested_too_deeply(what) from None
    except Exception as exc:  # odfdo's errors on damaged files vary (KeyError, lxml's)
        raise _unreadable_by(what, "odfdo", exc) from None
    return walker.blocks.result(what, f"odfdo {_version('odfdo')}")
