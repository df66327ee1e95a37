"""Talking to real (or simulated) provider APIs through the official SDKs, with the wire traffic recorded."""

from __future__ import annotations

from providers.client.capture import REDACTED, RoundTrip, WireEvent, WireRequest, redact_headers
from providers.client.run import Emit, EmitError, RequestSent, RoundTripRun, Update, round_trip
from providers.client.sdk import Endpoint

__all__ = [
    "REDACTED",
    "Emit",
    "EmitError",
    "Endpoint",
    "RequestSent",
    "RoundTrip",
    "RoundTripRun",
    "Update",
    "WireEvent",
    "WireRequest",
    "redact_headers",
    "round_trip",
]
