"""Seed data for the first case: the article "Three numbers, one announcement".

Pure data, no Django imports: the piece under check, the four sources its
Sources list cites, and one claim per checkable statement of fact, each
anchored by an exact quotation of the article. No verdicts are recorded.
"""

import datetime

ARTICLE_FILENAME = "together-compiler-article.txt"

CASE = {
    "title": "Three numbers, one announcement",
    "slug": "three-numbers-one-announcement",
}

ARTICLE_SOURCE = {
    "title": "Three numbers, one announcement",
    "publisher": "",
    "authors": "",
    "url": "",
    "published_on": None,
    "notes": (
        "Critical reading of Together AI's Together Compiler announcement, whose four "
        "cited sources are all dated November 4, 2026. The text itself gives no "
        "byline, publisher, URL or publication date."
    ),
}

CITED_SOURCES = [
    {
        "key": "[1]",
        "title": "Polymorphic Inference: self-tuning inference for open models",
        "publisher": "Together AI",
        "authors": "",
        "url": "",
        "published_on": datetime.date(2026, 11, 4),
        "role": "primary",
        "notes": (
            "Cited in the article for: production deployment claim, limited-beta "
            'access, self-serve "soon," megakernel reversal, traffic-shape figures.'
        ),
    },
    {
        "key": "[2]",
        "title": "Together Compiler: Continuous Compilation for AI inference",
        "publisher": "Together AI",
        "authors": "",
        "url": "",
        "published_on": datetime.date(2026, 11, 4),
        "role": "primary",
        "notes": (
            "Cited in the article for: 2.6× body claim, 467s vs 9.0s startup table, "
            "1,111 / 1,205 TPS low-latency figures, and the page description's \"up to "
            '3.7× higher throughput" wording.'
        ),
    },
    {
        "key": "[3]",
        "title": "Together Compiler: Continual Compilation for AI Inference",
        "publisher": "Together AI Research",
        "authors": "",
        "url": "",
        "published_on": datetime.date(2026, 11, 4),
        "role": "primary",
        "notes": (
            "Technical paper. Cited in the article for: abstract and §5 results, §5.2 "
            "protocol and October 27, 2026 baseline date, 2× replica optimization "
            "compute, Trainium2 synthetic dataset, TP8 note, production-traffic replay "
            "finding, verification suite and bit-exactness tables."
        ),
    },
    {
        "key": "[4]",
        "title": "Together AI Brings Continuous Compilation to Production Inference",
        "publisher": "Unite.AI",
        "authors": "",
        "url": "",
        "published_on": datetime.date(2026, 11, 4),
        "role": "secondary",
        "notes": (
            "Cited in the article for: corroborating summary only — its speedup range "
            "appears in neither Together document and is not used."
        ),
    },
]

