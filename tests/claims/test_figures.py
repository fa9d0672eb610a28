"""The figure check: claims.figures finds and normalises figures, no database needed."""

import datetime
import importlib.util
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from claims.figures import Figure, extract_figures, missing_figures

SEED_DIR = Path(__file__).resolve().parents[2] / "claims" / "seed"


def keys(text):
    return [figure.key for figure in extract_figures(text)]


def labels(figures):
    return [figure.label for figure in figures]


def load_first_case():
    # By path, not `from claims.seed import first_case`: the package imports models.
    spec = importlib.util.spec_from_file_location("first_case", SEED_DIR / "first_case.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("written", ["2.6×", "2.6 ×", "2.6x", "2.6 times", "2.6-fold", "2.6 fold"])
def test_times_sign_glued_x_times_and_fold_are_one_figure(written):
    assert keys(f"up to {written} higher throughput") == [("×", Decimal("2.6"))]
    assert missing_figures("up to 2.6× higher", [f"claims {written} higher"]) == []


def test_thousands_separator_does_not_change_the_number():
    assert keys("1,111 tokens per second") == keys("1111 tokens per second")
    assert keys("70,000 tokens") == [("count:token", Decimal(70000))]
    assert missing_figures("It did 1111 tokens per second.", ["reports 1,111 tokens/s"]) == []


@pytest.mark.parametrize("written", ["17%", "17 %", "17 percent", "17 per cent", "17-percent"])
def test_percent_sign_and_words_are_one_unit(written):
    assert keys(f"{written} of requests failing") == [("%", Decimal(17))]


@pytest.mark.parametrize("written", ["467s", "467 s", "467 sec", "467 seconds", "467-second"])
def test_seconds_written_any_way_are_one_unit(written):
    assert keys(f"takes {written} in total") == [("s", Decimal(467))]


def test_trailing_zero_keeps_the_value_and_the_unit_must_still_match():
    assert keys("9.0 seconds") == keys("9 seconds") == [("s", Decimal(9))]
    assert extract_figures("9.0 seconds")[0].text == "9.0 seconds"
    assert missing_figures("9 seconds", ["reduced to 9.0 seconds"]) == []
    assert labels(missing_figures("9 seconds", ["reduced to 9.0 minutes"])) == ["9 s"]


def test_time_units_are_not_converted_into_each_other():
    assert keys("eight minutes, 24-hour window, 2 hours, 5 ms") == [
        ("min", Decimal(8)),
        ("h", Decimal(24)),
        ("h", Decimal(2)),
        ("ms", Decimal(5)),
    ]
    assert labels(missing_figures("480 seconds", ["eight minutes"])) == ["480 s"]


def test_hours_include_the_compound_adjective():
    assert missing_figures("a 24 hour window", ["within a 24-hour compilation window"]) == []


@pytest.mark.parametrize(
    "written", ["October 27, 2026", "Oct. 27, 2026", "27 October 2026", "27th October 2026"]
)
def test_dates_in_words_and_iso_are_one_date(written):
    expected = [("date", datetime.date(2026, 10, 27))]
    assert keys(f"baselines dated {written}.") == expected
    assert keys("baselines dated 2026-10-27.") == expected
    assert missing_figures(f"dated {written}", ["as of 2026-10-27"]) == []


def test_date_digits_are_not_also_read_as_numbers():
    figures = extract_figures("On October 27, 2026, 3 nodes ran.")
    assert labels(figures) == ["2026-10-27", "3 nodes"]


def test_date_without_year_is_matched_by_a_full_date_but_not_the_other_way():
    assert labels(extract_figures("As of November 4, Together says")) == ["November 4"]
    assert missing_figures("As of November 4", ["November 4, 2026"]) == []
    assert labels(missing_figures("November 4, 2026", ["As of November 4,"])) == ["2026-11-04"]
    assert labels(missing_figures("in October 2026", ["dated 27 October 2026"])) == []


def test_impossible_dates_are_not_dates():
    assert ("date", datetime.date(2026, 2, 28)) not in keys("February 30, 2026")
    assert all(unit != "date" for unit, _ in keys("February 30, 2026"))


@pytest.mark.parametrize(
    "written",
    ["1.5–6.4×", "1.5 – 6.4×", "1.5-6.4x", "1.5× to 6.4×", "1.5x to 6.4x", "1.5 to 6.4 times"],
)
def test_ranges_give_both_endpoints_with_the_unit(written):
    assert keys(f"speedups of {written} while") == [("×", Decimal("1.5")), ("×", Decimal("6.4"))]


def test_range_endpoints_match_either_way_of_writing_the_range():
    assert missing_figures("degraded by 10x to 40x", ["tail latency degrading 10–40×"]) == []
    assert missing_figures("speedups of 1.5–6.4×", ["from 1.5× to 6.4×"]) == []
    assert labels(missing_figures("from 1.5× to 7×", ["1.5–6.4×"])) == ["7×"]


def test_range_first_endpoint_keeps_its_own_text_and_offsets():
    text = "speedups of 1.5–6.4×"
    first, second = extract_figures(text)
    assert (first.text, first.unit) == ("1.5", "×")
    assert text[first.start : first.end] == "1.5"
    assert second.text == "6.4×"


def test_other_shared_unit_lists_and_ranges():
    assert labels(extract_figures("1,111 / 1,205 TPS")) == ["1,111 tokens/s", "1,205 tokens/s"]
    assert labels(extract_figures("from 467 to 9.0 seconds")) == ["467 s", "9 s"]
    assert labels(extract_figures("between 2 and 4 nodes")) == ["2 nodes", "4 nodes"]


def test_a_spaced_dash_is_a_parenthesis_not_a_range():
    figures = extract_figures("10 for API readiness — 467 seconds in total")
    assert labels(figures) == ["10", "467 s"]


def test_twice_is_two_times():
    assert keys("used twice the replica size") == [("×", Decimal(2))]
    assert missing_figures("used 2× the replica size", ["twice the replica size"]) == []
    assert missing_figures("used twice the replica size", ["a 2x replica"]) == []
    assert keys("thrice, a tenfold gain") == [("×", Decimal(3)), ("×", Decimal(10))]


@pytest.mark.parametrize(
    "text",
    [
        "on a B200",
        "an NVIDIA GB300",
        "tested on an H100",
        "choosing TP8 over TP4",
        "On Llama 1B, the canonical workload",
        "On MiniMax M3.1-Flash",
        "DeepSeek v4.1-Flash",
        "abstract and §5 results, §5.2 protocol",
        "part of the same Figure 8 low-latency evaluation",
        "see table 3 and section 4.2",
        "Trainium2's available HBM capacity",
        "GPT-4 and batch-size-1 runs",
        "- [1] Together AI",
        "a weather model, Aurora 1.5, scored",
        "On AIFS-ENS 2.0, the baseline",
        "a 27th attempt",
    ],
)
def test_identifiers_sections_and_citations_are_not_figures(text):
    assert extract_figures(text) == []


def test_a_name_followed_by_a_measurement_is_still_a_figure():
    text = "a different table: Aurora 1.5, a weather model, scored 3.7×"
    assert labels(extract_figures(text)) == ["3.7×"]
    assert labels(extract_figures("the compiler beats Together AI 2.6× on")) == ["2.6×"]


def test_a_number_at_the_start_of_a_sentence_is_not_a_name():
    assert labels(extract_figures("Read the paper. Treat 2.6 as the claim.")) == ["2.6"]
    assert labels(extract_figures("Together reports 1,111 tokens per second")) == ["1,111 tokens/s"]


def test_tokens_per_second_variants_are_one_unit():
    for written in ["1,111 tokens per second", "1111 tokens/s", "1,111 TPS", "1,111 tok/s"]:
        assert keys(written) == [("tokens/s", Decimal(1111))], written
    assert keys("1 token per second") == [("tokens/s", Decimal(1))]
    assert keys("400 requests per second") == [("requests/s", Decimal(400))]


def test_spelled_and_digit_counts_match_in_plural_and_singular():
    assert keys("at most two nodes per model") == keys("at most 2 nodes per model")
    assert keys("one node") == keys("1 node") == [("count:node", Decimal(1))]
    assert missing_figures("using 2 nodes", ["using at most two nodes per model"]) == []
    assert missing_figures("a single run of one model", ["1 models"]) == []


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("four frontier models", "count:model", 4),
        ("five hardware platforms", "count:platform", 5),
        ("Two further results", "count:result", 2),
        ("12 queries", "count:query", 12),
        ("8 NVIDIA GPUs", "count:gpu", 8),
        ("70,000-token input sequence lengths", "count:token", 70000),
        ("a dozen models", "count:model", 12),
        ("half a dozen requests", "count:request", 6),
        ("twenty-five experiments", "count:experiment", 25),
        ("1.2 million tokens", "count:token", 1200000),
    ],
)
def test_counts_use_the_head_noun_singularised(text, unit, value):
    assert keys(text) == [(unit, Decimal(value))]


