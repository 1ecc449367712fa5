"""Server settings: the design's Configuration table from A2A__* environment variables and CLI flags."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any


class SettingsError(ValueError):
    """A setting has a value of the wrong form; the message names the key and the expected form."""


@dataclass(frozen=True)
class Settings:
    enabled: bool = True
    public_url: str | None = None
    max_hops: int = 3
    session_idle_timeout: timedelta = timedelta(minutes=30)
    max_idle_sessions: int = 256
    max_session_bytes: int = 256 * 1024 * 1024
    max_file_bytes: int = 10 * 1024 * 1024
    allow_private_push_urls: bool = False
    card_name: str = "Volcanic assistant"
    card_description: str = "A general-purpose assistant reachable over A2A."
    hybrid_card: bool = False
    capabilities_streaming: bool = True
    capabilities_push_notifications: bool = True
    capabilities_extended_agent_card: bool = True
    max_body_bytes: int = 16 * 1024 * 1024
    max_push_bytes: int = 1024 * 1024
    max_push_configs: int = 10
    max_json_depth: int = 64
    max_parts: int = 100
    max_metadata_bytes: int = 64 * 1024
    header_timeout: timedelta = timedelta(seconds=10)
    stream_write_timeout: timedelta = timedelta(seconds=30)
    max_unsent_stream_bytes: int = 1024 * 1024
    body_timeout: timedelta = timedelta(seconds=30)
    scope_prefix: str = "reference"
    provider_base_url: str | None = None
    provider_model: str | None = None
    provider_api_key: str | None = None
    workspace: Path | None = None
    workspace_root: Path | None = None
    owners: tuple[str, ...] = ()
    owners_file: Path | None = None
    file_changes: str = "auto"
    notifier: str = "log"
    webhook_url: str | None = None
    webhook_token: str | None = None
    telegram_bot_token: str | None = None
    telegram_api_url: str = "https://api.telegram.org"
    record: Path | None = None
    request_log: str = "text"
    event_loop: str = "auto"
    host: str = "127.0.0.1"
    port: int = 8080

    def __repr__(self) -> str:  # secrets never reach a log line
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in KEYS:
            if key.secret and shown[key.attr]:
                shown[key.attr] = "***"
        return "Settings(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ValueError


def _parse_positive_int(text: str) -> int:
    value = int(text.strip())
    if value < 0:
        raise ValueError
    return value


_TIMESPAN = re.compile(r"^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})$")


def _parse_timespan(text: str) -> timedelta:
    """A .NET TimeSpan ("00:30:00", "1.02:00:00") or a number of seconds ("90")."""
    text = text.strip()
    if text.isdigit():
        return timedelta(seconds=int(text))
    match = _TIMESPAN.match(text)
    if not match:
        raise ValueError
    days, hours, minutes, seconds = (int(g or 0) for g in match.groups())
    if minutes > 59 or seconds > 59:
        raise ValueError
    return timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)


def _parse_url(text: str) -> str:
    text = text.strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", text):
        raise ValueError
    return text


def _parse_text(text: str) -> str:
    if not text.strip():
        raise ValueError
    return text


# an owner id names a folder under the workspace root and goes into session scopes: no dots, no slashes
# (a Telegram chat id, "-1001234567890" for a group, fits)
OWNER_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NOTIFIERS = ("log", "webhook", "telegram", "none")
REQUEST_LOGS = ("text", "json", "off")
FILE_CHANGES = ("auto", "notify", "stat")
EVENT_LOOPS = ("auto", "uvloop", "asyncio")


def _parse_owners(text: str) -> tuple[str, ...]:
    """Owner ids separated by commas; each flag of a repeated --owner is one more."""
    owners = [part.strip() for part in text.split(",") if part.strip()]
    if not owners or not all(OWNER_ID.fullmatch(owner) for owner in owners):
        raise ValueError
    return tuple(dict.fromkeys(owners))  # in the order given, each once


def _parse_notifier(text: str) -> str:
    value = text.strip().lower()
    if value not in NOTIFIERS:
        raise ValueError
    return value


def _parse_request_log(text: str) -> str:
    value = text.strip().lower()
    if value not in REQUEST_LOGS:
        raise ValueError
    return value


def _parse_file_changes(text: str) -> str:
    value = text.strip().lower()
    if value not in FILE_CHANGES:
        raise ValueError
    return value


def _parse_event_loop(text: str) -> str:
    value = text.strip().lower()
    if value not in EVENT_LOOPS:
        raise ValueError
    return value


def _parse_port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError
    return value


@dataclass(frozen=True)
class _Key:
    attr: str
    env: str  # the key after "A2A__"
    flag: str
    parse: Callable[[str], Any]
    form: str
    help: str
    secret: bool = False  # never shown: not in an error message, not in repr(settings)
    repeated: bool = False  # the flag may be given more than once; its values are joined with commas


# the forms the values take, as the error messages and docs/configuration.md give them
_A_TIMESPAN = "hh:mm:ss, d.hh:mm:ss or a number of seconds"
_BYTES = "a whole number of bytes"
_COUNT = "a whole number >= 0"

KEYS: tuple[_Key, ...] = (
    _Key("enabled", "Enabled", "--enabled", _parse_bool, "true or false", "mount the A2A endpoints"),
    _Key("public_url", "PublicUrl", "--public-url", _parse_url, "an http(s) URL such as https://agent.example.com",
         "external base URL for the card and push webhooks"),
    _Key("max_hops", "MaxHops", "--max-hops", _parse_positive_int, _COUNT, "recursion guard"),
    _Key("session_idle_timeout", "SessionIdleTimeout", "--session-idle-timeout", _parse_timespan,
         _A_TIMESPAN, "evict idle sessions after this long; a subscription waiting for an answer ends then too"),
    _Key("max_idle_sessions", "MaxIdleSessions", "--max-idle-sessions", _parse_positive_int, _COUNT,
         "idle sessions kept in memory; beyond it the least recently used resume from their file"),
    _Key("max_session_bytes", "MaxSessionBytes", "--max-session-bytes", _parse_positive_int,
         _BYTES, "conversation bytes kept in memory; beyond it idle sessions are dropped first"),
    _Key("max_file_bytes", "MaxFileBytes", "--max-file-bytes", _parse_positive_int, _BYTES,
         "cap per file part, in and out"),
    _Key("allow_private_push_urls", "AllowPrivatePushUrls", "--allow-private-push-urls", _parse_bool,
         "true or false", "allow webhooks and file URLs on loopback/private ranges"),
    _Key("card_name", "Card__Name", "--card-name", _parse_text, "a non-empty string", "public card name"),
    _Key("card_description", "Card__Description", "--card-description", _parse_text, "a non-empty string",
         "public card description"),
    _Key("hybrid_card", "Card__Hybrid", "--hybrid-card", _parse_bool, "true or false",
         "add the 0.3 top-level fields to the public card"),
    _Key("capabilities_streaming", "Capabilities__Streaming", "--capabilities-streaming", _parse_bool,
         "true or false", "declare streaming; false refuses SendStreamingMessage and SubscribeToTask (A2A §3.3.4)"),
    _Key("capabilities_push_notifications", "Capabilities__PushNotifications", "--capabilities-push-notifications",
         _parse_bool, "true or false",
         "declare push notifications; false refuses every push config operation and a push config in a send"),
    _Key("capabilities_extended_agent_card", "Capabilities__ExtendedAgentCard", "--capabilities-extended-agent-card",
         _parse_bool, "true or false", "declare the extended card; false refuses GetExtendedAgentCard"),
    _Key("max_body_bytes", "MaxBodyBytes", "--max-body-bytes", _parse_positive_int, _BYTES,
         "largest request body accepted"),
    _Key("max_push_bytes", "MaxPushBytes", "--max-push-bytes", _parse_positive_int, _BYTES,
         "largest push notification body the push receiver accepts"),
    _Key("max_push_configs", "MaxPushConfigs", "--max-push-configs", _parse_positive_int, _COUNT,
         "push notification configs one task may have (each state change is one POST per config)"),
    _Key("header_timeout", "HeaderTimeout", "--header-timeout", _parse_timespan,
         _A_TIMESPAN, "close a connection whose request headers take longer"),
    _Key("body_timeout", "BodyTimeout", "--body-timeout", _parse_timespan,
         _A_TIMESPAN, "refuse a request whose body takes longer (HTTP 408)"),
    _Key("stream_write_timeout", "StreamWriteTimeout", "--stream-write-timeout", _parse_timespan, _A_TIMESPAN,
         "close a stream whose client takes none of the bytes waiting for it for this long"),
    _Key("max_unsent_stream_bytes", "MaxUnsentStreamBytes", "--max-unsent-stream-bytes", _parse_positive_int,
         _BYTES, "framed events a stream holds for a client that reads slower than they come"),
    _Key("max_parts", "MaxParts", "--max-parts", _parse_positive_int, _COUNT,
         "parts one message may have"),
    _Key("max_metadata_bytes", "MaxMetadataBytes", "--max-metadata-bytes", _parse_positive_int,
         _BYTES, "largest metadata object (as JSON) of a request, a message or a part"),
    _Key("max_json_depth", "MaxJsonDepth", "--max-json-depth", _parse_positive_int, _COUNT,
         "deepest nesting of arrays and objects accepted in a request body"),
    _Key("scope_prefix", "ScopePrefix", "--scope-prefix", _parse_text, "a non-empty string",
         "prefix of session scopes"),
    _Key("provider_base_url", "Provider__BaseUrl", "--provider-base-url", _parse_url,
         "an http(s) URL of an OpenAI-compatible API", "use a real model instead of the scripted provider"),
    _Key("provider_model", "Provider__Model", "--provider-model", _parse_text, "a model name", "model name"),
    _Key("provider_api_key", "Provider__ApiKey", "--provider-api-key", _parse_text, "a non-empty string",
         "API key of the provider (never logged)", secret=True),
    _Key("workspace", "Workspace", "--workspace", lambda t: Path(_parse_text(t)).expanduser(), "a folder path",
         "workspace to serve (default: the embedded demo workspace)"),
    _Key("workspace_root", "WorkspaceRoot", "--workspace-root", lambda t: Path(_parse_text(t)).expanduser(),
         "a folder path", "serve <root>/<owner id>/ as the workspace of each owner in A2A__Owners"),
    _Key("owners", "Owners", "--owner", _parse_owners,
         "owner ids of letters, digits, '_' and '-' (up to 64), comma-separated; --owner repeats",
         "the owners an owner host serves; without a root, the one owner of the workspace", repeated=True),
    _Key("owners_file", "OwnersFile", "--owners-file", lambda t: Path(_parse_text(t)).expanduser(), "a file path",
         "the owners an owner host serves, one id a line, read again when the file changes (instead of Owners)"),
    _Key("file_changes", "FileChanges", "--file-changes", _parse_file_changes, "auto, notify or stat",
         "how edits of callers.json, task files and the owners file are seen: kernel notifications or a stat "
         "per file per request (auto: notifications where the kernel has them)"),
    _Key("notifier", "Notifier", "--notifier", _parse_notifier, "log, webhook, telegram or none",
         "how notify_owner reaches the owner (none: no notify_owner tool)"),
    _Key("webhook_url", "Webhook__Url", "--webhook-url", _parse_url, "an http(s) URL",
         "where the webhook notifier POSTs {owner, caller, text}"),
    _Key("webhook_token", "Webhook__Token", "--webhook-token", _parse_text, "a non-empty string",
         "sent by the webhook notifier as Authorization: Bearer (never logged)", secret=True),
    _Key("telegram_bot_token", "Telegram__BotToken", "--telegram-bot-token", _parse_text, "a non-empty string",
         "bot token of the Telegram notifier (never logged)", secret=True),
    _Key("telegram_api_url", "Telegram__ApiUrl", "--telegram-api-url", _parse_url, "an http(s) URL",
         "base URL of the Telegram Bot API"),
    _Key("record", "Record", "--record", lambda t: Path(_parse_text(t)).expanduser(), "a folder path",
         "append every exchange, with its client checks, as JSONL per caller to this folder"),
    _Key("request_log", "RequestLog", "--request-log", _parse_request_log, "text, json or off",
         "one console line per exchange (caller, binding, version, operation, status, time, error), as text or "
         "JSON, or none"),
    _Key("event_loop", "EventLoop", "--event-loop", _parse_event_loop, "auto, uvloop or asyncio",
         "the event loop the server runs on: uvloop (faster, docs/performance.md) or Python's own (auto: uvloop "
         "where it can be imported)"),
    _Key("host", "Host", "--host", _parse_text, "a host name or address", "listen address"),
    _Key("port", "Port", "--port", _parse_port, "a port number 0-65535", "listen port"),
)


def _apply(settings: Settings, key: _Key, raw: str, source: str) -> Settings:
    try:
        value = key.parse(raw)
    except ValueError:
        shown = "***" if key.secret else repr(raw)
        raise SettingsError(f"{source} has the value {shown}; expected {key.form}") from None
    return replace(settings, **{key.attr: value})


def load_settings(env: Mapping[str, str], argv: Sequence[str] = ()) -> Settings:
    """Environment first (A2A__Key, case-insensitive, ':' also accepted), then CLI flags override."""
    settings = Settings()
    by_env = {k.env.lower(): k for k in KEYS}
    for name, raw in env.items():
        normalized = name.replace(":", "__").lower()
        if not normalized.startswith("a2a__"):
            continue
        key = by_env.get(normalized[len("a2a__"):])
        if key is not None:
            settings = _apply(settings, key, raw, name)
    args = build_parser().parse_args(list(argv))
    for key in KEYS:
        raw = getattr(args, key.attr)
        if raw is not None:
            settings = _apply(settings, key, ",".join(raw) if key.repeated else raw, key.flag)
    _check_together(settings)
    return settings


def _check_together(settings: Settings) -> None:
    """The rules that span settings, each refused with a message naming both sides."""
    if settings.workspace is not None and settings.workspace_root is not None:
        raise SettingsError("A2A__Workspace (--workspace) and A2A__WorkspaceRoot (--workspace-root) are both set; "
                            "expected one of them: a single workspace, or a folder of owners' workspaces")
    if settings.workspace_root is not None and not settings.owners and settings.owners_file is None:
        raise SettingsError("A2A__WorkspaceRoot (--workspace-root) is set but no owner is listed; expected "
                            "A2A__Owners (--owner ID, repeated) or A2A__OwnersFile (--owners-file): a folder under "
                            "the root that is not listed is never served")
    if settings.owners_file is not None and settings.owners:
        raise SettingsError("A2A__OwnersFile (--owners-file) and A2A__Owners (--owner) are both set; expected one "
                            "of them: the owners listed in the file, or on the command line")
    if settings.owners_file is not None and settings.workspace_root is None:
        raise SettingsError("A2A__OwnersFile (--owners-file) is set without A2A__WorkspaceRoot (--workspace-root); "
                            "expected the root whose folders the file's owners are")
    if settings.workspace_root is None and len(settings.owners) > 1:
        raise SettingsError("A2A__Owners (--owner) lists several owners without A2A__WorkspaceRoot "
                            "(--workspace-root); expected one owner, the single workspace's")
    if settings.provider_base_url and not settings.provider_model:
        raise SettingsError(
            "A2A__Provider__Model (--provider-model) is missing; expected a model name when "
            "A2A__Provider__BaseUrl is set"
        )
    if settings.notifier == "webhook" and not settings.webhook_url:
        raise SettingsError("A2A__Webhook__Url (--webhook-url) is missing; expected the URL the webhook notifier "
                            "POSTs to when A2A__Notifier is webhook")
    if settings.notifier == "telegram" and not settings.telegram_bot_token:
        raise SettingsError("A2A__Telegram__BotToken (--telegram-bot-token) is missing; expected the bot's token "
                            "when A2A__Notifier is telegram")
    if settings.notifier == "telegram" and not settings.owners and settings.owners_file is None:
        raise SettingsError("A2A__Notifier is telegram but no owner is listed; expected A2A__Owners (--owner) "
                            "to give each owner's Telegram chat id")


def _shown_default(key: _Key, value: Any) -> str:
    """"; default: <value>" for --help, from Settings' own default; nothing for a secret or an unset one."""
    if key.secret or value is None or value == () or value == "":
        return ""
    shown = str(value).lower() if isinstance(value, bool) else ",".join(map(str, value)) if isinstance(
        value, tuple) else str(value)
    return f"; default: {shown}".replace("%", "%%")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reference-server",
        description="The A2A 1.0 reference server (with 0.3 compatibility). "
        "Every flag can also be set as an A2A__<Key> environment variable.",
        epilog="Other commands (each with --help): `reference-server conformance [URL]` runs the portable "
        "conformance suite against an A2A server; `reference-server client-check COMMAND` runs an A2A client against "
        "a recording server and reports every rule it broke; `reference-server a2a` shows the callers and last tasks "
        "of a workspace or of every owner, and adds or removes a caller (`a2a add-caller NAME`, `a2a remove-caller "
        "NAME`); `reference-server report DIR` writes the client report of exchanges recorded with --record.",
    )
    from reference_server import __version__

    parser.add_argument("--version", action="version", version=f"reference-server {__version__}")
    defaults = Settings()
    for key in KEYS:
        default = _shown_default(key, getattr(defaults, key.attr))
        if key.parse is _parse_bool:  # a switch: given alone it means true (`--hybrid-card`), or takes its value
            parser.add_argument(key.flag, dest=key.attr, metavar="VALUE", nargs="?", const="true",
                                help=f"{key.help} (A2A__{key.env}; {key.form}; alone: true{default})")
            continue
        parser.add_argument(key.flag, dest=key.attr, metavar="VALUE", action="append" if key.repeated else "store",
                            help=f"{key.help} (A2A__{key.env}; {key.form}{default})")
    return parser
