"""What every codec's encoders share: optional fields left out when empty, and the Artifact shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_server.model.types import Artifact, Part


def put(out: dict[str, Any], key: str, value: Any) -> None:
    """Set an optional field only when it has a value (ProtoJSON leaves unset and empty fields out)."""
    if value is not None and value != "" and value != [] and value != {}:
        out[key] = value


def encode_artifact_with(artifact: Artifact, encode_part: Callable[[Part], dict[str, Any]]) -> dict[str, Any]:
    """An Artifact: the same fields in 1.0 and in both 0.3 shapes; only the parts differ."""
    out: dict[str, Any] = {"artifactId": artifact.artifact_id}
    put(out, "name", artifact.name)
    put(out, "description", artifact.description)
    out["parts"] = [encode_part(part) for part in artifact.parts]
    put(out, "metadata", artifact.metadata)
    put(out, "extensions", artifact.extensions)
    return out
