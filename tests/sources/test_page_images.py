"""
Quotations drawn on their page: a PDF's quoted characters highlighted by their own boxes
(and a scan's by the words OCR found), made once by the task worker and kept, and shown on
the quotation's page, the review page and the public claim page.
"""

import io
import math
import re

import pypdfium2 as pdfium
import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image, ImageChops, ImageDraw, ImageFont

from claims.models import Claim, ClaimStatus
from factcheck.models import AuditEvent
from sources import _render_child
from sources.models import (
    ExtractionStatus,
    MediaType,
    Quotation,
    QuotationPageImage,
    SourceVersion,
)
from sources.page_images import (
    draw_pages,
    drawing_request,
    pages_to_draw,
    quotation_draw_pages,
)
from sources.services import (
    find_span,
    quotation_create,
    quotation_create_from_selection,
    source_version_upload,
)
from sources.tasks import draw_quotation_pages
from tests.factories import (
    ClaimFactory,
    EvidenceFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    SourceFactory,
    SourceVersionFactory,
)
from tests.sample_files import PAGE_HEIGHT, PAGE_WIDTH, lorem_page, make_text_pdf

pytestmark = pytest.mark.django_db

QUOTED = "the regional budget was balanced in every year since 2015"
#: Long enough to wrap: the quotation runs over two lines of page 2.
QUOTED_OVER_LINES = (
    "Auditors confirmed that the regional budget was balanced in every year since 2015, "
    "with a surplus in 2019 and a small deficit avoided in 2021 by selling"
)


def report_pages(name):
    """Three pages of prose, the second holding QUOTED and QUOTED_OVER_LINES once each."""
    return [
        f"Report {name}, page one. " + lorem_page(1, 900),
        f"Report {name}, page two. {lorem_page(2, 300)} The minister said "
        f"{QUOTED}. {lorem_page(5, 300)} {QUOTED_OVER_LINES} two buildings. " + lorem_page(6, 300),
        f"Report {name}, page three. " + lorem_page(3, 900),
    ]


def upload(content, title="Regional budget report"):
    """A source whose first version is ``content``, uploaded and read as the desk does."""
    version, _created = source_version_upload(
        source=SourceFactory(title=title), content=content, filename="report.pdf", actor=None
    )
    version.refresh_from_db()
    assert version.is_ready, version.extraction_error
    return version


@pytest.fixture
def report(request):
    # Bytes of its own per test: stored files are named by their digest.
    return upload(make_text_pdf(report_pages(request.node.name)))


def quote(version, words):
    """Quote ``words`` as a reader selecting them does (the page may break their lines);
    the quotation and whether it is new."""
    found = re.search(r"\s+".join(map(re.escape, words.split())), version.extracted_text)
    start, end = found.span()
    return quotation_create_from_selection(
        version=version, start=start, end=end, selected_text=words, actor=None
    )


def squashed(text):
    return "".join(text.split())


def page_text_in(content, page, rects):
    """The text PDFium reads in ``rects`` (PDF points) of ``page`` (from 1) of ``content``."""
    document = pdfium.PdfDocument(content)
    try:
        textpage = document[page - 1].get_textpage()
        text = "".join(textpage.get_text_bounded(*rect) for rect in rects)
    finally:
        document.close()
    # PDFium marks a line-end hyphen "\x02", as extraction knows.
    return text.replace("\x02", "-")


def stored_content(version):
    with version.file.open("rb") as stored:
        return stored.read()


def highlight_mask(image):
    """A mask of the pixels of ``image`` that have the highlight's yellow (the page's white
    under its fill): 255 there, 0 elsewhere."""
    red, green, blue = image.convert("RGB").split()
    mask = ImageChops.multiply(
        red.point(lambda v: 255 if v >= 230 else 0), green.point(lambda v: 255 if v >= 200 else 0)
    )
    return ImageChops.multiply(mask, blue.point(lambda v: 255 if v <= 190 else 0))


def pixel_boxes(rects, width, height):
    """``rects`` in PDF points (y up) as pixel boxes of a page drawn ``width`` × ``height``."""
    scale_x, scale_y = width / PAGE_WIDTH, height / PAGE_HEIGHT
    return [
        (
            left * scale_x,
            (PAGE_HEIGHT - top) * scale_y,
            right * scale_x,
            (PAGE_HEIGHT - bottom) * scale_y,
        )
        for left, bottom, right, top in rects
    ]


