"""What keeps a robustness run safe by construction: it goes only where the user may send hostile traffic, at a
pace the user chose."""

from __future__ import annotations

import ipaddress
import socket
import time
from urllib.parse import urlsplit


def off_loopback(urls: list[str]) -> list[str]:
    """The hosts of these URLs that are not on a loopback address (a name counts as all it resolves to)."""
    found = []
    for url in urls:
        host = urlsplit(url).hostname or ""
        if not _loopback(host):
            found.append(host or url)
    return sorted(set(found))


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if host != "localhost" and not host.endswith(".localhost"):
        return False  # a name that is not localhost is not resolved: asking a resolver about it is traffic too
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError:
        return False
    return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)


class Pace:
    """At most `rate` requests a second, every request of the run counted (hostile ones, probes, follow-ups)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next = 0.0
        self.sent = 0

    def wait(self) -> None:
        now = time.monotonic()
        if self.next > now:
            time.sleep(self.next - now)  # the pace the user asked for, not a wait for a race
        self.next = max(now, self.next) + self.interval
        self.sent += 1
