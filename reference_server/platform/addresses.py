"""Which addresses and URLs the outbound client may reach: the blocked ranges, an explicit table, and the form of a
push webhook's or a file part's URL."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable

import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# --- which addresses are refused ---
#
# An explicit table, not ipaddress's is_private / is_global / is_reserved: their meaning changed between Python
# releases (the CVE-2024-4032 fix, in 3.12.4 and 3.11.10, reclassified several ranges), and this guard must not
# move with the interpreter.
# Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates).

_IPV4_BLOCKED: list[tuple[ipaddress.IPv4Network, str]] = [
    (ipaddress.IPv4Network(network), name) for network, name in [
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "carrier-grade NAT"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("255.255.255.255/32", "broadcast"),
        ("240.0.0.0/4", "reserved"),
    ]
]

_IPV6_BLOCKED: list[tuple[ipaddress.IPv6Network, str]] = [
    (ipaddress.IPv6Network(network), name) for network, name in [
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("100::/64", "discard-only"),
        # RFC 8215 local-use translation: refused whatever it embeds, since where the IPv4 address sits depends
        # on the prefix length the local network chose (RFC 6052 allows /32 to /96)
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("2001:2::/48", "benchmarking"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    ]
]


def _low32(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    return [ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF)]


def _sixtofour(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    return [ipaddress.IPv4Address((int(address) >> 80) & 0xFFFF_FFFF)]


def _teredo(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    server, client = address.teredo or (None, None)
    return [v4 for v4 in (server, client) if v4 is not None]


# IPv6 forms that carry an IPv4 address: the IPv4 address is judged by the IPv4 table
_Embedded = Callable[[ipaddress.IPv6Address], list[ipaddress.IPv4Address]]
_IPV6_EMBEDDING: list[tuple[ipaddress.IPv6Network, str, _Embedded]] = [
    (ipaddress.IPv6Network("::ffff:0:0/96"), "IPv4-mapped", _low32),
    (ipaddress.IPv6Network("::/96"), "IPv4-compatible", _low32),
    (ipaddress.IPv6Network("64:ff9b::/96"), "NAT64", _low32),
    (ipaddress.IPv6Network("2002::/16"), "6to4", _sixtofour),
    (ipaddress.IPv6Network("2001::/32"), "Teredo", _teredo),  # the server's and the client's address
]


def why_blocked(address: Address) -> str | None:
    """The range that makes address refused, in words ("loopback 127.0.0.0/8"), or None when it may be used."""
    if isinstance(address, ipaddress.IPv4Address):
        return next((f"{name} {network}" for network, name in _IPV4_BLOCKED if address in network), None)
    for network, name in _IPV6_BLOCKED:
        if address in network:
            return f"{name} {network}"
    for network, name, embedded in _IPV6_EMBEDDING:
        if address in network:
            for v4 in embedded(address):
                why = why_blocked(v4)
                if why:
                    return f"{name} {network} of {v4}, {why}"
            return None
    return None


def is_blocked_address(address: Address) -> bool:
    """True when an outbound request must not connect to address (unless private addresses are allowed)."""
    return why_blocked(address) is not None


def literal_address(host: str) -> Address | None:
    """The address a host names without DNS: an IP literal, or a legacy IPv4 spelling (2130706433, 0x7f.1)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    # getaddrinfo reads these numeric forms as IPv4 without asking DNS (inet_aton's rules)
    if re.fullmatch(r"(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}", host, re.IGNORECASE):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


# --- which URLs may be used ---


def form_problem(url: httpx.URL, *, allow_private: bool) -> str | None:
    """The rules on the URL's form that hold at validation time and again for each request."""
    if url.scheme not in ("https", "http"):
        return f"the URL scheme must be https, not {url.scheme!r}" if url.scheme else "the URL is not absolute"
    if url.scheme == "http" and not allow_private:
        return "the URL scheme must be https"
    if not url.host:
        return "the URL has no host"
    if url.userinfo:
        return "the URL must not carry a user name or password"
    if url.port is not None and not 0 < url.port < 65536:
        return "the URL's port is out of range"
    return None


class UrlProblem(ValueError):
    """Why a URL's form may not be used, in plain words (the message)."""


def parsed_url(url: str, *, allow_private: bool) -> httpx.URL:
    """The one parse of a push or file URL, with the rules on its form; UrlProblem says why it may not be used."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise UrlProblem("the URL cannot be parsed") from None
    problem = form_problem(parsed, allow_private=allow_private)
    if problem:
        raise UrlProblem(problem)
    return parsed


def host_of(url: str) -> str:
    """The URL's host as a log line names it ("?" when it cannot be parsed): never its path, query or user info."""
    try:
        return httpx.URL(url).host or "?"
    except (httpx.InvalidURL, TypeError):
        return "?"


def url_problem(url: str, *, allow_private: bool) -> str | None:
    """Why url may not be used for a push or a download, in plain words, or None. No DNS: a host name passes here
    and its addresses are checked when the connection is made."""
    try:
        parsed = parsed_url(url, allow_private=allow_private)
    except UrlProblem as problem:
        return str(problem)
    literal = literal_address(parsed.host)
    why = None if literal is None or allow_private else why_blocked(literal)
    if not why:
        return None
    named = parsed.host if ":" in parsed.host or parsed.host == str(literal) else f"{parsed.host} ({literal})"
    return f"the URL's host {named} is a blocked address: {why}"


def url_refusal(url: str, *, allow_private: bool) -> str | None:
    """url_problem, followed by how to lift it when private addresses are not allowed: the words a caller's
    InvalidParams or an operator's settings error give."""
    problem = url_problem(url, allow_private=allow_private)
    if problem is None or allow_private:
        return problem
    return f"{problem} (A2A__AllowPrivatePushUrls=true allows http and private addresses)"