def count_highlighted(image, boxes, margin):
    """How many pixels of ``image`` are highlighted within ``margin`` of one of ``boxes``
    (pixels: left, top, right, bottom), and how many further from all of them."""
    mask = highlight_mask(image)
    everywhere = mask.histogram()[255]
    draw = ImageDraw.Draw(mask)
    for left, top, right, bottom in boxes:
        draw.rectangle((left - margin, top - margin, right + margin, bottom + margin), fill=0)
    far = mask.histogram()[255]
    return everywhere - far, far


# The drawing and what it is made of


def test_a_quotation_on_page_two_is_drawn_on_page_two_once(report):
    quotation, created = quote(report, QUOTED)

    assert created and quotation.page == 2
    [image] = QuotationPageImage.objects.filter(quotation=quotation)
    assert (image.page, image.error) == (2, "")
    with image.image.open("rb") as stored, Image.open(stored) as png:
        assert png.format == "PNG"
        assert png.size == (image.width, image.height)
    # A page of US Letter drawn 1,600 pixels wide, as tall as its proportions say.
    assert (image.width, image.height) == (1600, math.ceil(1600 * PAGE_HEIGHT / PAGE_WIDTH))
    event = AuditEvent.objects.get(action="quotation.draw_pages", target_id=str(quotation.pk))
    assert event.actor is None
    assert event.changes == {"drawn": [2], "failed": {}}


def test_the_task_draws_what_is_missing_and_says_which_pages(report):
    quotation, _created = quote(report, QUOTED)
    QuotationPageImage.objects.filter(quotation=quotation).delete()

    drawn = draw_quotation_pages.enqueue(quotation.pk)
    gone = draw_quotation_pages.enqueue(Quotation.objects.order_by("-pk").first().pk + 1)

    assert drawn.return_value == [2]
    assert quotation.page_images.get().page == 2
    assert gone.return_value == []


@pytest.mark.parametrize("words", [QUOTED, QUOTED_OVER_LINES], ids=["one line", "two lines"])
def test_the_boxes_drawn_hold_the_quoted_words_and_nothing_else(report, words):
    quotation, _created = quote(report, words)
    content = stored_content(report)

    [drawn] = draw_pages(
        content, drawing_request(quotation, [2]), sandbox=settings.EXTRACTION_SANDBOX
    )

    assert drawn.error == ""
    assert len(drawn.rects) == (1 if words == QUOTED else 2)
    assert squashed(page_text_in(content, 2, drawn.rects)) == squashed(words)


def test_the_highlight_is_inside_the_boxes_and_nowhere_else(report):
    quotation, _created = quote(report, QUOTED_OVER_LINES)
    [drawn] = draw_pages(
        stored_content(report), drawing_request(quotation, [2]), sandbox=settings.EXTRACTION_SANDBOX
    )
    image = quotation.page_images.get()

    with image.image.open("rb") as stored, Image.open(stored) as png:
        boxes = pixel_boxes(drawn.rects, png.width, png.height)
        near, far = count_highlighted(png, boxes, margin=12)

    assert near > 500
    assert far == 0
    # The same drawing as the task stored: made once, from the same file, the same way.
    assert (drawn.width, drawn.height) == (image.width, image.height)


def test_quoting_the_same_words_again_does_not_draw_again(report):
    quotation, _created = quote(report, QUOTED)
    [image] = quotation.page_images.all()
    events = AuditEvent.objects.filter(action="quotation.draw_pages").count()

    again, created = quote(report, QUOTED)
    redrawn = quotation_draw_pages(quotation=quotation)

    assert (again.pk, created) == (quotation.pk, False)
    assert [(row.pk, row.image.name, row.made_at) for row in redrawn] == [
        (image.pk, image.image.name, image.made_at)
    ]
    assert AuditEvent.objects.filter(action="quotation.draw_pages").count() == events


