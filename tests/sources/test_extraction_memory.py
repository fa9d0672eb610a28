"""
A huge text keeps the worker's own memory bounded: the upload is checked a chunk at a time,
the stored file is streamed to the capped extraction child, and the child's text comes back
raw, decoded once. Measured with tracemalloc (the Python heap of this process, where the
worker's copies of the text would be), on a 20 MB text on a single line.
"""

import tracemalloc

import pytest
from django.test import override_settings

from sources import services
from sources.extraction import TEXT, UnsupportedUpload, detect_media_type, extract_text
from sources.models import ExtractionStatus, SourceVersion
from sources.tasks import extract_source_version
from tests.factories import SourceFactory

MB = 1024 * 1024
SIZE = 20 * MB
SENTENCE = b"The quick brown fox jumps over the lazy dog. "


def huge_line() -> bytes:
    return (SENTENCE * (SIZE // len(SENTENCE) + 1))[:SIZE]


def peak_while(call):
    """``call()``'s result and the most the Python heap grew while it ran."""
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        result = call()
        peak = tracemalloc.get_traced_memory()[1] - baseline
    finally:
        tracemalloc.stop()
    return result, peak


def test_detecting_a_huge_text_never_decodes_it_whole():
    content = huge_line()

    media_type, peak = peak_while(lambda: detect_media_type(content, "huge.txt"))

    assert media_type == TEXT
    assert peak < 5 * MB  # a chunk decoded at a time; the whole text would be 20 MB


def test_a_character_cut_by_a_chunk_boundary_is_still_valid_text():
    # "é" (two bytes) straddles the 1 MiB chunk boundary.
    content = b"a" * (MB - 1) + "é".encode() + b" and more"
    assert detect_media_type(content, "cut.txt") == TEXT


def test_a_bad_byte_past_the_first_chunk_is_reported_at_its_position():
    content = b"a" * (3 * MB + 5) + b"\xff" + b"b" * 10
    with pytest.raises(UnsupportedUpload, match=f"first bad byte at position {3 * MB + 5}\\)"):
        detect_media_type(content, "bad.txt")


def test_extracting_a_huge_single_line_file_holds_its_text_at_most_twice(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(huge_line())

    def extract():
        with path.open("rb") as file:
            return extract_text(file, TEXT, time_limit=60, memory_limit_mb=768)

    result, peak = peak_while(extract)

    assert len(result.text) == SIZE
    # The text (20 MB) and the child's reply it is decoded from (20 MB), never the file too,
    # or the reply's copies; before, this was 80 MB over the 20 MB file read whole.
    assert peak < 2.5 * SIZE


@pytest.mark.django_db
def test_the_extraction_task_on_a_huge_single_line_text_keeps_the_worker_under_100_mb():
    source = SourceFactory()
    # Stored without running its task, which is run below, as the worker runs it.
    with override_settings(
        TASKS={"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ):
        version, _ = services.source_version_upload(
            source=source, content=huge_line(), filename="huge.txt", actor=None
        )

    _, peak = peak_while(lambda: extract_source_version.call(version.pk))

    version = SourceVersion.objects.get(pk=version.pk)
    assert version.extraction_status == ExtractionStatus.READY
    assert len(version.extracted_text) == SIZE
    # Reading, extracting, storing and indexing the text: it was 108 MB (the file read whole,
    # then the reply, its copy and its decoding) before the file was streamed to the child.
    assert peak < 100 * MB
