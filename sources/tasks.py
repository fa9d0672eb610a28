"""Background tasks of the sources app (Django's tasks framework)."""

from django.conf import settings
from django.tasks import task

from sources.extraction import ExtractionFailed, NoExtractableText, extract_text
from sources.models import ExtractionStatus, Quotation, SourceVersion
from sources.page_images import quotation_draw_pages
from sources.services import version_extraction_finish


@task
def extract_source_version(version_id):
    """
    Extract the text of an uploaded version in a child process with a time limit
    and a memory cap, sandboxed as EXTRACTION_SANDBOX says, and record the outcome
    on the version. A version that has already been extracted is left alone, so a
    task run twice does no harm. Without a sandbox that EXTRACTION_SANDBOX=bwrap
    requires, the task fails (SandboxUnavailable) and leaves the version to be
    extracted again once it is fixed: the file is not at fault.
    """
    version = SourceVersion.objects.get(pk=version_id)
    if version.is_settled:
        return version.extraction_status
    SourceVersion.objects.filter(pk=version.pk, extraction_status=ExtractionStatus.PENDING).update(
        extraction_status=ExtractionStatus.EXTRACTING
    )
    version.extraction_status = ExtractionStatus.EXTRACTING
    try:
        # The stored file is streamed to the child, never read whole into the worker: a
        # 20 MB upload would otherwise stay in memory beside its text until the task ends.
        with version.file.open("rb") as stored:
            result = extract_text(
                stored,
                version.media_type,
                time_limit=settings.EXTRACTION_TIME_LIMIT_SECONDS,
                memory_limit_mb=settings.EXTRACTION_MEMORY_LIMIT_MB,
                max_pages=settings.EXTRACTION_PDF_MAX_PAGES,
                max_stream_mb=settings.EXTRACTION_PDF_MAX_STREAM_MB,
                sandbox=settings.EXTRACTION_SANDBOX,
                ocr_languages=settings.OCR_LANGUAGES,
                ocr_max_pages=settings.OCR_MAX_PAGES,
            )
    except NoExtractableText as error:
        version_extraction_finish(
            version=version, status=ExtractionStatus.NO_TEXT, error=error.reason
        )
    except ExtractionFailed as error:
        version_extraction_finish(
            version=version, status=ExtractionStatus.FAILED, error=error.reason
        )
    else:
        version_extraction_finish(version=version, result=result, status=ExtractionStatus.READY)
    return version.extraction_status


@task
def draw_quotation_pages(quotation_id):
    """
    Draw a quotation on the pages it stands on (``quotation_draw_pages``), in the same
    sandbox and limits as extraction, and keep the images. Pages drawn before are left as
    they are, so a task run twice does no harm; a quotation gone meanwhile is no error.
    Returns the pages drawn.
    """
    quotation = Quotation.objects.select_related("version").filter(pk=quotation_id).first()
    if quotation is None:
        return []
    images = quotation_draw_pages(quotation=quotation)
    return [image.page for image in images if not image.error]