@pytest.mark.parametrize(
    "text",
    [
        "the most convincing one.",
        "one judgment call worth noticing",
        "one-click optimization",
        "a few dozen tries",
        "dozens of tries",
        "trillions of tokens",
    ],
)
def test_spelled_numbers_without_a_noun_and_vague_amounts_are_not_figures(text):
    assert extract_figures(text) == []


def test_a_digit_number_without_a_noun_is_bare():
    assert keys("50 for weight loading") == [("", Decimal(50))]
    assert keys("The 2.6 itself needs its conditions") == [("", Decimal("2.6"))]
    assert keys("at batch size 1 is memory-bound") == [("", Decimal(1))]
    # A noun in the singular names the figure: it counts only after a one.
    assert keys("Whether the 3.7 result explains it") == [("", Decimal("3.7"))]
    assert keys("the 2 model comparison") == [("", Decimal(2))]


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [("8 GPU nodes", "count:node", 8), ("five GPU servers", "count:server", 5)],
)
def test_a_singular_noun_before_a_plural_qualifies_it(text, unit, value):
    assert keys(text) == [(unit, Decimal(value))]
    assert labels(missing_figures(f"It had {text}.", ["It used 8 GB of memory."])) != []


def test_a_figure_named_by_a_singular_noun_is_supported_by_the_same_value():
    statement = "Whether the 3.7 result explains the gain is unclear."

    assert missing_figures(statement, ["up to 3.7× higher throughput"]) == []


