"""The data migration that turned review flags written as sentences into ClaimFlag rows."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from claims.models import ClaimFlag
from sources.services import source_version_create_from_text
from tests.factories import ClaimFactory, PieceUnderCheckFactory, SourceVersionFactory
from tests.sources.test_quoting import quoted

BEFORE = [("claims", "0015_claims_keep_their_numbers")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_sentences_about_re_anchored_quotations_become_rows_and_others_are_kept_as_written():
    piece = PieceUnderCheckFactory(title="The piece")
    first = SourceVersionFactory(source=piece, text="Keep this. Drop this claim entirely.")
    claim = ClaimFactory(
        case__source_under_check=piece, quotation=quoted(first, "Drop this claim entirely.")
    )
    second, _created = source_version_create_from_text(source=piece, text="Keep this.", actor=None)
    (raised,) = ClaimFlag.objects.filter(claim=claim)
    # As the sentence was written, under the title the source had then.
    sentence = raised.reason.replace("“The piece”", "“The piece, as it was called”")
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()

    old_apps = migrate(BEFORE)
    old_apps.get_model("claims", "Claim").objects.filter(pk=claim.pk).update(
        needs_attention=f"{sentence}\nAsk the author about the second table."
    )
    migrate(latest)

    flags = {flag.kind: flag for flag in ClaimFlag.objects.filter(claim=claim)}
    gone, other = flags.pop(ClaimFlag.Kind.QUOTATION_GONE), flags.pop(ClaimFlag.Kind.OTHER)
    assert not flags
    assert (gone.kind, gone.quotation, gone.version) == (
        ClaimFlag.Kind.QUOTATION_GONE,
        claim.quotation,
        second,
    )
    assert gone.is_open and gone.reanchoring.version == second
    assert (other.kind, other.note) == (
        ClaimFlag.Kind.OTHER,
        "Ask the author about the second table.",
    )
