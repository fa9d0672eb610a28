"""
A newsroom-sized dataset, generated fast, for benchmarks and capacity checks.

``make_scale_dataset`` (run by ``bench/make_scale_dataset.py``) writes
hundreds of cases, tens of thousands of claims and thousands of sources with
bulk inserts, but every row is what the services would have made:

- each source version's file is stored under its SHA-256 name with the bytes
  whose digest it records, and its text is ready (frozen) and canonical;
- every quotation is ``Quotation.for_span`` of its version's text, so its
  words, prefix, suffix and offsets match;
- approved sign-offs carry ``claim_digest`` of the claim they approved;
- the published corrections form a valid chain hashed by ``correction_hash``,
  so ``manage.py verify_corrections`` passes;
- the search index holds the passages ``index_version_text`` and
  ``index_claim`` write, and the audit trail the main creation events.

The text is synthetic (sentences drawn from a newsroom vocabulary, with
figures, some accented words and typographic punctuation) and seeded, so the
same flags give the same dataset.
"""

import argparse
import contextlib
import random
import time
import unicodedata
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from claims.corrections import GENESIS, correction_hash
from claims.models import (
    Case,
    Claim,
    ClaimStatus,
    Comment,
    Correction,
    CorrectionKind,
    CorrectionStatus,
    Decision,
    Evidence,
    Rating,
    ReviewAssignment,
    Stance,
)
from claims.services import index_claim
from claims.workflow import claim_digest
from factcheck import search
from factcheck.models import AuditEvent
from factcheck.roles import EDITOR, REVIEWER
from sources.models import (
    ExtractionStatus,
    MediaType,
    Quotation,
    Source,
    SourceVersion,
    version_upload_to,
)
from sources.services import index_version_text

#: Usernames and slugs of generated rows start with this, so a second run can tell.
PREFIX = "scale"
#: The case with the most claims (the benchmark's "case with 200 claims").
BUSY_CASE_SLUG = f"{PREFIX}-case-0001"
#: The reviewer with the most assignments (the benchmark's "busy reviewer").
BUSY_REVIEWER = f"{PREFIX}-reviewer-001"
BUSY_CASE_CLAIMS = 200

_WORDS = unicodedata.normalize(
    "NFC",
    """
    the a of to in and for on with by from that this which as at after before over under
    between about against during without within per while since until although because
    government ministry council agency committee parliament minister spokesperson mayor
    company startup board investors analysts researchers report study survey data figures
    budget spending revenue deficit debt inflation prices wages jobs unemployment growth
    economy market shares profits losses costs savings tax taxes tariff imports exports
    hospital patients doctors nurses waiting times beds vaccine cases deaths trial results
    school pupils teachers exams funding classrooms university students fees graduates
    police crime arrests prison sentences court judge ruling appeal law bill vote voters
    election turnout poll candidates campaign party coalition opposition majority seats
    climate emissions carbon energy electricity solar wind coal gas oil renewables grid
    housing rents homes mortgage prices construction planning permits tenants landlords
    transport rail trains buses roads traffic flights airport passengers delays tickets
    water rivers pollution farms farmers harvest food imports supermarket shoppers
    compiler throughput latency tokens model models chips servers benchmark cluster
    announced claimed said reported estimated promised rose fell doubled halved reached
    increased decreased grew dropped cut raised spent saved lost gained published showed
    found suggested confirmed denied warned predicted expected recorded measured
    higher lower faster slower larger smaller more less most least record new first last
    annual monthly weekly daily official independent national regional local public private
    nearly almost roughly about exactly only just still already never often rarely
    café naïve Zürich São Paulo Málaga Kraków Øresund Ñuñoa façade déjà coöperation
    """,
).split()
_CAPITALISED = [word for word in _WORDS if word[0].isupper()]
_PUBLISHERS = [
    "The Daily Ledger",
    "Statistics Office",
    "Ministry of Finance",
    "Public Health Agency",
    "Together AI",
    "Regional Council",
    "Institute for Fiscal Studies",
    "Energy Regulator",
    "University Press",
    "Court Records Service",
]
_CLAIMANTS = [
    "the minister",
    "the company",
    "a spokesperson",
    "the mayor",
    "the opposition leader",
    "the report",
    "the campaign",
    "the agency",
]