def test_a_bare_evidence_number_does_not_support_a_figure_with_a_unit():
    assert labels(missing_figures("2.6x higher", ["meet the 2.6 only if"])) == ["2.6×"]
    assert labels(missing_figures("takes 50 seconds", ["50 for weight loading"])) == ["50 s"]
    assert labels(missing_figures("uses 2 nodes", ["uses 2"])) == ["2 nodes"]


def test_a_bare_statement_number_is_supported_by_the_value_with_any_unit_or_a_year():
    assert missing_figures("Treat 2.6 as the claim", ["2.6× higher"]) == []
    assert missing_figures("since 2026", ["dated October 27, 2026"]) == []
    assert labels(missing_figures("since 2025", ["dated October 27, 2026"])) == ["2025"]


def test_different_units_with_the_same_value_do_not_match():
    assert labels(missing_figures("2.6% higher", ["2.6× higher"])) == ["2.6%"]
    assert labels(missing_figures("4 platforms", ["four frontier models"])) == ["4 platforms"]


def test_missing_figures_are_in_statement_order_without_duplicates():
    statement = "Up to 3.7x, then 2.6×, then 2.6 times again, 17% and 3.7× once more."
    missing = missing_figures(statement, ["nothing numeric here", "17 percent of requests"])
    assert labels(missing) == ["3.7×", "2.6×"]
    assert [figure.text for figure in missing] == ["3.7x", "2.6×"]


def test_any_evidence_text_may_support_a_figure():
    statement = "2.6x on four models, dated October 27, 2026"
    evidence = ["up to 2.6 times higher", "on four frontier models", "dated 2026-10-27"]
    assert missing_figures(statement, evidence) == []
    assert labels(missing_figures(statement, evidence[:2])) == ["2026-10-27"]


def test_offsets_and_text_point_back_into_the_source_text():
    text = "Together reports 1,111 tokens per second against 633, a 2.6x gain, on 27 Oct 2026."
    for figure in extract_figures(text):
        assert isinstance(figure, Figure)
        assert text[figure.start : figure.end] == figure.text
    assert [figure.text for figure in extract_figures(text)] == [
        "1,111 tokens per second",
        "633",
        "2.6x",
        "27 Oct 2026",
    ]


