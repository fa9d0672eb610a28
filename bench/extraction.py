"""Benchmark of PDF text extraction in the sandboxed child process.

Run from the project folder:  .venv/bin/python bench/extraction.py [EXTRA.pdf ...]

Builds a 300-page text PDF (~3,000 characters a page), extracts it with the chosen library
(pypdfium2, through sources.extraction's child process) and, for comparison, with pypdf in
the same kind of child (same limits), and prints wall time and the child's peak memory
(ru_maxrss from wait4). Any PDF paths given are measured the same way, with simple quality
signals: run-together words (25+ letters: missing spaces) and ligature code points (ﬁ, ﬂ…).
"""

from __future__ import annotations

import re
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sources import extraction  # noqa: E402
from sources.extraction import PDF, extract_text  # noqa: E402
from tests.sample_files import lorem_page, make_text_pdf  # noqa: E402

PAGES, CHARS_PER_PAGE, RUNS = 300, 3000, 3
TIME_LIMIT, MEMORY_LIMIT_MB = 120, 512
TARGET_PEAK_MB = 300

# pypdf in a child set up exactly like sources._extract_child (limits first, then parse).
PYPDF_CHILD = """
import io, json, logging, sys
from sources._extract_child import PAGE_SEPARATOR, _join, canonical_text, set_limits
set_limits(float(sys.argv[1]), int(sys.argv[2]))
logging.disable(logging.CRITICAL)
import pypdf
reader = pypdf.PdfReader(io.BytesIO(sys.stdin.buffer.read()))
pages = [canonical_text(page.extract_text() or "") for page in reader.pages]
text, spans = _join([("page", p) for p in pages], PAGE_SEPARATOR)
sys.stdout.write(json.dumps({"ok": True, "text": text, "sections": [],
    "page_offsets": [s["start"] for s in spans], "extractor": "pypdf " + pypdf.__version__}))
"""


def _engines():
    pdfium = extraction._child_args(PDF, TIME_LIMIT, MEMORY_LIMIT_MB)
    pypdf = [sys.executable, "-c", PYPDF_CHILD, str(TIME_LIMIT), str(MEMORY_LIMIT_MB)]
    return [("pypdfium2 (chosen)", pdfium), ("pypdf (candidate)", pypdf)]


def measure(args: list[str], content: bytes, runs: int = RUNS):
    seconds, peaks, result = [], [], None
    for _ in range(runs):
        run = extraction._run_child(args, content, TIME_LIMIT)
        result = extraction._result_from(run, TIME_LIMIT, MEMORY_LIMIT_MB)
        seconds.append(run.seconds)
        peaks.append(run.peak_rss_kb / 1024)
    return statistics.median(seconds), max(peaks), result


def quality(text: str) -> str:
    run_together = len(re.findall(r"[A-Za-z]{25,}", text))
    ligatures = sum(text.count(c) for c in "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
    return f"run-together words {run_together:5d}, ligature chars {ligatures:5d}"


def report(label: str, content: bytes, runs: int = RUNS) -> None:
    print(f"\n{label} ({len(content) / 1e6:.2f} MB)")
    for name, args in _engines():
        try:
            seconds, peak_mb, result = measure(args, content, runs)
        except extraction.ExtractionFailed as exc:
            print(f"  {name:20s} failed: {exc.reason}")
            continue
        print(
            f"  {name:20s} {result.extractor:18s} pages {len(result.page_offsets):4d}  "
            f"chars {len(result.text):8d}  time {seconds:6.2f} s  peak {peak_mb:6.1f} MB  "
            f"{quality(result.text)}"
        )


def main(paths: list[str]) -> int:
    started = time.perf_counter()
    pdf = make_text_pdf([lorem_page(n, CHARS_PER_PAGE) for n in range(1, PAGES + 1)])
    print(
        f"Built a {PAGES}-page text PDF, ~{CHARS_PER_PAGE} chars a page, "
        f"{len(pdf) / 1e6:.2f} MB, in {time.perf_counter() - started:.2f} s"
    )
    print(f"Child limits: {TIME_LIMIT} s, {MEMORY_LIMIT_MB} MB address space; median of {RUNS}")

    # Public API, first child of this process: RUSAGE_CHILDREN's peak is that child's peak.
    started = time.perf_counter()
    result = extract_text(pdf, PDF, time_limit=TIME_LIMIT, memory_limit_mb=MEMORY_LIMIT_MB)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    verdict = "OK" if peak_mb < TARGET_PEAK_MB else "OVER"
    print(
        f"\nextract_text(): {result.extractor}, {len(result.page_offsets)} pages, "
        f"{len(result.text)} chars in {seconds:.2f} s; child peak {peak_mb:.1f} MB "
        f"({verdict}: target < {TARGET_PEAK_MB} MB)"
    )
    baseline = extraction._run_child(
        extraction._child_args(extraction.TEXT, TIME_LIMIT, MEMORY_LIMIT_MB), b"x", TIME_LIMIT
    )
    print(
        f"Child start-up alone (1-byte text): {baseline.seconds:.2f} s, "
        f"peak {baseline.peak_rss_kb / 1024:.1f} MB"
    )

    report(f"Generated {PAGES}-page PDF", pdf)
    for path in paths:
        report(Path(path).name, Path(path).read_bytes(), runs=1)
    return 0 if peak_mb < TARGET_PEAK_MB else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