def _figure(rng):
    """A figure as a newsroom writes one: counts, percentages, multiples, durations, dates."""
    kind = rng.randrange(7)
    if kind == 0:
        return f"{rng.randint(1_000, 9_999_999):,}"
    if kind == 1:
        return f"{rng.uniform(0.1, 99):.1f}%"
    if kind == 2:
        return f"{rng.uniform(1.1, 12):.1f}×"
    if kind == 3:
        return f"{rng.randint(2, 900)} seconds"
    if kind == 4:
        return f"{rng.randint(10, 5000):,} tokens per second"
    if kind == 5:
        return str(rng.randint(1990, 2025))
    return f"€{rng.randint(2, 950)} million"


def _zipf_weights(count):
    """Cumulative weights 1, 1/2, 1/3, …: a few words are everywhere, most are rare (Zipf)."""
    total, weights = 0.0, []
    for rank in range(1, count + 1):
        total += 1 / rank
        weights.append(total)
    return weights


_WORD_WEIGHTS = _zipf_weights(len(_WORDS))


def _names(count, seed=7):
    """Made-up proper names (people, places, firms): what a reader searches for."""
    rng = random.Random(seed)
    syllables = [
        "an",
        "bel",
        "cor",
        "dra",
        "el",
        "fen",
        "gor",
        "hal",
        "isk",
        "jun",
        "kel",
        "lor",
        "mar",
        "nev",
        "or",
        "pel",
        "quin",
        "ros",
        "sel",
        "tor",
        "ul",
        "var",
        "wen",
        "yor",
        "zan",
        "bru",
        "ket",
        "mol",
        "dun",
        "fair",
        "holt",
        "by",
        "berg",
        "wick",
        "stad",
    ]
    return sorted(
        {"".join(rng.choices(syllables, k=rng.randint(2, 3))).capitalize() for _ in range(count)}
    )


#: Rare words: each sentence may name one, so a name is found in a few passages, not all.
NAMES = _names(20_000)


def _sentence(rng):
    words = rng.choices(_WORDS, cum_weights=_WORD_WEIGHTS, k=rng.randint(7, 26))
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words) + 1), _figure(rng))
    if rng.random() < 0.35:
        words.insert(rng.randrange(len(words) + 1), rng.choice(NAMES))
    if rng.random() < 0.1:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_CAPITALISED))
    if rng.random() < 0.1:
        words[rng.randrange(len(words))] += ","
    if rng.random() < 0.05:
        words.insert(1 + rng.randrange(len(words)), "—")
    sentence = " ".join(words)
    if rng.random() < 0.08:
        sentence = f"“{sentence}”"
    return sentence[0].upper() + sentence[1:] + "."


def generate_text(rng, target_chars):
    """
    Synthetic article text of about ``target_chars`` code points: paragraphs of
    three to eight sentences separated by blank lines, canonical as extraction
    stores text (NFC, ``\\n`` line ends). Returns ``(text, sentence_spans)``,
    the ``(start, end)`` of every sentence, for quoting.
    """
    parts, spans, position = [], [], 0
    while position < target_chars:
        if parts:
            parts.append("\n\n")
            position += 2
        for index in range(rng.randint(3, 8)):
            if index:
                parts.append(" ")
                position += 1
            sentence = _sentence(rng)
            spans.append((position, position + len(sentence)))
            parts.append(sentence)
            position += len(sentence)
    return "".join(parts), spans