def test_the_module_imports_no_django():
    script = (
        "import sys; import claims.figures; "
        "sys.exit(any(name.split('.')[0] == 'django' for name in sys.modules))"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", script], cwd=root, check=False)
    assert result.returncode == 0


# What each seeded claim's statement adds beyond its own quotation, reviewed by hand:
# every entry is a figure the quote does not state, none a normalisation failure.
# Most give a unit to a number the quote leaves bare ("50 for weight loading" →
# "50 seconds", "633 for the best" → "633 tokens per second", "the 2.6" → "2.6x"),
# or restate a figure from elsewhere in the article; "8" is the statement spelling
# out TP8 as "tensor parallelism 8", "2026" the year it adds to "November 4".
ADDED_BY_STATEMENT = {
    "on four frontier models": ["2.6×"],
    "based on InferenceX baselines dated October 27, 2026": ["2.6×"],
    "The Compiler blog post's body says the same.": ["2.6×"],
    "That figure is not in the paper's language-model results at all.": ["3.7×"],
    "But a reader comparing inference providers will meet the 3.7 first and the 2.6 only "
    "if they read the paper.": ["2.6×", "3.7×"],
    '"Up to" is doing work: it is the best setting across four models and five hardware '
    "platforms, not the median.": ["2.6×"],
    "50 for weight loading": ["50 s"],
    "21 for KV-cache sizing": ["21 s"],
    "93 for JIT warm-up": ["93 s"],
    "193 for autotuning": ["193 s"],
    "10 for API readiness": ["10 s"],
    "That figure is the company's own comparison, not an independently verified benchmark "
    "result.": ["252×"],
    "against 633 for the best published InferenceX result": ["633 tokens/s"],
    "For that run its cost model overruled the baseline's published parallelism, choosing "
    "TP8 over TP4 on the reasoning that decode at batch size 1 is memory-bound.": ["8"],
    "Together presents it as part of the same Figure 8 low-latency evaluation.": [
        "1,205 tokens/s",
        "1,111 tokens/s",
    ],
    "As of November 4, Together says Together Compiler is running in production across "
    "many of its own top workloads and some popular serverless endpoints.": ["2026"],
}


def test_seeded_statements_add_only_real_figures_beyond_their_quotes():
    claims = load_first_case().CLAIMS
    added = {}
    for claim in claims:
        missing = missing_figures(claim["statement"], [claim["quote"]])
        quoted = {figure.key for figure in extract_figures(claim["quote"])}
        # Whatever the quote states is never reported, whatever the spelling.
        assert not [figure for figure in missing if figure.key in quoted], claim["statement"]
        if missing:
            added[claim["quote"]] = labels(missing)
    assert added == ADDED_BY_STATEMENT


def test_seeded_claim_467_seconds_in_total_is_matched_by_its_quote():
    claims = load_first_case().CLAIMS
    (claim,) = [claim for claim in claims if "467 seconds in total" in claim["quote"]]
    assert ("s", Decimal(467)) in [figure.key for figure in extract_figures(claim["statement"])]
    assert missing_figures(claim["statement"], [claim["quote"]]) == []


def test_seeded_statements_restating_the_article_in_other_spellings_are_matched():
    claims = load_first_case().CLAIMS
    by_quote = {claim["quote"]: claim["statement"] for claim in claims}
    # Quote and statement spell these differently: times/x, –/to, ×/x.
    for quote in [
        "The technical paper, in its abstract, results section and conclusion, claims up to "
        "2.6 times higher tokens per second than the best open-source inference engine "
        "configurations",
        "For these beyond-language-model workloads, Together reports speedups of 1.5–6.4×",
        "with tail latency degrading 10–40×",
        "On Llama 1B, the canonical megakernel workload, the compiler reaches up to 1.7× the "
        "hand-tuned megakernels",
    ]:
        assert extract_figures(by_quote[quote]), quote
        assert missing_figures(by_quote[quote], [quote]) == [], quote


def test_the_article_yields_its_key_figures_and_no_identifier_digits():
    article = (SEED_DIR / "together-compiler-article.txt").read_text(encoding="utf-8")
    figures = extract_figures(article)
    found = {figure.key for figure in figures}
    expected = [
        ("×", "2.6"),
        ("×", "3.7"),
        ("×", "1.5"),
        ("×", "6.4"),
        ("s", "467"),
        ("s", "9.0"),
        ("s", "1.7"),
        ("s", "7.3"),
        ("×", "252"),
        ("tokens/s", "1111"),
        ("", "633"),
        ("tokens/s", "1205"),
        ("×", "1.7"),
        ("×", "3.5"),
        ("count:token", "70000"),
        ("×", "10"),
        ("×", "40"),
        ("%", "17"),
        ("×", "2"),
        ("h", "24"),
        ("count:node", "2"),
    ]
    assert [key for key in expected if (key[0], Decimal(key[1])) not in found] == []
    assert ("date", datetime.date(2026, 10, 27)) in found
    assert ("date", datetime.date(2026, 11, 4)) in found

    for name in ["B200", "TP8", "TP4", "GB300", "H100", "Llama 1B", "M3.1", "v4.1", "§5.2"]:
        start = article.index(name)
        while start != -1:
            end = start + len(name)
            assert not [f for f in figures if f.start < end and start < f.end], name
            start = article.find(name, end)
    values = {figure.value for figure in figures}
    assert Decimal(200) not in values
    assert Decimal(300) not in values
    assert ("", Decimal(8)) not in found


def test_a_figure_whose_unit_is_on_the_next_line_of_a_pdf_is_still_found():
    statement = "The benchmark covers four frontier models."

    assert missing_figures(statement, ["It was run on four\nfrontier models."]) == []
    assert [f.text for f in missing_figures(statement, ["on four\n\nfrontier models"])] == [
        "four frontier models"
    ]
