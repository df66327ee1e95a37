"""Team review's URLs (the review view, comments, verdicts, labels, share links), included at the site root."""

from __future__ import annotations

from django.urls import URLPattern, path

from playground.review import comment_views, curation_views, share_views, views

urlpatterns: list[URLPattern] = [
    path("c/<int:pk>/review/", views.review, name="review"),
    path("c/<int:pk>/review/comments/", views.comment_list, name="review-comments"),
    path("c/<int:pk>/review/comments/new/", views.composer, name="review-composer"),
    path("c/<int:pk>/review/comments/post/", comment_views.create, name="review-comment-create"),
    path("c/<int:pk>/review/comments/<int:comment_id>/edit/", comment_views.edit, name="review-comment-edit"),
    path(
        "c/<int:pk>/review/comments/<int:comment_id>/cancel/", comment_views.cancel_edit, name="review-comment-cancel"
    ),
    path("c/<int:pk>/review/comments/<int:comment_id>/delete/", comment_views.delete, name="review-comment-delete"),
    path("c/<int:pk>/review/comments/<int:comment_id>/resolve/", comment_views.resolve, name="review-comment-resolve"),
    path("c/<int:pk>/review/verdicts/", views.verdict_list, name="review-verdicts"),
    path("c/<int:pk>/review/verdicts/save/", curation_views.verdict, name="review-verdict-save"),
    path("c/<int:pk>/review/labels/", views.label_list, name="review-labels"),
    path("c/<int:pk>/review/labels/add/", curation_views.label_add, name="review-label-add"),
    path("c/<int:pk>/review/labels/<int:label_id>/remove/", curation_views.label_remove, name="review-label-remove"),
    path("c/<int:pk>/review/shares/", share_views.share_create, name="review-share-create"),
    path("c/<int:pk>/review/shares/<int:link_id>/revoke/", share_views.share_revoke, name="review-share-revoke"),
    path("s/<str:token>/", share_views.shared, name="shared"),
    path(
        "s/<str:token>/round-trips/<int:position>/<str:part>/",
        share_views.shared_round_trip,
        name="shared-round-trip",
    ),
    path("review/inbox/", views.inbox, name="review-inbox"),
    path("review/inbox/seen/", views.inbox_seen, name="review-inbox-seen"),
]
