"""API keys at rest: Fernet-encrypted with CROSSWIRE_ENCRYPTION_KEY, decrypted only to make a request."""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    return Fernet(settings.CROSSWIRE_ENCRYPTION_KEY)


def encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode() if secret else ""


def decrypt(token: str) -> str:
    """The secret, or "" when there is none or the key changed (the endpoint then asks for the key again)."""
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        return ""


def hint(secret: str) -> str:
    """What the UI may show of a key: its last four characters."""
    return f"…{secret[-4:]}" if len(secret) >= 8 else "set"
