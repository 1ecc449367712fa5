"""Owner notifiers (design: IA2AOwnerNotifier): the log, a webhook, a Telegram bot; the host's settings pick one."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from reference_server.a2a.ports import OwnerNotifier
from reference_server.platform.addresses import url_refusal
from reference_server.platform.outbound import Outbound, OutboundError
from reference_server.settings import Settings, SettingsError

log = logging.getLogger("reference_server.owner")

TELEGRAM_MAX_CHARS = 4096  # Telegram Bot API: sendMessage text is 1-4096 characters


class NotifierError(Exception):
    """The owner was not reached; the message says why in words safe for the agent and a log line (never a
    token, never a URL: a Telegram bot token is part of the Bot API's URL)."""


@dataclass(frozen=True)
class Notification:
    """One message a caller's session sent to the owner."""

    owner_id: str
    caller: str
    text: str


class LoggingNotifier:
    """The default host's notifier: one INFO line per notification, kept in memory in `.sent`."""

    def __init__(self) -> None:
        self.sent: list[Notification] = []

    async def notify(self, owner_id: str, caller: str, text: str) -> None:
        self.sent.append(Notification(owner_id, caller, text))
        log.info("owner %s notified by %s: %s", owner_id, caller, text)


class WebhookNotifier:
    """POSTs {"owner", "caller", "text"} as JSON to one URL, through the guarded outbound client; any answer but
    2xx is a failure. With a token, the request carries Authorization: Bearer <token>."""

    def __init__(self, outbound: Outbound, url: str, token: str | None = None) -> None:
        self._outbound = outbound
        self._url = url
        self._token = token

    def __repr__(self) -> str:  # the URL may carry credentials of its own; the token never shows
        return "WebhookNotifier()"

    async def notify(self, owner_id: str, caller: str, text: str) -> None:
        body = json.dumps({"owner": owner_id, "caller": caller, "text": text}, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        try:
            status = await self._outbound.post(self._url, body, headers)
        except OutboundError as error:
            raise NotifierError(f"the owner's webhook was not reached: {error.reason}") from None
        if not 200 <= status < 300:
            raise NotifierError(f"the owner's webhook answered HTTP {status}")


# what a refusal of the Bot API most likely means, for the agent and the host's log
_TELEGRAM_REFUSALS = {
    400: "the chat may not exist",
    401: "the bot token was not accepted",
    403: "the bot may not write to this chat: the owner blocked it or never started it",
    404: "the bot token was not accepted",
    429: "too many messages; try again later",
}


class TelegramNotifier:
    """Sends "🤖 A2A · <caller>: <text>" to the owner's chat (chat id = owner id) with the Bot API's sendMessage,
    through the guarded outbound client. Plain text (no parse_mode): a caller's text is never read as markup."""

    def __init__(self, outbound: Outbound, token: str, api_url: str = "https://api.telegram.org") -> None:
        self._outbound = outbound
        self._token = token
        self._api_url = api_url.rstrip("/")

    def __repr__(self) -> str:  # the token never shows
        return f"TelegramNotifier(api_url={self._api_url!r})"

    async def notify(self, owner_id: str, caller: str, text: str) -> None:
        message = f"🤖 A2A · {caller}: {text}"
        if len(message) > TELEGRAM_MAX_CHARS:
            message = message[:TELEGRAM_MAX_CHARS - 1] + "…"
        body = json.dumps({"chat_id": _chat_id(owner_id), "text": message}, ensure_ascii=False).encode("utf-8")
        url = f"{self._api_url}/bot{self._token}/sendMessage"
        try:
            status = await self._outbound.post(url, body, {"Content-Type": "application/json"})
        except OutboundError as error:  # its reason names the host and port, never the path
            raise NotifierError(f"Telegram was not reached: {error.reason}") from None
        if status != 200:
            why = _TELEGRAM_REFUSALS.get(status)
            raise NotifierError(f"Telegram refused the message: HTTP {status}" + (f" ({why})" if why else ""))


def _chat_id(owner_id: str) -> int | str:
    """A numeric owner id is a chat id (negative for groups); anything else is sent as it is (an @channel)."""
    return int(owner_id) if re.fullmatch(r"-?\d{1,20}", owner_id) else owner_id


def owner_notifier(settings: Settings, outbound: Outbound) -> OwnerNotifier | None:
    """The notifier A2A__Notifier names (None for none: no notify_owner tool); a URL the outbound client
    would refuse whatever the address is a SettingsError now, not a failed notify_owner later."""
    if settings.notifier == "none":
        return None
    if settings.notifier == "webhook":
        assert settings.webhook_url is not None  # load_settings requires it
        _check_url("A2A__Webhook__Url", settings.webhook_url, settings)
        return WebhookNotifier(outbound, settings.webhook_url, settings.webhook_token)
    if settings.notifier == "telegram":
        assert settings.telegram_bot_token is not None  # load_settings requires it
        _check_url("A2A__Telegram__ApiUrl", settings.telegram_api_url, settings)
        return TelegramNotifier(outbound, settings.telegram_bot_token, settings.telegram_api_url)
    return LoggingNotifier()


def _check_url(name: str, url: str, settings: Settings) -> None:
    problem = url_refusal(url, allow_private=settings.allow_private_push_urls)
    if problem:
        raise SettingsError(f"{name} cannot be used: {problem}")