@dataclass
class ScaleOptions:
    """How much to generate. The defaults are a busy newsroom's year or two."""

    cases: int = 500
    claims: int = 25_000
    sources: int = 5_000
    users: int = 200
    quotations: int = 60_000
    corrections: int = 5_000
    #: Sources of about 1 MB (``large_kb``); None: one per thousand sources, at least one.
    large_sources: int | None = None
    min_kb: int = 20
    max_kb: int = 200
    large_kb: int = 1024
    seed: int = 1

    def __post_init__(self):
        if self.large_sources is None:
            self.large_sources = max(1, self.sources // 1000)
        if self.cases < 1 or self.sources <= self.cases:
            raise ValueError("Need at least one case and more sources than cases.")
        if self.claims < self.cases:
            raise ValueError("Need at least one claim per case.")
        if self.users < 4:
            raise ValueError("Need at least four users (two editors, two reviewers).")


@dataclass
class ScaleResult:
    """What was written, by table."""

    counts: dict = field(default_factory=dict)


@contextlib.contextmanager
def _historic_timestamps(*fields):
    """
    Let bulk inserts write the given ``auto_now_add`` fields: the generated
    history spans two years, not the second the command ran.
    """
    saved = [(model_field, model_field.auto_now_add) for model_field in fields]
    try:
        for model_field, _flag in saved:
            model_field.auto_now_add = False
        yield
    finally:
        for model_field, flag in saved:
            model_field.auto_now_add = flag


def dataset_present():
    """True when a scale dataset was generated in this database already."""
    return Case.objects.filter(slug=BUSY_CASE_SLUG).exists()


def make_scale_dataset(options=None, *, progress=None):
    """
    Generate a scale dataset as described by ``options`` (a ScaleOptions) in one
    transaction; ``progress(message)`` is told how far it got. Returns a
    ScaleResult with the row counts. Refuses to run twice in one database.
    """
    options = options or ScaleOptions()
    if dataset_present():
        raise ValueError("A scale dataset is already present in this database.")
    generator = _Generator(options, progress or (lambda message: None))
    timestamp_fields = [
        model._meta.get_field(name)
        for model, name in (
            (Source, "created_at"),
            (SourceVersion, "uploaded_at"),
            (Quotation, "created_at"),
            (Case, "created_at"),
            (Claim, "created_at"),
            (Evidence, "added_at"),
            (ReviewAssignment, "assigned_at"),
            (Comment, "created_at"),
            (Correction, "created_at"),
            (AuditEvent, "created_at"),
        )
    ]
    with _historic_timestamps(*timestamp_fields), search.bulk_indexing(), transaction.atomic():
        generator.run()
    if connection.vendor == "postgresql":
        # Bulk inserts leave the planner's statistics empty and the visibility map
        # unset (no index-only scans) until autovacuum comes round; a desk's
        # database of years has both, so the benchmark should too. VACUUM cannot
        # run inside a transaction (a test's), where ANALYZE alone still can.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)")
    return ScaleResult(generator.counts)


class _Generator:
    def __init__(self, options, progress):
        self.o = options
        self.progress = progress
        self.rng = random.Random(options.seed)
        self.now = timezone.now()
        self.counts = {}
        self.audit = []

    def ago(self, days):
        return self.now - timedelta(days=days)

    def run(self):
        self.make_users()
        self.make_sources_and_cases()
        self.make_versions_and_quotations()
        self.make_claims()
        self.make_evidence()
        self.make_assignments_and_comments()
        self.index_claims()
        self.make_corrections()
        self.write_audit_events()

    # Users ---------------------------------------------------------------

    def make_users(self):
        User = get_user_model()
        editors = max(2, self.o.users // 10)
        reviewers = self.o.users - editors
        password = make_password(None)  # unusable: nobody logs in as a generated user
        users = [
            User(
                username=f"{PREFIX}-editor-{n:03d}",
                email=f"{PREFIX}-editor-{n:03d}@example.invalid",
                first_name="Editor",
                last_name=f"{n:03d}",
                password=password,
            )
            for n in range(1, editors + 1)
        ] + [
            User(
                username=f"{PREFIX}-reviewer-{n:03d}",
                email=f"{PREFIX}-reviewer-{n:03d}@example.invalid",
                first_name="Reviewer",
                last_name=f"{n:03d}",
                password=password,
            )
            for n in range(1, reviewers + 1)
        ]
        User.objects.bulk_create(users)
        users = {user.username: user for user in User.objects.filter(username__startswith=PREFIX)}
        self.editors = [users[f"{PREFIX}-editor-{n:03d}"] for n in range(1, editors + 1)]
        self.reviewers = [users[f"{PREFIX}-reviewer-{n:03d}"] for n in range(1, reviewers + 1)]
        membership = User.groups.through
        editor_group, reviewer_group = (
            Group.objects.get(name=EDITOR),
            Group.objects.get(name=REVIEWER),
        )
        membership.objects.bulk_create(
            [membership(user_id=user.pk, group_id=editor_group.pk) for user in self.editors]
            + [membership(user_id=user.pk, group_id=reviewer_group.pk) for user in self.reviewers]
        )
        self.counts["users"] = len(users)
        self.progress(f"{len(users)} users ({editors} editors, {reviewers} reviewers)")

    # Sources and cases -----------------------------------------------------

    def make_sources_and_cases(self):
        rng, o = self.rng, self.o
        self.claims_per_case = self._claims_per_case()
        sources = []
        for n in range(1, o.sources + 1):
            under_check = n <= o.cases
            publisher = rng.choice(_PUBLISHERS)
            sources.append(
                Source(
                    title=(
                        f"{publisher}: {' '.join(rng.choices(_WORDS, k=5))} (article {n})"
                        if under_check
                        else f"{publisher} — {' '.join(rng.choices(_WORDS, k=4))} ({n})"
                    ),
                    publisher=publisher,
                    authors=f"Author {rng.randint(1, 400)}, Author {rng.randint(401, 800)}",
                    url=f"https://example.org/{PREFIX}/{n}",
                    role=Source.Role.UNDER_CHECK
                    if under_check
                    else rng.choice([Source.Role.PRIMARY, Source.Role.SECONDARY]),
                    created_by=rng.choice(self.editors),
                    created_at=self.ago(rng.uniform(420, 800)),
                )
            )
        self.sources = Source.objects.bulk_create(sources, batch_size=1000)
        self.pieces = self.sources[: o.cases]
        self.cited = self.sources[o.cases :]
        cases = [
            Case(
                title=f"Checking {piece.title}",
                slug=f"{PREFIX}-case-{n:04d}",
                source_under_check=piece,
                lead_editor=rng.choice(self.editors),
                created_at=piece.created_at + timedelta(days=1),
            )
            for n, piece in enumerate(self.pieces, start=1)
        ]
        self.cases = Case.objects.bulk_create(cases, batch_size=1000)
        # Each case cites a handful of the other sources; evidence comes from them.
        self.case_sources = {
            case.pk: rng.sample(self.cited, k=min(len(self.cited), rng.randint(4, 14)))
            for case in self.cases
        }
        self.counts |= {"sources": len(self.sources), "cases": len(self.cases)}
        self.progress(f"{len(self.sources)} sources, {len(self.cases)} cases")

    def _claims_per_case(self):
        """The busy case first (up to 200 claims), the rest spread at random, at least one each."""
        o, rng = self.o, self.rng
        if o.cases == 1:
            return [o.claims]
        busy = min(BUSY_CASE_CLAIMS, o.claims - (o.cases - 1))
        counts = [1] * (o.cases - 1)
        for _ in range(o.claims - busy - (o.cases - 1)):
            counts[rng.randrange(len(counts))] += 1
        return [busy, *counts]

    # Versions, files, quotations, source search index ----------------------

    def _text_size(self, large, minimum_sentences):
        o, rng = self.o, self.rng
        size = o.large_kb * 1024 if large else rng.randint(o.min_kb * 1024, o.max_kb * 1024)
        return max(size, minimum_sentences * 170)

    def make_versions_and_quotations(self):
        o, rng = self.o, self.rng
        evidence_quotations = max(0, o.quotations - o.claims)
        per_cited = [0] * len(self.cited)
        for _ in range(evidence_quotations):
            per_cited[rng.randrange(len(per_cited))] += 1
        # The large sources are among the cited ones, so the reader shows them with quotations.
        wanted = [
            (piece, count, True, False)
            for piece, count in zip(self.pieces, self.claims_per_case, strict=True)
        ]
        wanted += [
            (source, count, False, index < o.large_sources)
            for index, (source, count) in enumerate(zip(self.cited, per_cited, strict=True))
        ]
        self.claim_quotations = {}  # piece under check id -> [Quotation]
        self.source_quotations = {}  # cited source id -> [quotation id]
        self.large_source_ids = [source.pk for source in self.cited[: o.large_sources]]
        total_chars = versions = quotations = 0
        batch = []
        for index, (source, count, is_piece, large) in enumerate(wanted):
            text, spans = generate_text(rng, self._text_size(large, count))
            batch.append((source, text, spans, count, is_piece))
            total_chars += len(text)
            if len(batch) >= 25 or index == len(wanted) - 1:
                versions += len(batch)
                quotations += self._write_version_batch(batch)
                batch = []
                if versions % 500 == 0 or index == len(wanted) - 1:
                    self.progress(f"{versions} versions ({total_chars / 1e6:.0f} M characters)")
        self.counts |= {"versions": versions, "quotations": quotations, "characters": total_chars}

    def _write_version_batch(self, batch):
        rng = self.rng
        versions = []
        for source, text, _spans, _count, _is_piece in batch:
            content = text.encode("utf-8")
            media_type = rng.choice([MediaType.TEXT, MediaType.TEXT, MediaType.MARKDOWN])
            uploaded_at = source.created_at + timedelta(hours=rng.uniform(1, 48))
            version = SourceVersion(
                source=source,
                number=1,
                media_type=media_type,
                byte_size=len(content),
                sha256=SourceVersion.digest(content),
                original_filename=f"{PREFIX}-{source.pk}.{SourceVersion.EXTENSIONS[media_type]}",
                extracted_text=text,
                text_length=len(text),
                extraction_status=ExtractionStatus.READY,
                extractor="utf-8",
                extracted_at=uploaded_at,
                uploaded_by=source.created_by,
                uploaded_at=uploaded_at,
            )
            name = version_upload_to(version, "")
            if not default_storage.exists(name):
                name = default_storage.save(name, ContentFile(content))
            version.file.name = name
            version.source = source
            versions.append(version)
        SourceVersion.objects.bulk_create(versions)
        quotations = []
        for version, (_source, _text, spans, count, _is_piece) in zip(versions, batch, strict=True):
            chosen = sorted(rng.sample(spans, k=min(count, len(spans))))
            author = rng.choice(self.editors)
            made = [
                Quotation.for_span(
                    version,
                    start,
                    end,
                    created_by=author,
                    created_at=version.uploaded_at + timedelta(hours=rng.uniform(1, 200)),
                )
                for start, end in chosen
            ]
            quotations.extend(made)
            self.audit.append((None, "sourceversion.create", version, {"sha256": version.sha256}))
        Quotation.objects.bulk_create(quotations, batch_size=2000)
        position = 0
        for version, (source, _text, spans, count, is_piece) in zip(versions, batch, strict=True):
            made = quotations[position : position + min(count, len(spans))]
            position += len(made)
            if is_piece:
                self.claim_quotations[source.pk] = made
            else:
                self.source_quotations[source.pk] = [quotation.pk for quotation in made]
            index_version_text(version)
            if not is_piece:
                # The cited sources' texts are not needed again: let them go.
                version.extracted_text = ""
        return len(quotations)

    # Claims ----------------------------------------------------------------

    #: How a newsroom's claims are spread over the workflow.
    STATUS_WEIGHTS = {
        ClaimStatus.DRAFT: 20,
        ClaimStatus.IN_REVIEW: 20,
        ClaimStatus.CHANGES_REQUESTED: 10,
        ClaimStatus.APPROVED: 10,
        ClaimStatus.PUBLISHED: 35,
        ClaimStatus.WITHDRAWN: 5,
    }

    def make_claims(self):
        rng = self.rng
        self.ratings = list(Rating.objects.order_by("order"))
        statuses, weights = zip(*self.STATUS_WEIGHTS.items(), strict=True)
        claims = []
        for case in self.cases:
            quoted = self.claim_quotations[case.source_under_check_id]
            for number, quotation in enumerate(quoted, start=1):
                status = rng.choices(statuses, weights)[0]
                created_at = case.created_at + timedelta(days=rng.uniform(0, 20))
                claim = Claim(
                    case=case,
                    number=number,
                    quotation=quotation,
                    statement=quotation.exact.strip("“”."),
                    claimant=rng.choice(_CLAIMANTS),
                    verdict=None if status == ClaimStatus.DRAFT else rng.choice(self.ratings),
                    rationale=(
                        ""
                        if status == ClaimStatus.DRAFT
                        else f"The **{rng.choice(_PUBLISHERS)}** figures say otherwise: "
                        + " ".join(rng.choices(_WORDS, k=40))
                        + "."
                    ),
                    status=status,
                    author=rng.choice(self.editors),
                    version=rng.randint(1, 6),
                    created_at=created_at,
                    published_at=created_at + timedelta(days=rng.uniform(20, 40))
                    if status == ClaimStatus.PUBLISHED
                    else None,
                )
                claims.append(claim)
        self.claims = Claim.objects.bulk_create(claims, batch_size=2000)
        for case in self.cases:
            case.last_claim_number = len(self.claim_quotations[case.source_under_check_id])
        Case.objects.bulk_update(self.cases, ["last_claim_number"], batch_size=2000)
        for claim in self.claims:
            self.audit.append(
                (claim.author, "claim.create", claim, {"quotation": claim.quotation_id})
            )
        self.counts["claims"] = len(self.claims)
        self.progress(f"{len(self.claims)} claims")

    def make_evidence(self):
        rng = self.rng
        evidence = []
        self.evidence_by_claim = {}
        for claim in self.claims:
            pool = [
                quotation_id
                for source in self.case_sources[claim.case_id]
                for quotation_id in self.source_quotations.get(source.pk, ())
            ]
            wanted = 0 if claim.status == ClaimStatus.DRAFT else rng.randint(1, 4)
            if claim.status == ClaimStatus.DRAFT and rng.random() < 0.3:
                wanted = 1
            for quotation_id in rng.sample(pool, k=min(wanted, len(pool))):
                evidence.append(
                    Evidence(
                        claim=claim,
                        quotation_id=quotation_id,
                        stance=rng.choice(Stance.values),
                        note=" ".join(rng.choices(_WORDS, k=rng.randint(0, 14))),
                        added_by=claim.author,
                        added_at=claim.created_at + timedelta(hours=rng.uniform(1, 48)),
                    )
                )
        Evidence.objects.bulk_create(evidence, batch_size=2000)
        self.counts["evidence"] = len(evidence)
        self.progress(f"{len(evidence)} pieces of evidence")

    def make_assignments_and_comments(self):
        rng = self.rng
        busy = self.reviewers[0]
        others = self.reviewers[1:]
        assignments, comments = [], []
        # The busy reviewer reviews a fixed share of the claims, the busiest of all.
        busy_share, credit = max(0.08, 3 / len(self.reviewers)), 0.0
        for claim in self.claims:
            if claim.status == ClaimStatus.DRAFT:
                continue
            reviewers = rng.sample(others, k=min(len(others), rng.randint(1, 2)))
            credit += busy_share
            if credit >= 1:
                credit -= 1
                reviewers[0] = busy
            assigned_at = claim.created_at + timedelta(days=rng.uniform(1, 3))
            digest = None
            for position, reviewer in enumerate(reviewers):
                decision = self._decision(claim.status, position)
                decided_at = None
                if decision != Decision.PENDING:
                    decided_at = assigned_at + timedelta(days=rng.uniform(1, 10))
                if decision == Decision.APPROVED and digest is None:
                    digest = claim_digest(claim)
                assignments.append(
                    ReviewAssignment(
                        claim=claim,
                        reviewer=reviewer,
                        assigned_by=claim.author,
                        assigned_at=assigned_at,
                        # Some open reviews are overdue, some due later, some undated.
                        due_on=rng.choice(
                            [None, (self.ago(rng.randint(1, 30))).date(), (self.ago(-7)).date()]
                        ),
                        decision=decision,
                        decided_at=decided_at,
                        comment=""
                        if decision == Decision.PENDING
                        else " ".join(rng.choices(_WORDS, k=12)),
                        signed_digest=digest if decision == Decision.APPROVED else "",
                    )
                )
            for _ in range(rng.choice([0, 0, 1, 2, 3])):
                comments.append(
                    Comment(
                        claim=claim,
                        author=rng.choice([claim.author, *reviewers]),
                        body=" ".join(rng.choices(_WORDS, k=rng.randint(5, 40))) + ".",
                        created_at=assigned_at + timedelta(hours=rng.uniform(1, 100)),
                    )
                )
        ReviewAssignment.objects.bulk_create(assignments, batch_size=2000)
        Comment.objects.bulk_create(comments, batch_size=2000)
        self.counts |= {"assignments": len(assignments), "comments": len(comments)}
        self.progress(f"{len(assignments)} review assignments, {len(comments)} comments")

    def _decision(self, status, position):
        """A reviewer's decision consistent with the claim's state."""
        if status in {ClaimStatus.APPROVED, ClaimStatus.PUBLISHED}:
            return Decision.APPROVED
        if status == ClaimStatus.CHANGES_REQUESTED:
            return Decision.CHANGES_REQUESTED if position == 0 else Decision.PENDING
        if status == ClaimStatus.IN_REVIEW:
            return Decision.APPROVED if position == 1 else Decision.PENDING
        return Decision.PENDING  # withdrawn: the review was never finished

    def index_claims(self):
        for claim in self.claims:
            index_claim(claim)
        self.progress(f"search index: {len(self.claims)} claims and every source's text")

    # Corrections -------------------------------------------------------------

    def make_corrections(self):
        rng, o = self.rng, self.o
        published = [claim for claim in self.claims if claim.status == ClaimStatus.PUBLISHED]
        if not published or not o.corrections:
            self.counts["corrections"] = 0
            return
        verdicts = {claim.pk: claim.verdict for claim in published}
        previous, changed = GENESIS, {}
        latest_by_claim = {}
        start = self.ago(365)
        step = timedelta(days=360) / o.corrections
        chunk = []
        written = 0
        for n in range(o.corrections):
            claim = rng.choice(published)
            on_claim = rng.random() < 0.85
            # No retractions: nothing may follow one about its claim, which random picks ignore.
            kind = rng.choices(
                [CorrectionKind.CORRECTION, CorrectionKind.CLARIFICATION, CorrectionKind.UPDATE],
                [6, 3, 2],
            )[0]
            new_verdict = old_verdict = None
            if on_claim and kind == CorrectionKind.CORRECTION and rng.random() < 0.4:
                old_verdict = verdicts[claim.pk]
                new_verdict = rng.choice([r for r in self.ratings if r != old_verdict])
                verdicts[claim.pk] = changed[claim.pk] = new_verdict
            earlier = latest_by_claim.get(claim.pk) if on_claim else None
            supersedes = (
                earlier if earlier is not None and earlier.pk and rng.random() < 0.3 else None
            )
            published_at = start + step * n
            correction = Correction(
                case=claim.case,
                claim=claim if on_claim else None,
                kind=kind,
                what_was_wrong=" ".join(rng.choices(_WORDS, k=rng.randint(10, 40))) + ".",
                what_is_right=" ".join(rng.choices(_WORDS, k=rng.randint(10, 40))) + ".",
                reason=" ".join(rng.choices(_WORDS, k=rng.randint(0, 20))),
                old_verdict=old_verdict,
                new_verdict=new_verdict,
                supersedes=supersedes,
                status=CorrectionStatus.PUBLISHED,
                created_by=rng.choice(self.editors),
                created_at=published_at - timedelta(days=2),
                approved_by=rng.choice(self.reviewers),
                approved_at=published_at - timedelta(days=1),
                published_at=published_at,
                sequence=n + 1,
                previous_sha256=previous,
            )
            correction.sha256 = correction_hash(correction)
            previous = correction.sha256
            if on_claim:
                latest_by_claim[claim.pk] = correction
            chunk.append(correction)
            # Written in chunks, so a superseded entry always has its primary key.
            if len(chunk) == 500 or n == o.corrections - 1:
                Correction.objects.bulk_create(chunk)
                for entry in chunk:
                    self.audit.append(
                        (entry.created_by, "correction.publish", entry, {"sha256": entry.sha256})
                    )
                written += len(chunk)
                chunk = []
        # A verdict correction changes the claim's published verdict, as publishing one does.
        for claim in published:
            if claim.pk in changed:
                claim.verdict = changed[claim.pk]
        Claim.objects.bulk_update(
            [claim for claim in published if claim.pk in changed], ["verdict"], batch_size=1000
        )
        self.counts["corrections"] = written
        self.progress(f"{written} published corrections in one chain")

    # Audit trail ---------------------------------------------------------------

    def write_audit_events(self):
        types = {}
        events = []
        for actor, action, target, changes in self.audit:
            model = type(target)
            if model not in types:
                types[model] = ContentType.objects.get_for_model(model)
            events.append(
                AuditEvent(
                    actor=actor,
                    action=action,
                    target_type=types[model],
                    target_id=str(target.pk),
                    target_repr=str(target)[:300],
                    changes=changes,
                    created_at=getattr(target, "created_at", None)
                    or getattr(target, "uploaded_at", None)
                    or self.now,
                )
            )
        AuditEvent.objects.bulk_create(events, batch_size=2000)
        self.counts["audit_events"] = len(events)
        self.progress(f"{len(events)} audit events")


def main(argv=None):
    """
    The command line of ``bench/make_scale_dataset.py`` (``[--cases N …]
    [--if-absent]``): the dataset in the database the settings name. Run it on
    a database of its own. Returns the exit status.
    """
    defaults = ScaleOptions.__dataclass_fields__
    parser = argparse.ArgumentParser(
        prog="bench/make_scale_dataset.py",
        description=(
            "Generate a newsroom-sized dataset with bulk inserts: cases, claims, sources with "
            "20–200 KB of text (and a few of 1 MB), quotations, evidence, reviews in every "
            "state, users, a chain of published corrections, the search index."
        ),
    )
    for name, help_text in (
        ("cases", "cases, each checking a piece of its own"),
        ("claims", "claims, over all cases (the first case gets up to 200)"),
        ("sources", "sources, the pieces under check included"),
        ("users", "users: a tenth editors, the rest reviewers"),
        ("quotations", "quotations: one per claim, the rest in the cited sources"),
        ("corrections", "published corrections"),
        ("min-kb", "smallest source text, in KB"),
        ("max-kb", "largest ordinary source text, in KB"),
        ("large-kb", "size of the large sources, in KB"),
        ("seed", "random seed: the same flags and seed give the same data"),
    ):
        default = defaults[name.replace("-", "_")].default
        parser.add_argument(f"--{name}", type=int, default=default, help=f"{help_text} ({default})")
    parser.add_argument(
        "--large-sources",
        type=int,
        default=None,
        help="how many sources get the large size (one per thousand sources, at least 1)",
    )
    parser.add_argument(
        "--if-absent",
        action="store_true",
        help="do nothing (and succeed) when a scale dataset is already present",
    )
    options = vars(parser.parse_args(argv))
    if dataset_present():
        if options["if_absent"]:
            print("A scale dataset is already present; nothing to do.")
            return 0
        print("A scale dataset is already present in this database; use a fresh database.")
        return 2
    try:
        scale = ScaleOptions(
            **{name: options[name] for name in ScaleOptions.__dataclass_fields__ if name in options}
        )
    except ValueError as invalid:
        print(invalid)
        return 2
    began = time.monotonic()

    def progress(message):
        print(f"[{time.monotonic() - began:6.1f} s] {message}", flush=True)

    result = make_scale_dataset(scale, progress=progress)
    summary = ", ".join(f"{count:,} {name}" for name, count in result.counts.items())
    print(f"Scale dataset written in {time.monotonic() - began:.0f} s: {summary}.")
    return 0
