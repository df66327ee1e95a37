"""Which network addresses a request may connect to, checked on the address actually dialled.

A base URL is typed by a user, so a host name can lead anywhere a DNS answer says, including the cloud metadata
service that hands out the machine's credentials (169.254.169.254 and friends) or other link-local services. Checking
the name in the URL is not enough: ``metadata.example.com`` may resolve to 169.254.169.254, and a name can resolve to
a public address when checked and a private one when connected (DNS rebinding). So the network backend resolves the
host once, checks every address with ``AddressPolicy``, and connects only to the addresses that passed.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Metadata services that are not link-local: Alibaba Cloud, Oracle Cloud's legacy address, AWS's IPv6 endpoint.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("100.100.100.200", "192.0.0.192", "fd00:ec2::254", "169.254.169.254")
)
# Names the clouds resolve to their metadata service from inside an instance.
METADATA_HOSTS = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data"})

# A host made only of numbers in any base: inet_aton reads 0x7f000001, 2130706433, 127.1 and 0177.0.0.1 all as
# 127.0.0.1, which slips past any comparison with the dotted form.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$", re.IGNORECASE)


def parse_ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def is_noncanonical_ip(host: str) -> bool:
    """A host that some resolver reads as an IPv4 address but that is not written in the dotted-decimal form."""
    if not _NUMERIC_HOST.match(host):
        return False
    address = parse_ip(host)
    return address is None or str(address) != host


def _unmapped(address: IPAddress) -> IPAddress:
    # ::ffff:169.254.169.254 reaches the IPv4 address on a dual-stack socket.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def forbidden_kind(address: IPAddress) -> str | None:
    """What ``address`` is, when it is refused unless the deployment lists it explicitly; None when it is fine."""
    plain = _unmapped(address)
    if plain in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if plain.is_link_local:
        return "a link-local address"
    if plain.is_unspecified:
        return "the unspecified address"
    return None


def forbidden_host_kind(host: str) -> str | None:
    """The same for a host as written in a URL: an IP literal or a well-known metadata name."""
    if host.lower().rstrip(".") in METADATA_HOSTS:
        return "a cloud metadata host"
    address = parse_ip(host)
    return forbidden_kind(address) if address is not None else None


@dataclass(frozen=True)
class AddressPolicy:
    """What the network backend may connect to. ``explicit_hosts`` are hosts a deployment listed by name."""

    explicit_hosts: frozenset[str] = field(default_factory=frozenset)

    def refusal(self, host: str, address: str) -> str | None:
        if host.lower().strip("[]") in self.explicit_hosts:
            return None
        parsed = parse_ip(address)
        kind = forbidden_kind(parsed) if parsed is not None else "not an IP address"
        if kind is None:
            return None
        return (
            f"Refused to connect to {host}: {address} is {kind}, which this deployment only reaches when "
            "CROSSWIRE_ALLOWED_BASE_URLS lists the host explicitly."
        )


class AddressRefused(OSError):
    """Every address a host resolved to is one the policy refuses; ``str()`` says which and why."""
