from django.contrib.auth.decorators import login_not_required
from django.urls import path

from claims import views
from claims.feeds import AtomCorrectionsFeed, CorrectionsFeed

app_name = "claims"

urlpatterns = [
    path("cases/", views.case_list_view, name="case_list"),
    path("cases/new/", views.case_create_view, name="case_create"),
    path("cases/<slug:slug>/", views.case_detail_view, name="case_detail"),
    path("cases/<slug:slug>/claims/new/", views.claim_create_view, name="claim_create"),
    path("cases/<slug:slug>/claims/<int:pk>/", views.claim_detail_view, name="claim_detail"),
    path("cases/<slug:slug>/claims/<int:pk>/edit/", views.claim_edit_view, name="claim_edit"),
    path(
        "cases/<slug:slug>/claims/<int:pk>/flag/clear/",
        views.claim_flags_clear_view,
        name="claim_flags_clear",
    ),
    path(
        "cases/<slug:slug>/claims/<int:pk>/transition/",
        views.claim_transition_view,
        name="claim_transition",
    ),
    path(
        "cases/<slug:slug>/claims/<int:pk>/quotations/",
        views.quotation_search_view,
        name="quotation_search",
    ),
    path(
        "cases/<slug:slug>/claims/<int:pk>/evidence/", views.evidence_add_view, name="evidence_add"
    ),
    path(
        "cases/<slug:slug>/claims/<int:pk>/evidence/<int:evidence_pk>/remove/",
        views.evidence_remove_view,
        name="evidence_remove",
    ),
    path(
        "cases/<slug:slug>/claims/<int:pk>/reviewers/",
        views.reviewer_assign_view,
        name="reviewer_assign",
    ),
    path("cases/<slug:slug>/claims/<int:pk>/comments/", views.comment_add_view, name="comment_add"),
    path("desk/corrections/", views.corrections_desk_view, name="corrections_desk"),
    path("desk/corrections/new/", views.correction_draft_view, name="correction_draft"),
    path(
        "desk/corrections/<int:pk>/approve/",
        views.correction_step_view,
        {"step": "approve"},
        name="correction_approve",
    ),
    path(
        "desk/corrections/<int:pk>/publish/",
        views.correction_step_view,
        {"step": "publish"},
        name="correction_publish",
    ),
    path(
        "desk/corrections/<int:pk>/discard/",
        views.correction_step_view,
        {"step": "discard"},
        name="correction_discard",
    ),
    path("report-error/", views.report_error_view, name="report_error"),
    path("desk/reports/", views.reports_inbox_view, name="reports_inbox"),
    path("desk/reports/<int:pk>/close/", views.report_close_view, name="report_close"),
    path("reviews/", views.my_reviews_view, name="my_reviews"),
    path("reviews/<int:assignment_pk>/", views.review_view, name="review"),
    path("corrections/", views.corrections_log_view, name="corrections_log"),
    path("corrections/<int:pk>/", views.correction_detail_view, name="correction_detail"),
    path("corrections.json", views.corrections_json_view, name="corrections_json"),
    path(
        "corrections/feed/atom/",
        login_not_required(views.public_page_cache(views.log_conditions(AtomCorrectionsFeed()))),
        name="corrections_atom",
    ),
    path(
        "corrections/feed/rss/",
        login_not_required(views.public_page_cache(views.log_conditions(CorrectionsFeed()))),
        name="corrections_rss",
    ),
    path("published/<slug:slug>/", views.public_case_view, name="public_case"),
    path("published/<slug:slug>.json", views.public_case_export_view, name="public_case_export"),
    path("published/<slug:slug>/claims/<int:pk>/", views.public_claim_view, name="public_claim"),
]
