"""A robustness run against one server: the fuzz suite's hostile requests, bounded in count, pace and time, each
answer judged by the rules of tests/fuzz/rules.py, and a health probe (conformance/support/health.py) after every
batch and after every 5xx or missing answer, so that a crash is told from one bad answer. Then each finding's
smallest request.

On a crash the run names the last requests before it and stops; asked to wait (`wait_for_restart`), it waits for the
server to come back, sends those requests again one at a time, each followed by the probe, to learn which one took it
down, and goes on. Nothing here is global: a Campaign holds all the state of one run.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import h11
import httpx
from fuzz.rules import AMPLIFICATION, CRASH, Breach, Limits, amplified, judge, shown, sse_data, strict_json, troubled
from fuzz.strategies import ODD_PATH, Focus, FuzzRequest, requests
from fuzz.surface import UNKNOWN_TASK, Surface
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException

from reference_server.conformance.support.health import Health
from reference_server.conformance.support.raw import RawAnswer, timed_request
from scripts.robustness_kit.safety import Pace
from scripts.robustness_kit.shrink import Search, identity, smallest

GetTask = Callable[[str], tuple[str, str, dict[str, Any], dict[str, str]]]  # a task id -> a well-formed GetTask
NewTask = Callable[[], "str | None"]  # a new task of the caller's, from a well-formed send; None when none came
SENDS = ("SendMessage", "SendStreamingMessage")


@dataclass(frozen=True)
class Settings:
    requests: int = 10_000  # hostile requests
    rate: float = 50.0  # requests a second at most, every request of the run counted
    seconds: float = 900.0  # the whole run, shrinking included (waiting for a restart too)
    shrink_seconds: float = 120.0  # of which, at most, for the smallest requests of the findings
    timeout: float = 10.0  # seconds for an answer (a stream: its first event) before it is a hang
    batch: int = 50  # a health probe after every this many hostile requests
    max_request_bytes: int = 256 * 1024
    max_answer_bytes: int = 16 * 1024 * 1024  # read no further: the answer is cut there
    amplification: float = 20.0
    amplification_floor: int = 256 * 1024
    wait_for_restart: float = 0.0  # seconds to wait for a crashed server to come back; 0: stop at a crash
    seed: int = 0
    last: int = 5  # the requests named before a crash
    shrink_tries: int = 150  # requests sent, at most, to shrink one finding

    @property
    def limits(self) -> Limits:
        return Limits(self.timeout, self.amplification, self.amplification_floor)


@dataclass
class Sent:
    """A request of the run and what it got, in one line."""

    request: FuzzRequest
    got: str
    bad: bool  # a 5xx, or no answer


@dataclass
class Finding:
    """Every request that broke one rule on one interface in one way (its kind: "HTTP 500 text/plain"), whatever
    their operations, and the smallest one that shows it: one defect, one finding."""

    rule: str
    interface: str  # "" for a path of no interface, or a crash not yet traced to one request
    kind: str  # what tells it from another finding of its rule there (fuzz.rules.Breach.kind); a crash: its request's
    #            operation, once traced
    says: str  # what the first one got (a crash: what the health probe saw)
    first: FuzzRequest
    operations: Counter[str] = field(default_factory=Counter)  # how many of them each operation got
    count: int = 0
    well_formed: int = 0  # how many of them were well-formed requests
    reproducer: FuzzRequest | None = None  # a crash: None until one request is shown to cause it
    answered: str = ""  # what the reproducer got
    shrink: str = ""  # how the reproducer was found
    before: list[Sent] = field(default_factory=list)  # a crash: the last requests sent before it, oldest first
    notes: list[str] = field(default_factory=list)


class Stop(Exception):
    """The run ends here: the server crashed (and is not waited for), or the time bound passed."""


@dataclass
class Outcome:
    findings: list[Finding]
    counts: dict[tuple[str, str], Counter[str]]  # (interface, operation) -> sent, 2xx, 4xx, 5xx, no answer, rules
    sent: int  # hostile requests
    probes: int
    follow_ups: int  # GetTasks of the tasks the sends stored
    shrink_tries: int
    total: int  # every request of the run
    seconds: float
    stopped: str | None  # why the run ended before its count, if it did
    notes: list[str]


UNTRACED = "one of the last requests"  # the operation of a crash no single request was shown to cause


class Campaign:
    def __init__(self, surface: Surface, health: Health, settings_: Settings, get_task: GetTask | None = None,
                 say: Callable[[str], None] = lambda _: None, new_task: NewTask | None = None) -> None:
        self.surface, self.health, self.settings, self.get_task, self.say = surface, health, settings_, get_task, say
        self.new_task = new_task
        self.pace = Pace(settings_.rate)
        self.findings: dict[tuple[str, str, str], Finding] = {}
        self.counts: dict[tuple[str, str], Counter[str]] = {}
        self.recent: deque[Sent] = deque(maxlen=max(settings_.batch, settings_.last))
        self.sent = self.probes = self.follow_ups = self.shrink_tries = 0
        self.stopped: str | None = None
        self.notes: list[str] = []
        self.comebacks: list[float] = []  # seconds a crashed server took to answer again, each time
        self.started = time.monotonic()
        self.deadline = self.started + settings_.seconds

    # --- the run ---

    def run(self) -> Outcome:
        with contextlib.suppress(Stop):  # a crash or the time bound: what was found is kept
            self._explore()
        self._shrink_all()
        if self.comebacks:
            times = "once" if len(self.comebacks) == 1 else f"{len(self.comebacks)} times"
            self.notes.append(f"The server stopped answering {times} and came back each time, after "
                              f"{min(self.comebacks):.1f} to {max(self.comebacks):.1f} s: the run went on.")
        return Outcome(sorted(self.findings.values(), key=lambda f: (f.rule != CRASH.id, -f.count)), self.counts,
                       self.sent, self.probes, self.follow_ups, self.shrink_tries, self.pace.sent,
                       time.monotonic() - self.started, self.stopped, self.notes)

    def _explore(self) -> None:
        explore_until = self.deadline - self.settings.shrink_seconds

        @settings(max_examples=self.settings.requests, phases=[Phase.generate], database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
        @seed(self.settings.seed)
        @given(st.data())
        def explore(data: st.DataObject) -> None:
            if self.stopped is not None:
                raise Stop
            if time.monotonic() > explore_until:
                self.notes.append(f"The time bound ended the run after {self.sent} of {self.settings.requests} "
                                  "hostile requests.")
                raise Stop
            request = data.draw(requests(self.surface))
            assume(request.size() <= self.settings.max_request_bytes)
            self._hostile(request)

        with contextlib.suppress(HypothesisException):  # hypothesis could draw no more: the run ends as at its count
            explore()

    def _hostile(self, request: FuzzRequest) -> None:
        """One hostile request: sent, counted, judged; the probe after a bad answer and after every batch."""
        answer = self._send(request)
        self.sent += 1
        tally = self.counts.setdefault((request.interface, request.operation), Counter())
        tally["sent"] += 1
        tally[status_class(answer)] += 1
        breaches = self._judged(request, answer)
        if troubled(answer) and self._probe():
            return  # its bad answer was the crash's doing, found by the probe
        for breach in breaches:
            tally[breach.rule] += 1
            self._saw(breach, request)
        if self.sent % self.settings.batch == 0:
            self._probe()

    def _judged(self, request: FuzzRequest, answer: RawAnswer) -> list[Breach]:
        """The rules an answer breaks (a send's stored task read back for its size)."""
        self.recent.append(Sent(request, shown(answer, self.surface.secrets), troubled(answer)))
        breaches = judge(request, answer, self.surface.secrets, self.settings.limits)
        if request.operation in SENDS and 200 <= answer.status < 300 and not answer.failure:
            breaches += self._stored(request, answer)
        return breaches

    def _send(self, request: FuzzRequest) -> RawAnswer:
        self.pace.wait()
        try:
            return timed_request(request.origin, request.verb, request.target, request.headers, request.body,
                                 timeout=self.settings.timeout, max_answer=self.settings.max_answer_bytes)
        except h11.LocalProtocolError:
            assume(False)  # h11 itself refuses to send it (a header with a line break, ...)
            raise

    def _saw(self, breach: Breach, request: FuzzRequest) -> Finding:
        key = (breach.rule, request.interface, breach.kind)
        finding = self.findings.get(key)
        if finding is None:
            finding = self.findings[key] = Finding(breach.rule, request.interface, breach.kind, breach.says, request)
            self.say(f"  {breach.rule}: {request.operation} on {request.interface or 'any interface'}: {breach.says}")
        finding.operations[request.operation] += 1
        finding.count += 1
        finding.well_formed += request.well_formed
        return finding

    def _stored(self, request: FuzzRequest, answer: RawAnswer) -> list[Breach]:
        """The task a send stored, read back: far larger than the request is amplification."""
        task = task_id(answer)
        if task is None or self.get_task is None:
            return []
        method, url, body, headers = self.get_task(task)
        self.pace.wait()
        self.follow_ups += 1
        try:
            with httpx.Client(timeout=self.settings.timeout) as http:
                response = http.request(method, url, json=body or None, headers=headers)
        except httpx.HTTPError:
            return []
        size = len(response.content)
        if response.status_code < 300 and amplified(request.size(), size, self.settings.limits):
            return [Breach(AMPLIFICATION.id, f"the task a {request.size()}-byte request stored is {size} bytes "
                                             "(read back with GetTask)", "the stored task")]
        return []

    # --- crashes ---

    def _check(self) -> str | None:
        """The health probe: None when the server answers as at the start, else what it does now."""
        self.pace.wait()
        self.pace.wait()  # the card and the GetTask
        self.probes += 1
        return self.health.check(self.settings.timeout)

    def _probe(self) -> bool:
        """Whether the server crashed (then the crash is recorded, and the run stops or waits for it)."""
        problem = self._check()
        if problem is None:
            return False
        self._crashed(problem)
        return True

    def _crashed(self, problem: str) -> None:
        before = list(self.recent)[-self.settings.last:]
        self.recent.clear()
        crash = Finding(CRASH.id, "", "", problem, before[-1].request if before else FuzzRequest("", "", "", []),
                        Counter({UNTRACED: 1}), count=1, before=before)
        self.findings[(CRASH.id, "", f"untraced {len(self.findings)}")] = crash
        self.say(f"  crash: the server stopped answering ({problem})")
        if not self.settings.wait_for_restart:
            self.stopped = (f"The server stopped answering ({problem}): the run stops here (--wait-for-restart "
                            "SECONDS waits for it to come back).")
            raise Stop
        self.comebacks.append(self._back())
        for sent in before:  # which one was it: each again, alone, with the probe after it
            self._send(sent.request)
            again = self._check()
            if again is not None:
                crash.reproducer, crash.answered = sent.request, again
                crash.interface, crash.kind = sent.request.interface, sent.request.operation
                crash.operations = Counter({sent.request.operation: 1})
                crash.notes.append("Sent again one at a time once the server was back, this request alone took it "
                                   "down again.")
                self._merge(crash)
                self._back()
                return
        crash.notes.append("Sent again one at a time once the server was back, none of the last requests took it "
                           "down alone: the crash needs more than one of them, or more time.")

    def _merge(self, crash: Finding) -> None:
        """A crash traced to a request: one finding with the crashes traced to the same interface and operation."""
        same = [key for key, f in self.findings.items() if f is not crash and f.rule == CRASH.id
                and (f.interface, f.kind) == (crash.interface, crash.kind)]
        if same:
            self.findings[same[0]].count += 1
            self.findings[same[0]].operations[crash.kind] += 1
            del self.findings[next(key for key, f in self.findings.items() if f is crash)]

    def _back(self) -> float:
        """Seconds until the server answers its probe again; Stop when it does not within the wait."""
        started = time.monotonic()
        until = min(started + self.settings.wait_for_restart, self.deadline)
        while time.monotonic() < until:
            if self._check() is None:
                task = self.new_task() if self.new_task else None
                if task is not None:  # a server started again may have forgotten the caller's task
                    self.surface = replace(self.surface, known_task=task)
                return time.monotonic() - started
            time.sleep(min(0.5, max(0.0, until - time.monotonic())))  # polling for the restart, not a race
        self.stopped = (f"The server stopped answering and did not come back within "
                        f"{self.settings.wait_for_restart:g} s: the run stops here.")
        raise Stop

    # --- the smallest request of each finding ---

    def _shrink_all(self) -> None:
        order = sorted(self.findings.values(), key=lambda f: f.rule == CRASH.id)  # a crash last: it may not come back
        for index, finding in enumerate(order):
            if finding.rule != CRASH.id:
                finding.reproducer, finding.answered = finding.first, finding.says
            if finding.reproducer is None:
                finding.shrink = ("not traced to one request: " + ("the run stopped at the crash (--wait-for-restart "
                                  "SECONDS traces it, if something starts the server again)"
                                  if not self.settings.wait_for_restart else "none of them crashed it alone"))
            elif self.stopped is not None:
                finding.shrink = "as found: the run stopped before it could be shrunk"
            elif time.monotonic() >= self.deadline:
                finding.shrink = "as found: no time was left to shrink it"
            else:
                share = (self.deadline - time.monotonic()) / (len(order) - index)
                self._shrink(finding, time.monotonic() + share, index)

    def _shrink(self, finding: Finding, until: float, index: int) -> None:
        answers: dict[tuple[object, ...], str] = {}

        def shows(request: FuzzRequest) -> bool:
            if self.stopped is not None:
                return False
            try:
                if finding.rule == CRASH.id:
                    self._send(request)
                    problem = self._check()
                    if problem is not None:
                        answers[identity(request)] = problem
                        self._back()
                    return problem is not None
                if request.interface != finding.interface:
                    return False  # another interface's request: it would reproduce another finding
                answer = self._send(request)
                said = [b.says for b in self._judged(request, answer) if (b.rule, b.kind) == (finding.rule,
                                                                                              finding.kind)]
                if troubled(answer) and self._probe():
                    return False
            except Stop:
                return False
            if said:
                answers[identity(request)] = said[0]
            return bool(said)

        search = Search(shows, until, self.settings.max_request_bytes, self.settings.shrink_tries)
        first = finding.reproducer or finding.first
        # a crash's search stays on its operation (each try may take the server down); any other's takes the smallest
        # request of any operation of its interface that shows it the same way
        operation = finding.kind if finding.rule == CRASH.id else ODD_PATH if not finding.interface else None
        # a server started again after each crash forgets the caller's task: a crash's search names none
        surface = replace(self.surface, known_task=UNKNOWN_TASK) if finding.rule == CRASH.id else self.surface
        found = smallest(requests(surface, Focus(finding.interface, operation)), search,
                         examples=self.settings.shrink_tries, seed_=self.settings.seed + index + 1)
        self.shrink_tries += search.tries
        tries = f"{search.tries} {'try' if search.tries == 1 else 'tries'}"
        if found is not None and found.size() <= first.size():
            finding.reproducer, finding.answered = found, answers.get(identity(found), finding.answered)
            finding.shrink = f"shrunk: the smallest request that showed it again, in {tries}"
        elif found is not None:
            finding.shrink = f"as found: {tries} found none smaller"
        elif search.verdict(first, bounded=False):
            finding.shrink = f"as found: sent again, it showed again; none of {tries} that were smaller showed it"
        else:
            finding.shrink = f"as found: not seen again in {tries}, nor when it was sent again itself"


def status_class(answer: RawAnswer) -> str:
    if answer.failure is not None and not answer.status:
        return "no answer"
    if answer.failure == "timeout":
        return "no answer"
    return f"{answer.status // 100}xx"


def task_id(answer: RawAnswer) -> str | None:
    """The id of the task a send's answer (or its stream's first event) is about."""
    try:
        payload = strict_json(sse_data(answer.body)[0].encode()) if answer.stream else strict_json(answer.body)
    except (ValueError, IndexError):
        return None
    value = payload.get("result", payload) if isinstance(payload, dict) else None
    for candidate in (value.get("task"), value) if isinstance(value, dict) else ():
        if isinstance(candidate, dict) and isinstance(candidate.get("id"), str) and "status" in candidate:
            return str(candidate["id"])
    return None