CLAIMS = [
    {
        "quote": (
            "The technical paper, in its abstract, results section and conclusion, "
            "claims up to 2.6 times higher tokens per second than the best open-source "
            "inference engine configurations"
        ),
        "occurrence": 1,
        "statement": (
            "The technical paper states, in its abstract, its results section and its "
            "conclusion, up to 2.6x higher tokens per second than the best open-source "
            "inference engine configurations."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check that [3]'s abstract, §5 results and conclusion each give 'up to "
            "2.6x', that the metric is tokens per second, and that the comparison is "
            "against the best open-source engine configurations. The Sources entry for "
            "[3] lists only 'abstract and §5 results', so the conclusion must be "
            "checked separately."
        ),
    },
    {
        "quote": "on four frontier models",
        "occurrence": 1,
        "statement": "The 2.6x headline comparison covers four frontier models.",
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check in [3]'s abstract and §5 how many models the main comparison covers "
            "and whether they are called frontier models. The article names only two "
            "of them (MiniMax M3.1-Flash, DeepSeek v4.1-Flash)."
        ),
    },
    {
        "quote": "based on InferenceX baselines dated October 27, 2026",
        "occurrence": 1,
        "statement": (
            "The baselines for the 2.6x comparison are InferenceX results dated October 27, 2026."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol for the baseline source (InferenceX) and the "
            "exact baseline date, October 27, 2026. The article repeats this date "
            "twice more (paragraph 3 and the penultimate paragraph); all three must "
            "match [3]."
        ),
    },
    {
        "quote": "The Compiler blog post's body says the same.",
        "occurrence": 1,
        "statement": (
            "The body text of the Together Compiler blog post also states up to 2.6x "
            "higher tokens per second."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]"],
        "rationale": (
            "Check that [2]'s body text (not its metadata) gives the same 'up to 2.6x' "
            "figure with the same conditions as [3]. Note that paragraph 2 later says "
            "a reader meets 'the 2.6 only if they read the paper', which conflicts "
            "with this sentence."
        ),
    },
    {
        "quote": (
            "The Compiler post's own page description, the text search engines and "
            "link previews will carry, says up to 3.7× higher throughput."
        ),
        "occurrence": 1,
        "statement": (
            "The page description (metadata used by search engines and link previews) "
            "of the Together Compiler blog post says 'up to 3.7× higher throughput'."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]"],
        "rationale": (
            "Check [2]'s page metadata (meta description / og:description) for the "
            "exact wording 'up to 3.7× higher throughput'; the Sources entry for [2] "
            "quotes the same wording. Record the metadata as captured, since page "
            "descriptions can change after publication."
        ),
    },
    {
        "quote": "That figure is not in the paper's language-model results at all.",
        "occurrence": 1,
        "statement": (
            "The 3.7x figure does not appear anywhere in the technical paper's "
            "language-model results."
        ),
        "claimant": "The article",
        "check_against": ["[3]"],
        "rationale": (
            "A negative claim: check every language-model results table, figure and "
            "text passage in [3] (abstract, §5, conclusion) for any 3.7x figure."
        ),
    },
    {
        "quote": (
            "It does appear once in a different table: Aurora 1.5, a weather model, "
            "scored 3.7× in a set of beyond-language-model experiments"
        ),
        "occurrence": 1,
        "statement": (
            "The technical paper's only 3.7x figure is in a separate "
            "beyond-language-model table: Aurora 1.5, a weather model, achieved 3.7x "
            "there."
        ),
        "claimant": "The article",
        "check_against": ["[3]"],
        "rationale": (
            "Search all of [3] for 3.7x and confirm it occurs exactly once, as the "
            "Aurora 1.5 row of the beyond-language-model table, and that Aurora 1.5 is "
            "described as a weather model. Paragraph 2 repeats this statement nearly "
            "verbatim ('The paper does contain a 3.7× result, but in a separate "
            "beyond-language-model table: ...'), so the article says the same thing "
            "twice; both versions agree."
        ),
    },
    {
        "quote": "where the reported range runs from 1.5× to 6.4×",
        "occurrence": 1,
        "statement": (
            "The speedups reported in the technical paper's beyond-language-model "
            "experiments range from 1.5x to 6.4x."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check the minimum and maximum speedups in [3]'s beyond-language-model "
            "table (1.5x and 6.4x). The same range is stated three times in the "
            "article (twice in paragraphs 1-2, once as '1.5–6.4×' in the Llama "
            "paragraph); the quoted values agree with one another."
        ),
    },
    {
        "quote": (
            "But a reader comparing inference providers will meet the 3.7 first and "
            "the 2.6 only if they read the paper."
        ),
        "occurrence": 1,
        "statement": (
            "The 2.6x figure is found only in the technical paper, while the 3.7x "
            "figure is what readers meet first (in the blog post's page description)."
        ),
        "claimant": "The article",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Internally inconsistent: paragraph 1 says the Compiler blog post's body "
            "'says the same' (2.6), so 2.6 is not only in the paper. Check where 2.6x "
            "and 3.7x appear in [2] (body versus metadata) and [3]."
        ),
    },
    {
        "quote": (
            "Treat the 3.7× figure as unexplained metadata until Together identifies "
            "the language-model result it refers to."
        ),
        "occurrence": 1,
        "statement": (
            "As of the article, Together had not identified which result the 3.7x "
            "page-description figure refers to."
        ),
        "claimant": "The article",
        "check_against": ["[2]", "[1]"],
        "rationale": (
            "Check [2] (body, footnotes, any correction or update note) and [1] for "
            "any statement tying the 3.7x figure to a specific result. The article "
            "also says a 3.7x result exists only in a beyond-language-model table, so "
            "it presumes no language-model 3.7x result exists."
        ),
    },
    {
        "quote": (
            '"Up to" is doing work: it is the best setting across four models and five '
            "hardware platforms, not the median."
        ),
        "occurrence": 1,
        "statement": (
            "The 2.6x figure is the best single result across the tested settings "
            "(four models and five hardware platforms), not a median or typical result."
        ),
        "claimant": "The article",
        "check_against": ["[3]"],
        "rationale": (
            "Check in [3]'s §5 results that 2.6x is the maximum over all "
            "model/hardware settings and find the median or typical speedup for "
            "comparison."
        ),
    },
    {
        "quote": "five hardware platforms",
        "occurrence": 1,
        "statement": "The main evaluation spans five hardware platforms.",
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Count the hardware platforms in [3]'s main evaluation. The article itself "
            "names only four chips anywhere (B200, GB300, H100, Trainium2), and H100 "
            "is mentioned only for beyond-language-model workloads."
        ),
    },
    {
        "quote": ("The baselines are the best reported open configurations as of October 27, 2026"),
        "occurrence": 1,
        "statement": (
            "The baselines were the best reported open configurations as of October 27, 2026."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol that the baselines are the best reported open "
            "(InferenceX) configurations and that their cut-off date is October 27, "
            "2026, consistent with the date given in paragraph 1."
        ),
    },
    {
        "quote": (
            "For the main comparisons Together reused each leading configuration's "
            "parallelism strategy, which is the honest way to isolate the compiler's "
            "effect, and the paper says so."
        ),
        "occurrence": 1,
        "statement": (
            "In the main comparisons, Together reused each leading baseline "
            "configuration's parallelism strategy, and the technical paper states this."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol for an explicit statement that baseline "
            "parallelism strategies were reused. Note that the article later reports a "
            "MiniMax M3.1-Flash low-latency run where the cost model chose TP8 instead "
            "of the baseline's TP4; check how [3] scopes 'main comparisons' against "
            "that exception."
        ),
    },
    {
        "quote": (
            "the optimization process used compute equivalent to twice the replica "
            "size per model compilation to support the tiered persistent engine"
        ),
        "occurrence": 1,
        "statement": (
            "Each model compilation used optimization compute equal to twice the "
            "replica size, to support the tiered persistent engine."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3] for the optimization-compute figure (2x the replica size per "
            "model compilation; listed in the Sources entry for [3] as '2× replica "
            "optimization compute') and its stated purpose, the tiered persistent "
            "engine. The article also says the paper itemizes this cost; confirm it is "
            "stated explicitly."
        ),
    },
    {
        "quote": (
            "each frontier result was produced within a 24-hour compilation window per setting"
        ),
        "occurrence": 1,
        "statement": (
            "Each frontier-model result was produced within a 24-hour compilation "
            "window per setting."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol for the 24-hour compilation window and whether "
            "it applies per setting."
        ),
    },
    {
        "quote": "using at most two nodes per model",
        "occurrence": 1,
        "statement": ("Each frontier-model compilation used at most two nodes per model."),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol for the node limit (at most two nodes per "
            "model), and whether it is consistent with the 'twice the replica size' "
            "compute statement."
        ),
    },
    {
        "quote": "93 seconds for initialization",
        "occurrence": 1,
        "statement": ("In the baseline start-up, engine initialization takes 93 seconds."),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the initialization row of [2]'s start-up table (93 s). The six "
            "components given in the article sum to 460 s, not the stated 467 s total, "
            "so each row must be checked individually."
        ),
    },
    {
        "quote": "50 for weight loading",
        "occurrence": 1,
        "statement": "In the baseline start-up, weight loading takes 50 seconds.",
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the weight-loading row of [2]'s start-up table (50 s); part of the "
            "460 s component sum that falls 7 s short of the stated 467 s total."
        ),
    },
    {
        "quote": "21 for KV-cache sizing",
        "occurrence": 1,
        "statement": "In the baseline start-up, KV-cache sizing takes 21 seconds.",
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the KV-cache sizing row of [2]'s start-up table (21 s); part of the "
            "460 s component sum that falls 7 s short of the stated 467 s total."
        ),
    },
    {
        "quote": "93 for JIT warm-up",
        "occurrence": 1,
        "statement": "In the baseline start-up, JIT warm-up takes 93 seconds.",
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the JIT warm-up row of [2]'s start-up table (93 s). It is identical "
            "to the initialization figure (93 s), which could indicate a copying error "
            "in one of the two rows."
        ),
    },
    {
        "quote": "193 for autotuning",
        "occurrence": 1,
        "statement": "In the baseline start-up, autotuning takes 193 seconds.",
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the autotuning row of [2]'s start-up table (193 s); part of the 460 "
            "s component sum that falls 7 s short of the stated 467 s total."
        ),
    },
    {
        "quote": "10 for API readiness",
        "occurrence": 1,
        "statement": "In the baseline start-up, API readiness takes 10 seconds.",
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the API-readiness row of [2]'s start-up table (10 s); part of the "
            "460 s component sum that falls 7 s short of the stated 467 s total."
        ),
    },
    {
        "quote": "467 seconds in total",
        "occurrence": 1,
        "statement": ("The baseline from-scratch engine start-up takes 467 seconds in total."),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Arithmetic problem: the six listed components (93 + 50 + 21 + 93 + 193 + "
            "10) sum to 460 s, 7 s less than the stated 467 s. Check [2]'s table for "
            "the total and for a missing or mis-copied row (the Sources entry for [2] "
            "also says '467s')."
        ),
    },
    {
        "quote": (
            "Together's persistent engine keeps the model loaded, hot-reloads "
            "candidate forward passes"
        ),
        "occurrence": 1,
        "statement": (
            "Together's persistent engine keeps the model loaded and hot-reloads "
            "candidate forward passes instead of restarting the engine."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check [2] and [3]'s description of the persistent engine for these two "
            "mechanisms (model stays loaded; forward passes hot-reloaded)."
        ),
    },
    {
        "quote": (
            "reduces the equivalent iteration step to 9.0 seconds: 1.7 seconds for RPC "
            "and compiler setup plus 7.3 seconds for CUDA-graph capture"
        ),
        "occurrence": 1,
        "statement": (
            "With the persistent engine, the equivalent iteration step takes 9.0 "
            "seconds: 1.7 seconds for RPC and compiler setup plus 7.3 seconds for "
            "CUDA-graph capture."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check [2]'s start-up table for the 9.0 s total and its two rows (1.7 s, "
            "7.3 s). Internally, 1.7 + 7.3 = 9.0 s, so the parts add up; 467 / 9.0 is "
            "a 51.9x per-step reduction (460 / 9.0 = 51.1x)."
        ),
    },
    {
        "quote": (
            "Together says the faster setup enables 252 times more agent experiments "
            "than baseline agentic optimization systems."
        ),
        "occurrence": 1,
        "statement": (
            "Together says the faster setup allows 252 times more agent experiments "
            "than baseline agentic optimization systems."
        ),
        "claimant": "Together AI (announcement posts [1]/[2])",
        "check_against": ["[2]", "[3]", "[1]"],
        "rationale": (
            "Arithmetic problem: the article's own start-up figures give 467 / 9.0 = "
            "51.9x (or 460 / 9.0 = 51.1x), not 252x, so the 252 must rest on some "
            "other basis. Check where [2], [3] or [1] states 252x and how it is "
            "derived; none of the Sources entries lists this figure."
        ),
    },
    {
        "quote": (
            "That figure is the company's own comparison, not an independently "
            "verified benchmark result."
        ),
        "occurrence": 1,
        "statement": (
            "The 252x figure comes from Together's own comparison and has not been "
            "independently verified."
        ),
        "claimant": "The article",
        "check_against": ["[2]", "[3]", "[4]"],
        "rationale": (
            "Check whether [2] or [3] cite any external verification of the 252x "
            "figure, and whether [4] reports it as independently tested or only "
            "repeats it."
        ),
    },
    {
        "quote": (
            "An agent that waits eight minutes per experiment has a working day of a "
            "few dozen tries."
        ),
        "occurrence": 1,
        "statement": (
            "At about eight minutes per experiment, an agent gets a few dozen "
            "experiments in a working day."
        ),
        "claimant": "The article",
        "check_against": [],
        "rationale": (
            "Arithmetic: 467 s is 7.8 minutes (460 s is 7.7), so 'eight minutes' is a "
            "round-up. An 8-hour day at 467 s per try allows about 62 tries (about "
            "five dozen), and at 9.0 s about 3,200, so 'a few dozen' understates the "
            "baseline unless a shorter day is meant."
        ),
    },
    {
        "quote": (
            "On MiniMax M3.1-Flash, Together reports 1,111 tokens per second at batch "
            "size 1 on a B200"
        ),
        "occurrence": 1,
        "statement": (
            "Together reports 1,111 tokens per second on MiniMax M3.1-Flash at batch "
            "size 1 on an NVIDIA B200."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check [2]'s low-latency figures (listed in its Sources entry as '1,111 / "
            "1,205 TPS') and [3]'s low-latency evaluation for the model, the 1,111 "
            "tokens/s value, batch size 1 and the B200."
        ),
    },
    {
        "quote": "against 633 for the best published InferenceX result",
        "occurrence": 1,
        "statement": (
            "The best published InferenceX result for the same MiniMax M3.1-Flash "
            "batch-size-1 B200 setting is 633 tokens per second."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check the 633 tokens/s baseline and its InferenceX provenance in [2]/[3]. "
            "Arithmetic: 1,111 / 633 = 1.76x (478 tokens/s more), which is below the "
            "2.6x headline and therefore consistent with 'up to 2.6'."
        ),
    },
    {
        "quote": (
            "For that run its cost model overruled the baseline's published "
            "parallelism, choosing TP8 over TP4 on the reasoning that decode at batch "
            "size 1 is memory-bound."
        ),
        "occurrence": 1,
        "statement": (
            "For the MiniMax M3.1-Flash low-latency run, Together's cost model chose "
            "tensor parallelism 8 (TP8) instead of the baseline's published TP4, "
            "because decoding at batch size 1 is memory-bound."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s TP8 note for the parallelism choice (TP8 vs the baseline's "
            "TP4) and the memory-bound reasoning. This run departs from the "
            "paragraph-3 statement that the main comparisons reused each baseline's "
            "parallelism strategy; check how [3] separates the two."
        ),
    },
    {
        "quote": ("running the same baseline image under TP8 performs similarly to its TP4 result"),
        "occurrence": 1,
        "statement": (
            "Running the baseline's own image under TP8 gives throughput similar to its TP4 result."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s TP8 note for this control and any number attached to "
            "'similarly'. The article infers from it that the configuration change "
            "alone does not produce 1,111 tokens/s and that the compiled forward pass "
            "does, on Together's own measurement; check that [3] makes that "
            "attribution."
        ),
    },
    {
        "quote": (
            "The second low-latency result is 1,205 tokens per second on DeepSeek "
            "v4.1-Flash using an NVIDIA GB300, also at batch size 1."
        ),
        "occurrence": 1,
        "statement": (
            "Together reports 1,205 tokens per second on DeepSeek v4.1-Flash at batch "
            "size 1 on an NVIDIA GB300."
        ),
        "claimant": "Together AI (Compiler blog post [2])",
        "check_against": ["[2]", "[3]"],
        "rationale": (
            "Check [2]'s low-latency figures and [3] for the model, 1,205 tokens/s, "
            "the GB300 and batch size 1. The article gives no baseline for this result "
            "(unlike 1,111 vs 633), so also check which baseline [2]/[3] compare it "
            "with."
        ),
    },
    {
        "quote": ("Together presents it as part of the same Figure 8 low-latency evaluation."),
        "occurrence": 1,
        "statement": (
            "The 1,205 tokens/s result is presented in Figure 8, the same low-latency "
            "evaluation as the 1,111 tokens/s result."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]", "[2]"],
        "rationale": (
            "Check that Figure 8 of [3] (or [2]) contains both low-latency results. "
            "The article says 'the same Figure 8' although it never tied the 1,111 "
            "result to Figure 8 before."
        ),
    },
    {
        "quote": (
            "On Llama 1B, the canonical megakernel workload, the compiler reaches up "
            "to 1.7× the hand-tuned megakernels"
        ),
        "occurrence": 1,
        "statement": (
            "On Llama 1B, the canonical megakernel workload, the compiler achieves up "
            "to 1.7x the performance of hand-tuned megakernels."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]", "[2]"],
        "rationale": (
            "Check [3] (and [2]) for the Llama 1B result, the 'up to 1.7x' figure and "
            "the hand-tuned megakernel baseline. The paragraph opens with 'Two further "
            "results' but goes on to discuss three or more (Llama 1B, the "
            "beyond-language-model range with bit exactness, AIFS-ENS 2.0)."
        ),
    },
    {
        "quote": (
            "Together's Polymorphic post concedes the wider point its own team helped "
            "create: after putting megakernels into production, it concluded that "
            "kernel fusion is not the right design goal for varied, dynamic workloads"
        ),
        "occurrence": 1,
        "statement": (
            "Together, whose own team helped create megakernels, concluded after "
            "putting megakernels into production that kernel fusion is not the right "
            "design goal for varied, dynamic workloads."
        ),
        "claimant": "Together AI (Polymorphic Inference post [1])",
        "check_against": ["[1]"],
        "rationale": (
            "Check [1] (the 'megakernel reversal' of its Sources entry) for the "
            "conclusion, its wording about varied, dynamic workloads, and the "
            "acknowledgement that Together's team helped create megakernels."
        ),
    },
    {
        "quote": (
            "For these beyond-language-model workloads, Together reports speedups of 1.5–6.4×"
        ),
        "occurrence": 1,
        "statement": (
            "Together reports speedups of 1.5x to 6.4x on the beyond-language-model workloads."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s beyond-language-model table for the 1.5x-6.4x range; it "
            "matches the range given twice in paragraphs 1-2. 'These' follows the "
            "Llama 1B sentence, but Llama 1B is a language model, so check whether [3] "
            "places Llama 1B in the beyond-language-model set."
        ),
    },
    {
        "quote": (
            "while maintaining bit exactness to the original forward pass, tested on an H100"
        ),
        "occurrence": 1,
        "statement": (
            "The beyond-language-model speedups were achieved while keeping outputs "
            "bit-exact with the original forward pass, tested on an NVIDIA H100."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s verification suite and bit-exactness tables for which "
            "workloads were verified bit-exact, against what reference, and on what "
            "hardware (H100)."
        ),
    },
    {
        "quote": (
            "On AIFS-ENS 2.0, the Claude Code baseline failed to find a correct "
            "solution, while TKCC scored 3.5×."
        ),
        "occurrence": 1,
        "statement": (
            "On AIFS-ENS 2.0, the Claude Code baseline did not find a correct "
            "solution, while TKCC achieved 3.5x."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s AIFS-ENS 2.0 row: how the Claude Code outcome is reported and "
            "the 3.5x value (which lies within the stated 1.5x-6.4x range). The "
            "article never defines 'TKCC'; check what it stands for in [3]."
        ),
    },
    {
        "quote": (
            "The comparison was against Claude Code using the /goal command and similar context."
        ),
        "occurrence": 1,
        "statement": (
            "The AIFS-ENS 2.0 comparison was against Claude Code using the /goal "
            "command with similar context."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s description of the Claude Code baseline setup (the /goal "
            "command, comparable context)."
        ),
    },
    {
        "quote": (
            "They ran on a synthetic multi-turn dataset with shorter contexts than the "
            "benchmark traffic"
        ),
        "occurrence": 1,
        "statement": (
            "The Trainium2 results were run on a synthetic multi-turn dataset with "
            "shorter contexts than the benchmark traffic."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s Trainium2 note for the synthetic multi-turn dataset and its "
            "context lengths compared with the benchmark traffic. The paragraph states "
            "this twice; the second version adds 70,000-token inputs and calls the "
            "benchmark 'AgentX'."
        ),
    },
    {
        "quote": (
            "because the implementation does not yet support the higher concurrencies "
            "inside that chip's memory capacity"
        ),
        "occurrence": 1,
        "statement": (
            "The synthetic dataset was used because the implementation does not yet "
            "support the higher concurrencies within Trainium2's memory capacity."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s stated reason for the Trainium2 synthetic dataset. The "
            "article gives the same reason twice: two sentences later it repeats it as "
            "'within Trainium2's available HBM capacity'; check which wording matches "
            "[3]."
        ),
    },
    {
        "quote": (
            "Trainium2 is therefore not directly comparable with the other hardware results."
        ),
        "occurrence": 1,
        "statement": (
            "The Trainium2 results are not directly comparable with the results on other hardware."
        ),
        "claimant": "The article",
        "check_against": ["[3]"],
        "rationale": (
            "Check whether [3] itself flags the Trainium2 results as not directly "
            "comparable (the article calls it 'the paper's own asterisk') or whether "
            "this is the article's inference."
        ),
    },
    {
        "quote": (
            "Its runs used synthetic multi-turn traffic with 70,000-token input sequence lengths"
        ),
        "occurrence": 1,
        "statement": (
            "The Trainium2 runs used synthetic multi-turn traffic with 70,000-token "
            "input sequence lengths."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3] for the 70,000-token input sequence length. The article calls "
            "70,000-token inputs 'shorter contexts' than the benchmark traffic without "
            "giving the benchmark's lengths, and the first statement of the caveat two "
            "sentences earlier gives no token figure at all; check both against [3]. "
            "This sentence restates that earlier caveat."
        ),
    },
    {
        "quote": "shorter contexts than the AgentX benchmark traffic",
        "occurrence": 1,
        "statement": (
            "The Trainium2 synthetic traffic had shorter contexts than the AgentX "
            "benchmark traffic."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]"],
        "rationale": (
            "Naming inconsistency: everywhere else the article calls the benchmark "
            "'InferenceX', but here it says 'AgentX'. Check which benchmark name [3] "
            "uses in its Trainium2 note."
        ),
    },
    {
        "quote": (
            "As of November 4, Together says Together Compiler is running in "
            "production across many of its own top workloads and some popular "
            "serverless endpoints."
        ),
        "occurrence": 1,
        "statement": (
            "As of November 4 (2026), Together says Together Compiler is running in "
            "production on many of its own top workloads and some popular serverless "
            "endpoints."
        ),
        "claimant": "Together AI (Polymorphic Inference post [1])",
        "check_against": ["[1]", "[2]"],
        "rationale": (
            "Check [1] (the 'production deployment claim') and [2] for the "
            "production-deployment wording ('many of its own top workloads', 'some "
            "popular serverless endpoints'). The article gives no year here; the "
            "Sources list dates all four documents November 4, 2026."
        ),
    },
    {
        "quote": "End customers can request access to a limited beta.",
        "occurrence": 1,
        "statement": ("End customers can request access to a limited beta of Together Compiler."),
        "claimant": "Together AI (Polymorphic Inference post [1])",
        "check_against": ["[1]", "[2]"],
        "rationale": (
            "Check [1] (the 'limited-beta access' of its Sources entry) for the beta "
            "and how access is requested, and [1]/[2] for any self-serve option, since "
            "the article infers that external customers cannot yet deploy it "
            "themselves."
        ),
    },
    {
        "quote": (
            "The self-serve feature described by Together — one-click optimization of "
            'a dedicated endpoint — is described as "soon," not generally available'
        ),
        "occurrence": 1,
        "statement": (
            "Together describes a self-serve feature, one-click optimization of a "
            "dedicated endpoint, as coming 'soon'; it is not generally available."
        ),
        "claimant": "Together AI (Polymorphic Inference post [1])",
        "check_against": ["[1]"],
        "rationale": (
            "Check [1] for the self-serve feature (one-click optimization of a "
            "dedicated endpoint) and the exact word 'soon' (quoted the same way in the "
            "Sources entry for [1]), and for any general-availability date."
        ),
    },
    {
        "quote": "Together has published no price for the beta",
        "occurrence": 1,
        "statement": ("Together has not published a price for the Together Compiler beta."),
        "claimant": "The article",
        "check_against": ["[1]", "[2]"],
        "rationale": (
            "A negative claim: check [1] and [2] for any pricing information for the beta."
        ),
    },
    {
        "quote": (
            "Together also says the system serves trillions of tokens a day across its "
            "production fleet."
        ),
        "occurrence": 1,
        "statement": (
            "Together says the system serves trillions of tokens a day across its production fleet."
        ),
        "claimant": "Together AI (announcement posts [1]/[2])",
        "check_against": ["[1]", "[2]"],
        "rationale": (
            "Check [1] and [2] for the 'trillions of tokens a day' wording and what "
            "'the system' refers to (the compiler or Together's whole fleet). No "
            "Sources entry lists this figure."
        ),
    },
    {
        "quote": (
            "A team serving open models on its own infrastructure gets a paper with a "
            "reproducible-looking protocol and no code to run it with."
        ),
        "occurrence": 1,
        "statement": (
            "Together has released no code for teams to run the compiler on their own "
            "infrastructure."
        ),
        "claimant": "The article",
        "check_against": ["[1]", "[2]", "[3]"],
        "rationale": (
            "A negative claim: check [1], [2] and [3] for any code release, repository "
            "or artifact link."
        ),
    },
    {
        "quote": (
            "Replaying its own production traffic, Together found the leading "
            "InferenceX configuration for MiniMax M3.1-Flash hits a capacity ceiling "
            "at low request rates"
        ),
        "occurrence": 1,
        "statement": (
            "Replaying its own production traffic, Together found that the leading "
            "InferenceX configuration for MiniMax M3.1-Flash hits a capacity ceiling "
            "at low request rates."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]", "[1]"],
        "rationale": (
            "Check [3]'s production-traffic replay finding (the article places it in "
            "the results section) and [1]'s traffic-shape figures for the model, the "
            "configuration and the low-request-rate capacity ceiling."
        ),
    },
    {
        "quote": "with tail latency degrading 10–40×",
        "occurrence": 1,
        "statement": (
            "In that replay, tail latency for the leading InferenceX MiniMax "
            "M3.1-Flash configuration degraded by 10x to 40x."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]", "[1]"],
        "rationale": (
            "Check the 10-40x tail-latency degradation in [3]'s replay finding (and "
            "[1]'s traffic-shape figures), including which percentile is meant."
        ),
    },
    {
        "quote": "17 percent of requests failing",
        "occurrence": 1,
        "statement": (
            "In that replay, 17 percent of requests to the leading InferenceX MiniMax "
            "M3.1-Flash configuration failed."
        ),
        "claimant": "Together AI (technical paper [3])",
        "check_against": ["[3]", "[1]"],
        "rationale": (
            "Check the 17 percent request-failure figure and its conditions (request "
            "rate) in [3]'s replay finding and [1]."
        ),
    },
    {
        "quote": (
            "The headline performance comparisons were produced by Together under "
            "conditions it selected, against baselines dated October 27, 2026"
        ),
        "occurrence": 1,
        "statement": (
            "Together itself produced the headline performance comparisons, under "
            "conditions it chose, against baselines dated October 27, 2026."
        ),
        "claimant": "The article",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s §5.2 protocol for who ran the experiments, how settings were "
            "chosen and the baseline date. This is the article's third mention of "
            "October 27, 2026, consistent with paragraphs 1 and 3."
        ),
    },
    {
        "quote": "and have not yet been independently replicated",
        "occurrence": 1,
        "statement": (
            "As of the article, the headline performance comparisons had not been "
            "independently replicated."
        ),
        "claimant": "The article",
        "check_against": ["[3]", "[4]"],
        "rationale": (
            "Check [3] for any third-party replication and [4] for whether it reports "
            "independent testing or only summarizes Together's claims."
        ),
    },
    {
        "quote": '"Together Compiler: Continuous Compilation for AI inference"',
        "occurrence": 1,
        "statement": (
            "The Together Compiler blog post is titled 'Together Compiler: Continuous "
            "Compilation for AI inference'."
        ),
        "claimant": "The article (Sources list)",
        "check_against": ["[2]"],
        "rationale": (
            "Check [2]'s actual title. The Sources list calls the paper [3] 'Continual "
            "Compilation for AI Inference' (different word and capitalization) and [4] "
            "says 'Continuous Compilation'; confirm which wording each Together "
            "document uses."
        ),
    },
    {
        "quote": ('"Together Compiler: Continual Compilation for AI Inference", technical paper'),
        "occurrence": 1,
        "statement": (
            "The technical paper is titled 'Together Compiler: Continual Compilation "
            "for AI Inference'."
        ),
        "claimant": "The article (Sources list)",
        "check_against": ["[3]"],
        "rationale": (
            "Check [3]'s actual title; it differs from [2]'s 'Continuous Compilation "
            "for AI inference' as given in the Sources list ('Continual' vs "
            "'Continuous', 'Inference' vs 'inference')."
        ),
    },
    {
        "quote": ("its speedup range appears in neither Together document and is not used"),
        "occurrence": 1,
        "statement": (
            "The Unite.AI summary gives a speedup range that appears in none of "
            "Together's own documents."
        ),
        "claimant": "The article (Sources list)",
        "check_against": ["[4]", "[1]", "[2]", "[3]"],
        "rationale": (
            "Find [4]'s speedup range and check it against [1], [2] and [3]. 'Neither' "
            "implies two Together documents, but the Sources list has three ([1], [2], "
            "[3]). [4] is labelled a 'corroborating summary' yet the body never cites "
            "it."
        ),
    },
]


def seeded_rationale(spec: dict) -> str:
    """The rationale a seeded claim starts with: its checklist, and what to check it against."""
    cited = ", ".join(spec.get("check_against", []))
    if not cited:
        return spec["rationale"]
    return (
        f"{spec['rationale']}\n\nTo be checked against {cited}; awaiting upload of the "
        "cited document, so this claim has no evidence yet."
    )


def is_seeded_checklist(rationale: str) -> bool:
    """
    Whether ``rationale`` is one of the seeded claims' checklists ("Check that
    …"): a to-do list for the desk, not a rationale a reader can be shown.
    """
    return rationale.strip() in _SEEDED_CHECKLISTS


_SEEDED_CHECKLISTS = frozenset(seeded_rationale(claim).strip() for claim in CLAIMS)
