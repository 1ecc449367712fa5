"""settings.py: the design's Configuration table from A2A__* variables and CLI flags."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reference_server.settings import KEYS, Settings, SettingsError, load_settings

SECRET = "sk-very-secret-0123456789"


def test_the_defaults_are_the_designs() -> None:
    settings = load_settings({})
    assert settings.max_hops == 3
    assert settings.session_idle_timeout == timedelta(minutes=30)
    assert settings.max_file_bytes == 10485760
    assert settings.allow_private_push_urls is False
    assert settings.public_url is None
    assert settings.card_name == "Volcanic assistant"
    assert settings.host == "127.0.0.1"


def test_environment_variables_set_every_key() -> None:
    env = {"A2A__MaxHops": "5", "A2A__PublicUrl": "https://agent.example.com/", "A2A__SessionIdleTimeout": "01:02:03",
           "A2A__MaxFileBytes": "1024", "A2A__AllowPrivatePushUrls": "true", "A2A__Card__Name": "Eugene's assistant",
           "A2A__Card__Description": "Schedules meetings.", "A2A__Port": "9000"}
    settings = load_settings(env)
    assert (settings.max_hops, settings.public_url, settings.max_file_bytes) == (5, "https://agent.example.com", 1024)
    assert settings.session_idle_timeout == timedelta(hours=1, minutes=2, seconds=3)
    assert settings.allow_private_push_urls is True
    assert (settings.card_name, settings.card_description, settings.port) == ("Eugene's assistant",
                                                                              "Schedules meetings.", 9000)


def test_names_are_case_insensitive_and_a_colon_also_separates() -> None:
    assert load_settings({"a2a__maxhops": "4"}).max_hops == 4
    assert load_settings({"A2A:Card:Name": "Colon"}).card_name == "Colon"
    assert load_settings({"OTHER__MaxHops": "9", "A2A__Unknown": "x"}) == Settings()


def test_flags_override_the_environment() -> None:
    settings = load_settings({"A2A__MaxHops": "5"}, ["--max-hops", "7", "--workspace", "~/ws"])
    assert settings.max_hops == 7
    assert settings.workspace == Path("~/ws").expanduser()


@pytest.mark.parametrize(("text", "expected"), [
    ("00:30:00", timedelta(minutes=30)), ("1.02:00:00", timedelta(days=1, hours=2)), ("90", timedelta(seconds=90)),
])
def test_a_timespan_is_dotnet_style_or_seconds(text: str, expected: timedelta) -> None:
    assert load_settings({"A2A__SessionIdleTimeout": text}).session_idle_timeout == expected


@pytest.mark.parametrize(("env", "form"), [
    ({"A2A__MaxHops": "three"}, "a whole number >= 0"),
    ({"A2A__MaxHops": "-1"}, "a whole number >= 0"),
    ({"A2A__SessionIdleTimeout": "00:61:00"}, "hh:mm:ss, d.hh:mm:ss or a number of seconds"),
    ({"A2A__AllowPrivatePushUrls": "maybe"}, "true or false"),
    ({"A2A__PublicUrl": "agent.example.com"}, "an http(s) URL"),
    ({"A2A__Card__Name": "  "}, "a non-empty string"),
    ({"A2A__Port": "70000"}, "a port number 0-65535"),
], ids=["words", "negative", "minutes", "bool", "url", "blank", "port"])
def test_a_bad_environment_value_names_the_key_and_the_form(env: dict[str, str], form: str) -> None:
    (name, value), = env.items()
    with pytest.raises(SettingsError) as raised:
        load_settings(env)
    assert name in str(raised.value) and form in str(raised.value) and repr(value) in str(raised.value)


def test_a_bad_flag_value_names_the_flag_and_the_form() -> None:
    with pytest.raises(SettingsError, match=r"--max-file-bytes has the value 'lots'; expected a whole number"):
        load_settings({}, ["--max-file-bytes", "lots"])


def test_every_key_has_a_flag_and_an_env_name() -> None:
    assert len({k.flag for k in KEYS}) == len({k.env for k in KEYS}) == len(KEYS)
    assert {k.attr for k in KEYS} == set(Settings.__dataclass_fields__)


def test_the_api_key_never_shows_in_repr_or_str() -> None:
    settings = load_settings({"A2A__Provider__BaseUrl": "https://llm.example.com/v1", "A2A__Provider__Model": "m",
                              "A2A__Provider__ApiKey": SECRET})
    assert settings.provider_api_key == SECRET
    for shown in (repr(settings), str(settings), f"{settings}", f"{settings!r}"):
        assert SECRET not in shown and "provider_api_key='***'" in shown


def test_a_bad_api_key_value_is_not_echoed() -> None:
    secret_blank = "   \t "  # the only bad form of a key: blank, which must not be echoed either
    with pytest.raises(SettingsError) as raised:
        load_settings({"A2A__Provider__ApiKey": secret_blank})
    assert "A2A__Provider__ApiKey" in str(raised.value) and "***" in str(raised.value)
    assert repr(secret_blank) not in str(raised.value)


def test_an_error_in_another_setting_does_not_show_the_api_key() -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings({"A2A__Provider__ApiKey": SECRET, "A2A__MaxHops": "x"})
    assert SECRET not in str(raised.value)
    with pytest.raises(SettingsError) as raised:
        load_settings({"A2A__Provider__ApiKey": SECRET, "A2A__Provider__BaseUrl": "https://llm.example.com"})
    assert "A2A__Provider__Model" in str(raised.value) and SECRET not in str(raised.value)


# --- the owner host and the notifiers ---

TOKEN = "123456:telegram-bot-token-secret"


def test_owners_come_comma_separated_or_as_repeated_flags_each_once() -> None:
    assert load_settings({"A2A__WorkspaceRoot": "/srv", "A2A__Owners": "alice, bob,alice"}).owners == ("alice", "bob")
    flags = ["--workspace-root", "/srv", "--owner", "-1001234567890", "--owner", "bob"]
    assert load_settings({"A2A__Owners": "carol"}, flags).owners == ("-1001234567890", "bob")


@pytest.mark.parametrize("owners", ["..", "alice/../bob", ".hidden", "a b", ",", "x" * 65])
def test_an_owner_id_is_a_plain_folder_name(owners: str) -> None:
    with pytest.raises(SettingsError, match=r"A2A__Owners has the value .*; expected owner ids of letters"):
        load_settings({"A2A__WorkspaceRoot": "/srv", "A2A__Owners": owners})


def test_a_workspace_root_needs_owners_and_a_single_workspace_has_at_most_one() -> None:
    with pytest.raises(SettingsError, match=r"A2A__WorkspaceRoot \(--workspace-root\) is set but no owner is listed"):
        load_settings({"A2A__WorkspaceRoot": "/srv"})
    with pytest.raises(SettingsError, match="lists several owners without A2A__WorkspaceRoot"):
        load_settings({"A2A__Owners": "alice,bob"})
    assert load_settings({}, ["--owner", "1001"]).owners == ("1001",)


def test_an_owners_file_lists_a_roots_owners_instead_of_the_owner_flags() -> None:
    settings = load_settings({"A2A__WorkspaceRoot": "/srv", "A2A__OwnersFile": "/srv/owners.txt"})
    assert settings.owners_file == Path("/srv/owners.txt") and settings.owners == ()
    with pytest.raises(SettingsError, match=r"A2A__OwnersFile \(--owners-file\) and A2A__Owners \(--owner\) are both"):
        load_settings({"A2A__WorkspaceRoot": "/srv", "A2A__OwnersFile": "/srv/owners.txt", "A2A__Owners": "alice"})
    with pytest.raises(SettingsError, match=r"is set without A2A__WorkspaceRoot \(--workspace-root\)"):
        load_settings({}, ["--owners-file", "/srv/owners.txt"])


def test_file_changes_are_told_by_the_kernel_where_it_can_unless_stat_is_asked_for() -> None:
    assert load_settings({}).file_changes == "auto"
    assert load_settings({"A2A__FileChanges": "STAT"}).file_changes == "stat"
    with pytest.raises(SettingsError, match="A2A__FileChanges has the value 'inotify'; expected auto, notify or stat"):
        load_settings({"A2A__FileChanges": "inotify"})


@pytest.mark.parametrize(("env", "said"), [
    ({"A2A__Notifier": "pigeon"}, "A2A__Notifier has the value 'pigeon'; expected log, webhook, telegram or none"),
    ({"A2A__Notifier": "webhook"}, "A2A__Webhook__Url (--webhook-url) is missing"),
    ({"A2A__Notifier": "telegram", "A2A__Owners": "1001"}, "A2A__Telegram__BotToken (--telegram-bot-token) is missing"),
    ({"A2A__Notifier": "telegram", "A2A__Telegram__BotToken": TOKEN}, "A2A__Notifier is telegram but no owner"),
], ids=["unknown", "webhook-without-url", "telegram-without-token", "telegram-without-owner"])
def test_a_notifier_needs_what_it_sends_with(env: dict[str, str], said: str) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(env)
    assert said in str(raised.value) and TOKEN not in str(raised.value)


def test_the_notifier_secrets_never_show() -> None:
    settings = load_settings({"A2A__Notifier": "telegram", "A2A__Telegram__BotToken": TOKEN, "A2A__Owners": "1001",
                              "A2A__Webhook__Token": "hook-secret"})
    assert (settings.notifier, settings.telegram_bot_token, settings.webhook_token) == ("telegram", TOKEN,
                                                                                          "hook-secret")
    assert TOKEN not in repr(settings) and "hook-secret" not in repr(settings)
    assert "telegram_bot_token='***'" in repr(settings) and "webhook_token='***'" in repr(settings)
    with pytest.raises(SettingsError) as raised:
        load_settings({}, ["--telegram-bot-token", " "])
    assert "--telegram-bot-token has the value ***" in str(raised.value)


@pytest.mark.parametrize("key", [k for k in KEYS if k.form == "true or false"], ids=lambda k: k.flag)
def test_every_boolean_flag_works_bare_and_with_a_value(key: Any) -> None:
    # a switch alone means true, even before another flag; a value still decides
    bare = load_settings({}, [key.flag, "--max-hops", "4"])
    assert getattr(bare, key.attr) is True and bare.max_hops == 4
    assert getattr(load_settings({}, [key.flag, "false"]), key.attr) is False
    assert getattr(load_settings({}, [key.flag, "true"]), key.attr) is True
    assert getattr(load_settings({f"A2A__{key.env}": "true"}, [key.flag, "false"]), key.attr) is False
    with pytest.raises(SettingsError, match=rf"{key.flag} has the value 'maybe'; expected true or false"):
        load_settings({}, [key.flag, "maybe"])


def test_there_are_boolean_flags_to_check() -> None:
    assert {k.flag for k in KEYS if k.form == "true or false"} >= {"--allow-private-push-urls", "--hybrid-card"}
