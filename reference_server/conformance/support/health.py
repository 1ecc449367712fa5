"""Whether another server still answers: a crash is told apart from one bad answer.

At the start of a run the suite notes what two well-formed requests get: the public card, and a GetTask of a task
that does not exist on the interface the convention probe used. After a scenario that saw a server error (5xx) or a
connection that failed, the same two requests are sent again. A server that answered them before and now does not
(a 5xx, a refused or dropped connection) has crashed: the scenarios after it are not run, since every one of them
would fail for that one defect, and the report names the scenario and the request after which it happened.
The robustness run (scripts/robustness.py) sends the same two after every batch of hostile requests, and after each
one that got a 5xx or no answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from reference_server.conformance.support.exchanges import Exchange, closed

HEALTH_TASK = "tck-health-check-no-such-task"


@dataclass
class Health:
    card: str  # the card's URL
    call: tuple[str, str, dict[str, Any], dict[str, str]]  # method, URL, JSON body (or None), headers
    answered: bool  # whether the call got an answer below 500 at the start

    def check(self, timeout: float = 10.0) -> str | None:
        """None when the server answers as it did at the start; else what it does now, in words."""
        try:
            with httpx.Client(timeout=timeout) as http:
                card = http.get(self.card)
                if card.status_code != 200:
                    return f"its card now answers HTTP {card.status_code}"
                method, url, body, headers = self.call
                response = http.request(method, url, json=body, headers=headers) if body else http.request(
                    method, url, headers=headers)
        except httpx.TransportError as error:
            return closed(error)
        if self.answered and response.status_code >= 500:
            return f"a GetTask it answered at the start now gets HTTP {response.status_code}"
        return None


def get_task(server: Any, key: str, protocol: tuple[str, str], task_id: str) -> tuple[str, str, dict[str, Any],
                                                                                       dict[str, str]]:
    """A well-formed GetTask on one interface: method, URL, JSON body (empty for a GET) and headers."""
    binding, version = protocol
    jsonrpc, rest = server.paths(binding, version)
    headers = {"A2A-Version": version, **({"X-API-Key": key} if key else {})}
    if binding == "jsonrpc":
        method = "GetTask" if version == "1.0" else "tasks/get"
        return "POST", jsonrpc, {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": task_id}}, headers
    return "GET", f"{rest}/tasks/{task_id}", {}, headers


def baseline(server: Any, key: str, protocol: tuple[str, str], timeout: float = 10.0) -> Health:
    """What the two health requests get now, on the interface the probe used."""
    call = get_task(server, key, protocol, HEALTH_TASK)
    health = Health(server.card_url, call, answered=False)
    try:
        with httpx.Client(timeout=timeout) as http:
            method, url, body, sent = call
            response = http.request(method, url, json=body, headers=sent) if body else http.request(
                method, url, headers=sent)
        health.answered = response.status_code < 500
    except httpx.TransportError:
        pass
    return health


def troubled(exchanges: list[Exchange]) -> Exchange | None:
    """The last exchange of a scenario that got a server error or no answer, if any."""
    return next((e for e in reversed(exchanges) if e.status is None or e.status >= 500), None)