def test_a_quotation_across_a_page_break_is_drawn_on_both_pages(report):
    text = report.extracted_text
    page_two = report.page_offsets[1]
    start = text.rindex(" ", 0, page_two - 40) + 1
    end = text.index(" ", page_two + 10)
    quotation, _created = quotation_create(version=report, start=start, end=end, actor=None)

    images = list(quotation.page_images.order_by("page"))

    assert (quotation.page, quotation.end_page) == (1, 2)
    assert [(image.page, image.error) for image in images] == [(1, ""), (2, "")]
    content = stored_content(report)
    drawn = draw_pages(
        content, drawing_request(quotation, [1, 2]), sandbox=settings.EXTRACTION_SANDBOX
    )
    on_first, on_second = text[start : page_two - 2], text[page_two:end]
    assert squashed(page_text_in(content, 1, drawn[0].rects)) == squashed(on_first)
    assert squashed(page_text_in(content, 2, drawn[1].rects)) == squashed(on_second)


def test_a_quotation_over_more_than_three_pages_is_drawn_on_its_first_three(request):
    pages = [f"Long report {request.node.name}, page {n}. " + lorem_page(n, 400) for n in range(5)]
    version = upload(make_text_pdf(pages))
    quotation, _created = quotation_create(
        version=version, start=0, end=len(version.extracted_text), actor=None
    )

    assert pages_to_draw(quotation) == [1, 2, 3]
    assert list(quotation.page_images.values_list("page", flat=True)) == [1, 2, 3]


def test_a_text_source_has_no_pages_to_draw():
    quotation, created = quotation_create(
        version=SourceVersionFactory(), start=4, end=12, actor=None
    )

    assert created
    assert pages_to_draw(quotation) == []
    assert quotation_draw_pages(quotation=quotation) == []
    assert not QuotationPageImage.objects.exists()


def test_a_damaged_stored_file_keeps_an_error_instead_of_a_page(report):
    content = stored_content(report)
    # The stored bytes cut short: PDFium cannot even find the document's pages.
    with open(report.file.path, "wb") as stored:
        stored.write(content[:200])

    quotation, created = quote(report, QUOTED)

    assert created
    [image] = quotation.page_images.all()
    assert image.page == 2
    assert not image.image
    assert image.error.startswith("The PDF could not be opened")
    event = AuditEvent.objects.get(action="quotation.draw_pages", target_id=str(quotation.pk))
    assert event.changes == {"drawn": [], "failed": {"2": image.error}}


def test_a_file_whose_text_is_not_the_stored_text_is_not_drawn(report, request):
    # Another PDF in its place: its words are not where the quotation's offsets point.
    other = make_text_pdf([f"Other {request.node.name}.", *report_pages("other")[1:]])
    with open(report.file.path, "wb") as stored:
        stored.write(other)

    quotation, _created = quote(report, QUOTED)

    [image] = quotation.page_images.all()
    assert not image.image
    assert "not the text stored for it" in image.error


def test_drawing_twice_keeps_one_image_of_each_page(report):
    quotation, _created = quote(report, QUOTED)
    QuotationPageImage.objects.filter(quotation=quotation).delete()

    first = quotation_draw_pages(quotation=quotation)
    second = quotation_draw_pages(quotation=quotation)

    assert [image.pk for image in first] == [image.pk for image in second]
    assert QuotationPageImage.objects.filter(quotation=quotation).count() == 1


# A scan read by OCR: the words' boxes, drawn on the image


