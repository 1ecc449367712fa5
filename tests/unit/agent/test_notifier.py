"""agent/notifier.py: the webhook and Telegram notifiers over the guarded outbound client; the choice by settings."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from support.telegram import FakeTelegram

from reference_server.agent.notifier import (
    TELEGRAM_MAX_CHARS,
    NotifierError,
    TelegramNotifier,
    WebhookNotifier,
    owner_notifier,
)
from reference_server.conformance.support.webhook import Webhook, client_ssl_context
from reference_server.conformance.support.webhook import test_resolver as resolver  # not collected as a test
from reference_server.platform.outbound import Outbound
from reference_server.settings import Settings, SettingsError

from .helpers import run

T = TypeVar("T")
TOKEN = "987654:bot-token-that-must-never-show"


def with_outbound(use: Callable[[Outbound], Awaitable[T]], *, allow_private: bool = True) -> T:
    """use(outbound) on a fresh event loop; the client trusts the test CA and is closed afterwards."""

    async def go() -> T:
        outbound = Outbound(allow_private=allow_private, ssl_context=client_ssl_context(), resolver=resolver,
                            timeout=5.0)
        try:
            return await use(outbound)
        finally:
            await outbound.aclose()

    return run(go())


def failure(use: Callable[[Outbound], Awaitable[Any]], *, allow_private: bool = True) -> str:
    """The NotifierError message of use(outbound)."""

    async def expect(outbound: Outbound) -> str:
        with pytest.raises(NotifierError) as raised:
            await use(outbound)
        return str(raised.value)

    return with_outbound(expect, allow_private=allow_private)


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook().start()
    yield hook
    hook.stop()


@pytest.fixture
def telegram() -> Iterator[Any]:
    fake = FakeTelegram(token=TOKEN).start()
    yield fake
    fake.stop()


# --- the webhook notifier ---


def test_the_webhook_notifier_posts_owner_caller_and_text_with_the_bearer_token(webhook: Webhook) -> None:
    with_outbound(lambda o: WebhookNotifier(o, webhook.url, "hook-secret").notify("alice", "travel-bot", "Züri"))

    [received] = webhook.requests()
    assert received.json() == {"owner": "alice", "caller": "travel-bot", "text": "Züri"}
    assert received.headers["Content-Type"] == "application/json"
    assert received.headers["Authorization"] == "Bearer hook-secret"


def test_the_webhook_notifier_sends_no_authorization_without_a_token(webhook: Webhook) -> None:
    with_outbound(lambda o: WebhookNotifier(o, webhook.url).notify("alice", "travel-bot", "hi"))

    assert "Authorization" not in webhook.requests()[0].headers


def test_an_answer_other_than_2xx_is_a_failure(webhook: Webhook) -> None:
    webhook.answers = [500]

    said = failure(lambda o: WebhookNotifier(o, webhook.url, "hook-secret").notify("alice", "bot", "hi"))

    assert said == "the owner's webhook answered HTTP 500"


def test_a_private_address_is_refused_unless_allowed(webhook: Webhook) -> None:
    said = failure(lambda o: WebhookNotifier(o, webhook.url).notify("alice", "bot", "hi"), allow_private=False)

    assert said.startswith("the owner's webhook was not reached: refused to connect to localhost: 127.0.0.1")
    assert webhook.requests() == []


# --- the Telegram notifier ---


def test_the_telegram_notifier_sends_the_designs_line_to_the_owners_chat(telegram: Any) -> None:
    with_outbound(lambda o: TelegramNotifier(o, TOKEN, telegram.url).notify("1001", "travel-bot", "Flights booked"))

    assert [(m.chat_id, m.text) for m in telegram.messages] == [(1001, "🤖 A2A · travel-bot: Flights booked")]


@pytest.mark.parametrize(("owner", "chat_id"), [("1001", 1001), ("-1001234567890", -1001234567890),
                                                ("alice", "alice")])
def test_a_numeric_owner_id_is_a_numeric_chat_id(telegram: Any, owner: str, chat_id: int | str) -> None:
    with_outbound(lambda o: TelegramNotifier(o, TOKEN, telegram.url).notify(owner, "bot", "hi"))

    assert telegram.messages[0].chat_id == chat_id


def test_a_long_text_is_cut_to_telegrams_limit(telegram: Any) -> None:
    with_outbound(lambda o: TelegramNotifier(o, TOKEN, telegram.url).notify("1001", "bot", "x" * 5000))

    text = telegram.messages[0].text
    assert len(text) == TELEGRAM_MAX_CHARS and text.endswith("x…")


@pytest.mark.parametrize(("token", "refused", "said"), [
    ("0:wrong-token", set(), "Telegram refused the message: HTTP 401 (the bot token was not accepted)"),
    (TOKEN, {"1001"}, "Telegram refused the message: HTTP 403 (the bot may not write to this chat: the owner "
                      "blocked it or never started it)"),
], ids=["bad-token", "blocked"])
def test_a_refusal_says_what_it_likely_means_without_the_token(telegram: Any, token: str, refused: set[str],
                                                               said: str) -> None:
    telegram.refused = refused

    assert failure(lambda o: TelegramNotifier(o, token, telegram.url).notify("1001", "bot", "hi")) == said


def test_an_unreachable_api_is_a_failure_naming_the_host_only(telegram: Any,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    url = telegram.url
    telegram.stop()
    caplog.set_level(logging.DEBUG)  # every logger: httpx and httpcore too

    said = failure(lambda o: TelegramNotifier(o, TOKEN, url).notify("1001", "bot", "hi"))

    assert said.startswith(f"Telegram was not reached: could not connect to {url.removeprefix('http://')}")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert TOKEN.split(":")[1] not in said + logged


def test_no_request_line_of_a_delivery_reaches_the_log(telegram: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx logs each request's URL at INFO, and the token is in that URL

    with_outbound(lambda o: TelegramNotifier(o, TOKEN, telegram.url).notify("1001", "bot", "hi"))

    assert telegram.messages
    assert caplog.records, "nothing was logged: the check would prove nothing"
    assert not [r.getMessage() for r in caplog.records if TOKEN.split(":")[1] in r.getMessage()]


def test_the_notifiers_reprs_hide_their_secrets() -> None:
    async def reprs(outbound: Outbound) -> str:
        return repr(TelegramNotifier(outbound, TOKEN)) + repr(WebhookNotifier(outbound, "https://x.test/?t=s3", "s3"))

    shown = with_outbound(reprs)
    assert TOKEN.split(":")[1] not in shown and "s3" not in shown


# --- the choice by settings ---


def test_the_settings_pick_the_notifier() -> None:
    async def kinds(outbound: Outbound) -> list[str]:
        chosen = [owner_notifier(Settings(**values), outbound) for values in (
            {}, {"notifier": "none"},
            {"notifier": "webhook", "webhook_url": "https://hooks.example.com/a2a"},
            {"notifier": "telegram", "telegram_bot_token": TOKEN, "owners": ("1001",)},
        )]
        return [type(n).__name__ for n in chosen]

    assert with_outbound(kinds) == ["LoggingNotifier", "NoneType", "WebhookNotifier", "TelegramNotifier"]


@pytest.mark.parametrize(("values", "said"), [
    ({"notifier": "webhook", "webhook_url": "http://hooks.example.com/a2a"},
     "A2A__Webhook__Url cannot be used: the URL scheme must be https (A2A__AllowPrivatePushUrls=true allows"),
    ({"notifier": "telegram", "telegram_bot_token": TOKEN, "telegram_api_url": "https://127.0.0.1:8081"},
     "A2A__Telegram__ApiUrl cannot be used: the URL's host 127.0.0.1 is a blocked address: loopback"),
], ids=["http-webhook", "loopback-telegram"])
def test_a_url_the_outbound_client_would_refuse_stops_start_up(values: dict[str, Any], said: str) -> None:
    async def choose(outbound: Outbound) -> None:
        owner_notifier(Settings(**values), outbound)

    with pytest.raises(SettingsError) as raised:
        with_outbound(choose, allow_private=False)
    assert str(raised.value).startswith(said), raised.value

