"""Converts between the 1.0 shapes the steps speak and the 0.3 JSON-RPC shapes on the wire (tests only)."""

from __future__ import annotations

from typing import Any

_STATES = {"submitted", "working", "input-required", "completed", "canceled", "failed", "rejected",
           "auth-required"}


def to_v03_message(message: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in message.items() if k != "parts"}
    converted["kind"] = "message"
    converted["role"] = {"ROLE_USER": "user", "ROLE_AGENT": "agent"}.get(message.get("role", ""), message.get("role"))
    converted["parts"] = [_part_v03(p) for p in message.get("parts", [])]
    return converted


def _part_v03(part: dict[str, Any]) -> dict[str, Any]:
    if "text" in part:
        return {"kind": "text", "text": part["text"]}
    if "data" in part:
        return {"kind": "data", "data": part["data"]}
    file: dict[str, Any] = {"bytes": part["raw"]} if "raw" in part else {"uri": part.get("url")}
    if "filename" in part:
        file["name"] = part["filename"]
    if "mediaType" in part:
        file["mimeType"] = part["mediaType"]
    return {"kind": "file", "file": file}


def from_v03(operation: str, result: Any) -> Any:
    """A 0.3 result as the 1.0 shape the steps check (SendMessage → {"task": ...}, events → StreamResponse)."""
    kind = result.get("kind") if isinstance(result, dict) else None
    if kind == "task":
        task = _task(result)
        return {"task": task} if operation in ("SendMessage", "event") else task
    if kind == "message":
        return {"message": _message(result)}
    if kind == "status-update":
        status_update = {"taskId": result["taskId"], "contextId": result["contextId"],
                         "status": _status(result["status"]), "final": result["final"]}
        if "metadata" in result:
            status_update["metadata"] = result["metadata"]
        return {"statusUpdate": status_update}
    if kind == "artifact-update":
        update = {"taskId": result["taskId"], "contextId": result["contextId"],
                  "artifact": _artifact(result["artifact"])}
        if result.get("append"):
            update["append"] = True
        if result.get("lastChunk"):
            update["lastChunk"] = True
        if "metadata" in result:
            update["metadata"] = result["metadata"]
        return {"artifactUpdate": update}
    return result


def _task(task: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in task.items() if k not in ("kind", "status", "history", "artifacts")}
    converted["status"] = _status(task["status"])
    if task.get("history"):
        converted["history"] = [_message(m) for m in task["history"]]
    if "artifacts" in task:
        converted["artifacts"] = [_artifact(a) for a in task["artifacts"]]
    return converted


def _status(status: dict[str, Any]) -> dict[str, Any]:
    state = status["state"]
    assert state in _STATES, f"0.3 state {state!r} is not a 0.3 TaskState"
    converted = {"state": "TASK_STATE_" + state.upper().replace("-", "_")}
    if "message" in status:
        converted["message"] = _message(status["message"])
    if "timestamp" in status:
        converted["timestamp"] = status["timestamp"]
    return converted


def _message(message: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in message.items() if k not in ("kind", "parts", "role")}
    converted["role"] = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}[message["role"]]
    converted["parts"] = [_part(p) for p in message["parts"]]
    return converted


def _artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in artifact.items() if k != "parts"}
    converted["parts"] = [_part(p) for p in artifact["parts"]]
    return converted


def _part(part: dict[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any]
    if part["kind"] == "text":
        converted = {"text": part["text"]}
    elif part["kind"] == "data":
        converted = {"data": part["data"]}
    else:
        converted = file_part(part["file"], raw="bytes", url="uri")
    if "metadata" in part:
        converted["metadata"] = part["metadata"]
    return converted


def file_part(file: dict[str, Any], *, raw: str, url: str) -> dict[str, Any]:
    """A 0.3 file object (JSON-RPC `bytes`/`uri`, proto `fileWithBytes`/`fileWithUri`) as a 1.0 file part."""
    converted = {"raw": file[raw]} if raw in file else {"url": file[url]}
    if "name" in file:
        converted["filename"] = file["name"]
    if "mimeType" in file:
        converted["mediaType"] = file["mimeType"]
    return converted
