"""addresses.py: the blocked ranges in every IPv4 and IPv6 form, and url_problem."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import pytest

from reference_server.platform.addresses import is_blocked_address, url_problem

# --- is_blocked_address ---

# one address in each blocked IPv4 range, named by its range
BLOCKED_V4 = [
    ("unspecified 0.0.0.0/8", "0.1.2.3"),
    ("private 10.0.0.0/8", "10.20.30.40"),
    ("carrier-grade NAT 100.64.0.0/10", "100.127.255.254"),
    ("loopback 127.0.0.0/8", "127.0.0.1"),
    ("link-local 169.254.0.0/16", "169.254.169.254"),
    ("private 172.16.0.0/12", "172.31.255.255"),
    ("IETF protocol assignments 192.0.0.0/24", "192.0.0.8"),
    ("TEST-NET-1 192.0.2.0/24", "192.0.2.1"),
    ("private 192.168.0.0/16", "192.168.1.1"),
    ("benchmarking 198.18.0.0/15", "198.19.255.255"),
    ("TEST-NET-2 198.51.100.0/24", "198.51.100.7"),
    ("TEST-NET-3 203.0.113.0/24", "203.0.113.9"),
    ("multicast 224.0.0.0/4", "239.255.255.250"),
    ("reserved 240.0.0.0/4", "240.0.0.1"),
    ("broadcast 255.255.255.255", "255.255.255.255"),
]
PUBLIC_V4 = [
    ("public", "93.184.216.34"), ("public", "1.1.1.1"), ("just below 10/8", "9.255.255.255"),
    ("just below CGNAT", "100.63.255.255"), ("just above CGNAT", "100.128.0.0"),
    ("just above 172.16/12", "172.32.0.0"), ("just above benchmarking", "198.20.0.0"),
    ("just below multicast", "223.255.255.254"),
]
BLOCKED_V6 = [
    ("unspecified ::", "::"),
    ("loopback ::1", "::1"),
    ("link-local fe80::/10", "fe80::1"),
    ("link-local fe80::/10, its end", "febf:ffff::1"),
    ("link-local with a zone", "fe80::1%eth0"),
    ("unique-local fc00::/7", "fc00::1"),
    ("unique-local fd00::/8", "fd12:3456::1"),
    ("multicast ff00::/8", "ff02::1"),
    ("multicast, global scope", "ff0e::1"),
    ("documentation 2001:db8::/32", "2001:db8::1"),
    ("documentation 3fff::/20", "3fff::1"),
    ("benchmarking 2001:2::/48", "2001:2::1"),
    ("discard-only 100::/64", "100::1"),
    ("site-local fec0::/10", "fec0::1"),
]
PUBLIC_V6 = [("public", "2606:4700::1111"), ("public", "2001:4860:4860::8888"), ("public", "2a00:1450:4001::1")]


def mapped(v4: str) -> str:
    return f"::ffff:{v4}"


def compatible(v4: str) -> str:
    return str(ipaddress.IPv6Address(int(ipaddress.IPv4Address(v4))))


def nat64(v4: str) -> str:
    return f"64:ff9b::{v4}"


def nat64_local(v4: str) -> str:
    return str(ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b:1::")) | int(ipaddress.IPv4Address(v4))))


def sixtofour(v4: str) -> str:
    return str(ipaddress.IPv6Address((0x2002 << 112) | (int(ipaddress.IPv4Address(v4)) << 80) | 1))


def teredo(server: str, client: str) -> str:
    """2001::/32, the server's address, flags and port, and the client's address inverted (RFC 4380)."""
    value = (0x2001_0000 << 96) | (int(ipaddress.IPv4Address(server)) << 64) | (int(ipaddress.IPv4Address(client))
                                                                                  ^ 0xFFFF_FFFF)
    return str(ipaddress.IPv6Address(value))


# the IPv6 forms that carry an IPv4 address: the embedded address is judged by the IPv4 table
EMBEDDINGS: list[tuple[str, Callable[[str], str]]] = [
    ("IPv4-mapped", mapped), ("IPv4-compatible", compatible), ("NAT64 64:ff9b::/96", nat64),
    ("6to4", sixtofour), ("Teredo client", lambda v4: teredo("65.54.227.120", v4)),
    ("Teredo server", lambda v4: teredo(v4, "93.184.216.34")),
]

ROWS = [
    *[(f"{name}", v4, True) for name, v4 in BLOCKED_V4],
    *[(f"{form} of {name}", embed(v4), True) for name, v4 in BLOCKED_V4 for form, embed in EMBEDDINGS],
    *[(name, v6, True) for name, v6 in BLOCKED_V6],
    *[(f"local-use NAT64 64:ff9b:1::/48, whatever it embeds ({v4})", nat64_local(v4), True)
      for v4 in ("10.0.0.1", "93.184.216.34")],
    *[(f"{name} {v4}", v4, False) for name, v4 in PUBLIC_V4],
    *[(f"{form} of public {v4}", embed(v4), False)
      for v4 in ("93.184.216.34", "1.1.1.1") for form, embed in EMBEDDINGS],
    *[(f"{name} {v6}", v6, False) for name, v6 in PUBLIC_V6],
]


@pytest.mark.parametrize(("address", "blocked"), [pytest.param(a, b, id=name) for name, a, b in ROWS])
def test_is_blocked_address(address: str, blocked: bool) -> None:
    assert is_blocked_address(ipaddress.ip_address(address)) is blocked


def test_the_table_covers_each_form_of_each_range() -> None:
    names = [name for name, _, _ in ROWS]
    assert len(names) == len(set(names))
    assert ipaddress.ip_address(mapped("93.184.216.34")) == ipaddress.ip_address("::ffff:93.184.216.34")
    assert ipaddress.ip_address(sixtofour("10.20.30.40")).sixtofour == ipaddress.IPv4Address("10.20.30.40")
    teredo_address = ipaddress.ip_address(teredo("65.54.227.120", "192.0.2.45"))
    assert teredo_address.teredo == (ipaddress.IPv4Address("65.54.227.120"), ipaddress.IPv4Address("192.0.2.45"))


# --- url_problem ---


@pytest.mark.parametrize(("url", "allow_private", "problem"), [
    pytest.param("https://push.example/hook?token=1", False, None, id="https"),
    pytest.param("https://push.example:8443/hook", False, None, id="https with a port"),
    pytest.param("https://localhost/", False, None, id="a name is not resolved here"),
    pytest.param("https://93.184.216.34/", False, None, id="a public address"),
    pytest.param("http://push.example/hook", False, "must be https", id="http"),
    pytest.param("http://push.example/hook", True, None, id="http when private is allowed"),
    pytest.param("ftp://push.example/f", True, "must be https, not 'ftp'", id="ftp"),
    pytest.param("file:///etc/passwd", True, "must be https, not 'file'", id="file"),
    pytest.param("push.example/hook", False, "not absolute", id="relative"),
    pytest.param("https:///hook", False, "no host", id="no host"),
    pytest.param("https://[::1/", False, "cannot be parsed", id="unparseable"),
    pytest.param("https://push.example:99999/", False, "port", id="port out of range"),
    pytest.param("https://user:pw@push.example/", True, "user name or password", id="userinfo"),
    pytest.param("https://user@push.example/", False, "user name or password", id="user only"),
    pytest.param("https://127.0.0.1/", False, "127.0.0.1 is a blocked address: loopback", id="loopback"),
    pytest.param("https://127.0.0.1/", True, None, id="loopback when private is allowed"),
    pytest.param("https://[::1]/", False, "loopback ::1", id="IPv6 loopback"),
    pytest.param("https://[::1]/", True, None, id="IPv6 loopback when private is allowed"),
    pytest.param("https://[::ffff:10.0.0.1]/", False, "of 10.0.0.1, private 10.0.0.0/8", id="IPv4-mapped private"),
    pytest.param("https://[::ffff:10.0.0.1]/", True, None, id="IPv4-mapped when private is allowed"),
    pytest.param("https://169.254.169.254/latest", False, "link-local", id="cloud metadata"),
    pytest.param("https://169.254.169.254/latest", True, None, id="link-local when private is allowed"),
    pytest.param("https://2130706433/", False, "2130706433 (127.0.0.1)", id="loopback as one number"),
    pytest.param("https://0x7f.1/", False, "0x7f.1 (127.0.0.1)", id="loopback in hex"),
])
def test_url_problem(url: str, allow_private: bool, problem: str | None) -> None:
    found = url_problem(url, allow_private=allow_private)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
