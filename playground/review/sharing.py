"""Read-only share links. The token is shown once, in the URL; only its SHA-256 is stored, so a copy of the database
opens nothing, and a link can be revoked or left to expire."""

from __future__ import annotations

import enum
import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from playground.review.access import Refused
from playground.review.models import ShareLink

if TYPE_CHECKING:
    from datetime import datetime

    from django.db.models import QuerySet

    from playground.conversations.models import Conversation

# What the form offers: days until the link stops working ("" for never).
EXPIRY_CHOICES = (
    ("", "Never expires"),
    ("1", "Expires in 1 day"),
    ("7", "Expires in 7 days"),
    ("30", "Expires in 30 days"),
)
# token_urlsafe(32) is 43 characters; anything much longer is not a token of ours and is not worth hashing.
MAX_TOKEN_LENGTH = 100


class LinkState(enum.Enum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"
    UNKNOWN = "unknown"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def state_of(link: ShareLink, now: datetime | None = None) -> LinkState:
    if link.revoked_at is not None:
        return LinkState.REVOKED
    if link.expires_at is not None and link.expires_at <= (now or timezone.now()):
        return LinkState.EXPIRED
    return LinkState.ACTIVE


def expiry_from(choice: str) -> timedelta | None:
    days = dict(EXPIRY_CHOICES)
    if choice not in days:
        raise Refused("Pick one of the listed expiries.")
    return timedelta(days=int(choice)) if choice else None


def create_link(*, conversation: Conversation, user: Any, expires_in: timedelta | None) -> tuple[ShareLink, str]:
    """A new link and its token: the caller shows the token once and forgets it."""
    token = secrets.token_urlsafe(32)
    expires_at = timezone.now() + expires_in if expires_in is not None else None
    link = ShareLink.objects.create(
        conversation=conversation, created_by=user, token_hash=hash_token(token), expires_at=expires_at
    )
    return link, token


def find_link(token: str) -> tuple[ShareLink | None, LinkState]:
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None, LinkState.UNKNOWN
    link = ShareLink.objects.filter(token_hash=hash_token(token)).select_related("conversation__team").first()
    if link is None:
        return None, LinkState.UNKNOWN
    return link, state_of(link)


def revoke(*, conversation: Conversation, link_id: int) -> ShareLink:
    link = conversation.share_links.filter(pk=link_id).first()
    if link is None:
        raise Refused("No such link.", status=404)
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
    return link


@dataclass(frozen=True)
class LinkRow:
    link: ShareLink
    state: LinkState

    @property
    def active(self) -> bool:
        return self.state is LinkState.ACTIVE


def links_of(conversation: Conversation) -> list[LinkRow]:
    now = timezone.now()
    rows: QuerySet[ShareLink] = conversation.share_links.select_related("created_by").order_by("-created_at", "-pk")
    return [LinkRow(link, state_of(link, now)) for link in rows]