def made_screenshot(lines):
    """A PNG of ``lines`` of text, and each word with its line and its box in the image (as
    OCR would find them)."""
    font = ImageFont.load_default(size=28)
    image = Image.new("RGB", (1200, 80 + 60 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    words = []
    for number, line in enumerate(lines):
        x, y = 40, 40 + 60 * number
        for word in line.split():
            box = draw.textbbox((x, y), word, font=font)
            draw.text((x, y), word, fill="black", font=font)
            words.append((word, number, box))
            x = box[2] + draw.textlength(" ", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue(), image.size, words


def version_read_by_ocr(png, size, words, *, text):
    """A PNG version whose text OCR read, with where each word stands (``ocr_layout``)."""
    layout_words, position = [], 0
    for word, _line, box in words:
        start = text.index(word, position)
        position = start + len(word)
        layout_words.append([1, start, position, *box])
    version = SourceVersion(
        source=SourceFactory(title="Screenshot of a post"),
        number=1,
        media_type=MediaType.PNG,
        byte_size=len(png),
        sha256=SourceVersion.digest(png),
        original_filename="post.png",
        extracted_text=text,
        page_offsets=[0],
        extractor="tesseract (made by the test)",
        ocr_confidence=93.0,
        ocr_layout={
            "pages": [{"width": size[0], "height": size[1], "dpi": 96}],
            "words": layout_words,
        },
        extraction_status=ExtractionStatus.READY,
        extracted_at=timezone.now(),
    )
    version.file.save("post.png", ContentFile(png), save=False)
    version.save()
    return version


def line_box(words, line, first, last):
    """The box around the words ``first`` to ``last`` of line ``line``."""
    boxes = [box for word, number, box in words if number == line]
    names = [word for word, number, _box in words if number == line]
    chosen = boxes[names.index(first) : names.index(last) + 1]
    return [
        min(box[0] for box in chosen),
        min(box[1] for box in chosen),
        max(box[2] for box in chosen),
        max(box[3] for box in chosen),
    ]


def test_a_quotation_of_a_screenshot_is_drawn_over_the_words_ocr_found(request):
    lines = [
        f"Posted by {request.node.name[:20]} on Monday:",
        "the new bridge cost twice what",
        "the council said it would.",
    ]
    png, size, words = made_screenshot(lines)
    version = version_read_by_ocr(png, size, words, text="\n".join(lines))
    start, end = find_span(version.extracted_text, "cost twice what\nthe council said")

    quotation, _created = quotation_create(version=version, start=start, end=end, actor=None)

    [image] = quotation.page_images.all()
    assert (image.page, image.error) == (1, "")
    # Narrower than the drawing's limit: drawn at the screenshot's own size.
    assert (image.width, image.height) == size
    [drawn] = draw_pages(png, drawing_request(quotation, [1]), sandbox=settings.EXTRACTION_SANDBOX)
    assert drawn.rects == [
        line_box(words, 1, "cost", "what"),
        line_box(words, 2, "the", "said"),
    ]
    with image.image.open("rb") as stored, Image.open(stored) as drawn_png:
        near, far = count_highlighted(drawn_png, drawn.rects, margin=12)
    assert near > 300
    assert far == 0


def made_scan(name, *, as_pdf):
    """A page of printed lines, as a screenshot (PNG) or a scan without a text layer (PDF)."""
    font = ImageFont.load_default(size=44)
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    lines = [
        f"Letter {name}",
        "The harbour authority said on Friday",
        "that the new bridge cost twice what",
        "the council had promised in 2019.",
    ]
    for number, line in enumerate(lines):
        draw.text((150, 200 + 90 * number), line, fill=0, font=font)
    out = io.BytesIO()
    if as_pdf:
        image.save(out, format="PDF", resolution=200)
    else:
        image.save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize("as_pdf", [False, True], ids=["screenshot", "scanned PDF"])
def test_a_quotation_of_a_text_read_by_ocr_is_drawn_over_its_words(request, as_pdf):
    content = made_scan(request.node.name[-30:], as_pdf=as_pdf)
    version = upload(content, title="Letter from the harbour authority")
    assert version.read_by_ocr

    quotation, _created = quote(version, "cost twice what the council had promised")

    [image] = quotation.page_images.all()
    assert (image.page, image.error) == (1, "")
    layout = version.ocr_layout
    words = [
        word for word in layout["words"] if word[1] < quotation.end and word[2] > quotation.start
    ]
    lines = {}
    for _page, _start, _end, left, top, right, bottom in words:
        line = next((key for key in lines if abs(key - top) < 20), top)
        lines.setdefault(line, []).append((left, top, right, bottom))
    expected = [
        [
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        ]
        for _line, boxes in sorted(lines.items())
    ]
    [drawn] = draw_pages(
        content, drawing_request(quotation, [1]), sandbox=settings.EXTRACTION_SANDBOX
    )
    assert drawn.rects == expected and len(expected) == 2
    scale = image.width / layout["pages"][0]["width"]
    with image.image.open("rb") as stored, Image.open(stored) as png:
        boxes = [[value * scale for value in rect] for rect in drawn.rects]
        near, far = count_highlighted(png, boxes, margin=12)
    assert near > 500
    assert far == 0


# Where it is shown


@pytest.fixture
def drawn_quotation(report):
    quotation, _created = quote(report, QUOTED)
    return quotation


def page_url(quotation, page=None):
    source_pk = quotation.version.source_id
    if page is None:
        return reverse("sources:quotation_page", args=[source_pk, quotation.pk])
    return reverse("sources:quotation_page_image", args=[source_pk, quotation.pk, page])


def test_an_editor_sees_the_quotation_drawn_on_its_page(editor_client, drawn_quotation):
    response = editor_client.get(page_url(drawn_quotation))

    assert response.status_code == 200
    assert f'alt="{QUOTED}"' in response.text
    assert f'src="{page_url(drawn_quotation, 2)}"' in response.text
    assert 'loading="lazy"' in response.text and 'width="1600"' in response.text
    assert "Regional budget report" in response.text and "page 2" in response.text
    assert "hx-trigger" not in response.text


def test_the_page_image_is_a_png_kept_by_the_browser_alone(editor_client, drawn_quotation):
    response = editor_client.get(page_url(drawn_quotation, 2))

    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert "private" in response["Cache-Control"]
    assert Image.open(io.BytesIO(b"".join(response.streaming_content))).size == (1600, 2071)
    again = editor_client.get(
        page_url(drawn_quotation, 2), headers={"If-None-Match": response["ETag"]}
    )
    assert again.status_code == 304


def test_anonymous_readers_are_sent_to_log_in(client, drawn_quotation):
    for url in (page_url(drawn_quotation), page_url(drawn_quotation, 2)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_a_page_the_quotation_is_not_on_is_not_found(editor_client, drawn_quotation):
    other_source = SourceFactory()

    assert editor_client.get(page_url(drawn_quotation, 3)).status_code == 404
    assert editor_client.get(page_url(drawn_quotation, 1)).status_code == 404
    wrong = reverse("sources:quotation_page", args=[other_source.pk, drawn_quotation.pk])
    assert editor_client.get(wrong).status_code == 404


def test_while_the_page_is_being_drawn_its_part_asks_again(editor_client, drawn_quotation):
    QuotationPageImage.objects.filter(quotation=drawn_quotation).delete()

    waiting = editor_client.get(page_url(drawn_quotation))
    quotation_draw_pages(quotation=drawn_quotation)
    arrived = editor_client.get(page_url(drawn_quotation), headers={"HX-Request": "true"})

    assert 'hx-trigger="every 2s"' in waiting.text
    assert "being drawn" in waiting.text
    assert "hx-trigger" not in arrived.text
    assert f'alt="{QUOTED}"' in arrived.text
    assert "<html" not in arrived.text


def test_a_page_that_could_not_be_drawn_says_why(editor_client, report):
    with open(report.file.path, "wb") as stored:
        stored.write(b"%PDF-1.7\n% damaged on purpose\n")
    quotation, _created = quote(report, QUOTED)

    response = editor_client.get(page_url(quotation))

    assert "Page 2 could not be drawn." in response.text
    assert quotation.page_images.get().error in response.text
    assert "<img" not in response.text.split('id="page-figures"')[1]


def test_a_text_quotation_has_no_page_to_show(editor_client):
    quotation = QuotationFactory()

    response = editor_client.get(page_url(quotation))

    assert response.status_code == 200
    assert "no pages to draw" in response.text


def evidence_claim(quotation, **fields):
    claim = ClaimFactory(**fields)
    EvidenceFactory(claim=claim, quotation=quotation)
    return claim


def publish(claim):
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at=timezone.now()
    )


def public_page_url(claim, quotation, page):
    return reverse(
        "claims:public_evidence_page", args=[claim.case.slug, claim.pk, quotation.pk, page]
    )


def test_the_review_page_shows_each_evidence_quotation_on_its_page(client, drawn_quotation):
    assignment = ReviewAssignmentFactory(claim=evidence_claim(drawn_quotation))
    client.force_login(assignment.reviewer)

    response = client.get(reverse("claims:review", args=[assignment.pk]))

    assert response.status_code == 200
    assert f'<img src="{page_url(drawn_quotation, 2)}" alt="{QUOTED}"' in response.text


def test_the_claim_page_links_to_its_evidence_on_the_page(editor_client, drawn_quotation):
    claim = evidence_claim(drawn_quotation)

    response = editor_client.get(claim.get_absolute_url())

    assert f'href="{page_url(drawn_quotation)}"' in response.text
    assert "See it on the page" in response.text


def test_the_public_claim_page_shows_its_evidence_on_the_page(client, drawn_quotation):
    claim = evidence_claim(drawn_quotation)
    publish(claim)

    page = client.get(claim.get_public_url())
    image = client.get(public_page_url(claim, drawn_quotation, 2))

    assert f'<img src="{public_page_url(claim, drawn_quotation, 2)}" alt="{QUOTED}"' in page.text
    assert image.status_code == 200
    assert image["Content-Type"] == "image/png"
    assert "public" in image["Cache-Control"]
    assert image["ETag"]


def test_an_unpublished_claims_evidence_is_not_public(client, drawn_quotation):
    claim = evidence_claim(drawn_quotation)

    assert client.get(public_page_url(claim, drawn_quotation, 2)).status_code == 404


def test_a_quotation_that_is_not_the_published_claims_evidence_is_not_public(
    client, report, drawn_quotation
):
    claim = evidence_claim(drawn_quotation)
    publish(claim)
    other, _created = quote(report, QUOTED_OVER_LINES)
    not_evidence = public_page_url(claim, other, 2)
    other_case = reverse(
        "claims:public_evidence_page",
        args=[ClaimFactory().case.slug, claim.pk, drawn_quotation.pk, 2],
    )

    assert client.get(not_evidence).status_code == 404
    assert client.get(other_case).status_code == 404
    assert client.get(public_page_url(claim, drawn_quotation, 3)).status_code == 404


def test_a_page_drawn_after_the_public_page_was_stored_shows_at_once(client, drawn_quotation):
    claim = evidence_claim(drawn_quotation)
    publish(claim)
    QuotationPageImage.objects.filter(quotation=drawn_quotation).delete()
    before = client.get(claim.get_public_url())

    quotation_draw_pages(quotation=Quotation.objects.get(pk=drawn_quotation.pk))
    after = client.get(claim.get_public_url())

    assert "<img" not in before.text.split("Evidence")[1]
    assert f'alt="{QUOTED}"' in after.text


def test_the_drawing_child_imports_nothing_of_django():
    # It runs in the sandbox without the settings, the database or their secrets.
    with open(_render_child.__file__) as child:
        lines = child.read().splitlines()
    assert not [line for line in lines if line.startswith(("import django", "from django"))]
    assert not [line for line in lines if "import" in line and "factcheck" in line]


# Pages never drawn, or drawn in vain


def test_a_page_that_failed_is_drawn_by_a_later_run_once_the_file_reads(report):
    content = stored_content(report)
    with open(report.file.path, "wb") as stored:
        stored.write(content[:200])
    quotation, _created = quote(report, QUOTED)
    assert quotation.page_images.get().error

    with open(report.file.path, "wb") as stored:
        stored.write(content)
    [image] = quotation_draw_pages(quotation=quotation)

    assert image.page == 2
    assert image.error == ""
    assert image.image
    assert QuotationPageImage.objects.filter(quotation=quotation).count() == 1


def test_a_quotation_long_without_its_page_says_it_was_not_drawn(editor_client, drawn_quotation):
    QuotationPageImage.objects.filter(quotation=drawn_quotation).delete()
    Quotation.objects.filter(pk=drawn_quotation.pk).update(
        created_at=timezone.now() - timezone.timedelta(hours=1)
    )

    response = editor_client.get(page_url(drawn_quotation))

    assert "hx-trigger" not in response.text
    assert "has not been drawn" in response.text
    assert "manage.py draw_quotation_pages" in response.text


def test_the_command_draws_the_quotations_that_have_no_page(drawn_quotation):
    from io import StringIO

    from django.core.management import call_command

    QuotationPageImage.objects.filter(quotation=drawn_quotation).delete()
    text_quotation = QuotationFactory()
    out = StringIO()

    call_command("draw_quotation_pages", "--dry-run", stdout=out)
    assert not QuotationPageImage.objects.exists()
    call_command("draw_quotation_pages", stdout=out)

    assert out.getvalue().splitlines() == [
        "1 quotation(s) without a drawn page would be queued.",
        "1 quotation(s) without a drawn page queued.",
    ]
    assert drawn_quotation.page_images.get().image
    assert not text_quotation.page_images.exists()
