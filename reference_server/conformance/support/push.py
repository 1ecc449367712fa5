"""Push configs between the 1.0 flat shape the steps speak and the 0.3 nested shapes (tests only)."""

from __future__ import annotations

from typing import Any


def to_v03_config(config: dict[str, Any]) -> dict[str, Any]:
    """1.0 TaskPushNotificationConfig fields (without taskId) → 0.3 PushNotificationConfig."""
    inner: dict[str, Any] = {k: config[k] for k in ("id", "url", "token") if k in config}
    if "authentication" in config:
        auth = config["authentication"]
        inner["authentication"] = {"schemes": [auth["scheme"]],
                                   **({"credentials": auth["credentials"]} if "credentials" in auth else {})}
    return inner


def from_v03_config(task_id: str, inner: dict[str, Any]) -> dict[str, Any]:
    """0.3 PushNotificationConfig of a task → the 1.0 flat config."""
    flat: dict[str, Any] = {"taskId": task_id, **{k: inner[k] for k in ("id", "url", "token") if k in inner}}
    if "authentication" in inner:
        auth = inner["authentication"]
        flat["authentication"] = {"scheme": auth["schemes"][0],
                                  **({"credentials": auth["credentials"]} if "credentials" in auth else {})}
    return flat
