from django.contrib.auth.decorators import login_not_required
from django.urls import path

from claims.feeds import AtomCorrectionsFeed, CorrectionsFeed
from claims.views import corrections, desk, public, reports

app_name = "claims"

urlpatterns = [
    path("cases/", desk.case_list_view, name="case_list"),
    path("cases/new/", desk.case_create_view, name="case_create"),
    path("cases/<slug:slug>/", desk.case_detail_view, name="case_detail"),
    path("cases/<slug:slug>/language/", desk.case_language_view, name="case_language"),
    path("cases/<slug:slug>/claims/new/", desk.claim_create_view, name="claim_create"),
    path("cases/<slug:slug>/claims/<id:pk>/", desk.claim_detail_view, name="claim_detail"),
    path("cases/<slug:slug>/claims/<id:pk>/edit/", desk.claim_edit_view, name="claim_edit"),
    path(
        "cases/<slug:slug>/claims/<id:pk>/flag/clear/",
        desk.claim_flags_clear_view,
        name="claim_flags_clear",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/transition/",
        desk.claim_transition_view,
        name="claim_transition",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/quotations/",
        desk.quotation_search_view,
        name="quotation_search",
    ),
    path("cases/<slug:slug>/claims/<id:pk>/evidence/", desk.evidence_add_view, name="evidence_add"),
    path(
        "cases/<slug:slug>/claims/<id:pk>/sources/",
        desk.evidence_sources_view,
        name="evidence_sources",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/sources/<id:source_pk>/",
        desk.evidence_reader_view,
        name="evidence_reader",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/sources/<id:source_pk>/find/",
        desk.evidence_find_view,
        name="evidence_find",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/sources/<id:source_pk>/attach/",
        desk.evidence_quote_view,
        name="evidence_quote",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/evidence/<id:evidence_pk>/remove/",
        desk.evidence_remove_view,
        name="evidence_remove",
    ),
    path(
        "cases/<slug:slug>/claims/<id:pk>/reviewers/",
        desk.reviewer_assign_view,
        name="reviewer_assign",
    ),
    path("cases/<slug:slug>/claims/<id:pk>/comments/", desk.comment_add_view, name="comment_add"),
    path("desk/corrections/", corrections.corrections_desk_view, name="corrections_desk"),
    path("desk/corrections/new/", corrections.correction_draft_view, name="correction_draft"),
    path(
        "desk/corrections/<id:pk>/approve/",
        corrections.correction_step_view,
        {"step": "approve"},
        name="correction_approve",
    ),
    path(
        "desk/corrections/<id:pk>/publish/",
        corrections.correction_step_view,
        {"step": "publish"},
        name="correction_publish",
    ),
    path(
        "desk/corrections/<id:pk>/discard/",
        corrections.correction_step_view,
        {"step": "discard"},
        name="correction_discard",
    ),
    path("report-error/", reports.report_error_view, name="report_error"),
    path("desk/reports/", reports.reports_inbox_view, name="reports_inbox"),
    path("desk/reports/<id:pk>/close/", reports.report_close_view, name="report_close"),
    path("reviews/", desk.my_reviews_view, name="my_reviews"),
    path("reviews/<id:assignment_pk>/", desk.review_view, name="review"),
    path("corrections/", public.corrections_log_view, name="corrections_log"),
    path("corrections/<id:pk>/", public.correction_detail_view, name="correction_detail"),
    path("corrections.json", public.corrections_json_view, name="corrections_json"),
    path(
        "corrections/feed/atom/",
        login_not_required(public.log_conditions(AtomCorrectionsFeed())),
        name="corrections_atom",
    ),
    path(
        "corrections/feed/rss/",
        login_not_required(public.log_conditions(CorrectionsFeed())),
        name="corrections_rss",
    ),
    path("published/<slug:slug>/", public.public_case_view, name="public_case"),
    path("published/<slug:slug>.json", public.public_case_export_view, name="public_case_export"),
    path("published/<slug:slug>/claims/<id:pk>/", public.public_claim_view, name="public_claim"),
    path(
        "published/<slug:slug>/claims/<id:pk>/evidence/<id:quotation_pk>/page/<id:page>.png",
        public.public_evidence_page_view,
        name="public_evidence_page",
    ),
]
