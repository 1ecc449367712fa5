"""Validate payloads against the JSON Schemas in spec/schemas/, offline, by $id and JSON pointer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7, DRAFT202012

from reference_server.spec_files import SCHEMAS

SCHEMA_DIR = SCHEMAS  # spec/schemas, in a checkout or in the package of a wheel (spec_files.py)

# The vendored 0.3 schema has no $id (it is byte-for-byte upstream); it is registered under this URI.
V03_FILE = "a2a-v0.3.json"
V03_ID = "urn:a2a:v0.3"


def _resource(path: Path) -> tuple[str, Resource]:
    contents = json.loads(path.read_text(encoding="utf-8"))
    if path.name == V03_FILE:
        # draft-07 with `definitions`. Its subschemas are checked by the 2020-12 validator class, which is
        # safe: the file uses only keywords that mean the same in both drafts (no array-form `items`,
        # and its `$ref` siblings are annotations).
        return V03_ID, DRAFT7.create_resource(contents)
    if "$id" not in contents:
        raise ValueError(f"{path.name} has no $id; every schema in spec/schemas needs one")
    return contents["$id"], DRAFT202012.create_resource(contents)


@cache
def load_registry() -> Registry:
    """Every spec/schemas/*.json, registered by its $id (the 0.3 file as urn:a2a:v0.3).

    A Registry without a `retrieve` function fails any lookup it does not hold, so an unknown $ref is an
    error, never a network fetch.
    """
    resources = [_resource(path) for path in sorted(SCHEMA_DIR.glob("*.json"))]
    return Registry().with_resources(resources).crawl()


@cache
def validator(ref: str) -> Draft202012Validator:
    """A validator for the schema at ref: "urn:a2a:v1#/$defs/Task", "urn:a2a:v0.3#/definitions/Task"..."""
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": ref}
    return Draft202012Validator(schema, registry=load_registry(), format_checker=FormatChecker())


def errors(instance: Any, ref: str) -> list[str]:
    """Every validation error as "<json path>: <message>", in path order."""
    found = sorted(
        validator(ref).iter_errors(instance), key=lambda error: [str(p) for p in error.absolute_path]
    )
    return [f"{error.json_path}: {error.message}" for error in found]


def assert_valid(instance: Any, ref: str) -> None:
    """Raise AssertionError listing every error when instance does not match the schema at ref."""
    found = errors(instance, ref)
    if found:
        raise AssertionError(f"not valid against {ref}:\n" + "\n".join(found))


# --- violations in words, each under the requirement its rule belongs to ---

# A2A v1.0.1's requirements about the data model, by the schema rule that breaks them (conformance/catalogue.py ids).
# A violation of any other rule is SPEC-WIRE-001's: every answer is valid a2a.proto JSON.
TIMESTAMP_DEF = "google.protobuf.Timestamp"
CARD_DEFS = frozenset({
    "AgentCard", "AgentInterface", "AgentCapabilities", "AgentSkill", "AgentProvider", "AgentExtension",
    "AgentCardSignature", "SecurityScheme", "SecurityRequirement", "APIKeySecurityScheme", "HTTPAuthSecurityScheme",
    "OAuth2SecurityScheme", "OpenIdConnectSecurityScheme", "MutualTlsSecurityScheme", "OAuthFlows", "StringList",
    "AuthorizationCodeOAuthFlow", "ClientCredentialsOAuthFlow", "DeviceCodeOAuthFlow", "ImplicitOAuthFlow",
    "PasswordOAuthFlow"})
ANY_ANSWER = "SPEC-WIRE-001"
# the requirements that name a definition's REQUIRED fields (A2A §4.1); other definitions' are DM-SERIAL-004's
REQUIRED_FIELDS_OF = {"Task": "DM-TASK-001", "TaskStatus": "DM-STATUS-001", "Message": "DM-MSG-001",
                      "Artifact": "DM-ART-001"}
# a REQUIRED field that a requirement of its own names
REQUIRED_FIELD = {("ListTasksResponse", "nextPageToken"): "CORE-LIST-004"}


@dataclass(frozen=True)
class Violation:
    """One way an answer breaks its schema: where, which rule, in words, and the offending value (shown)."""

    schema: str  # the definition the rule belongs to: Task, google.protobuf.Timestamp, …
    path: str  # the JSON path in the answer: $.task.status.timestamp
    rule: str  # the JSON Schema keyword: required, enum, format, additionalProperties, oneOf, type, …
    says: str  # what is wrong, in words
    value: str  # the value at the path, as JSON
    fields: tuple[str, ...] = ()  # the fields a `required` rule found missing

    @property
    def requirement(self) -> str:
        """The requirement this violation fails (one defect, one requirement)."""
        if self.schema == TIMESTAMP_DEF:
            return "DM-SERIAL-003"  # A2A §5.6.1
        if self.schema in CARD_DEFS:
            return "CARD-STRUCT-001"  # A2A §4.4.1
        if self.rule == "enum":
            return "DM-SERIAL-002"  # A2A §5.5: enums are their ProtoJSON names
        if self.rule == "oneOf" and self.schema == "Part":
            return "DM-PART-001"  # A2A §4.1.6
        if self.rule == "required" and self.fields and set(self.fields) <= {"kind"}:
            return ANY_ANSWER  # A2A 0.3's discriminator: a shape of the version, not a field of the data model
        named = {REQUIRED_FIELD.get((self.schema, name)) for name in self.fields} - {None}
        if self.rule == "required" and len(named) == 1:
            return str(named.pop())
        if self.rule in ("required", "minItems"):
            return REQUIRED_FIELDS_OF.get(self.schema, "DM-SERIAL-004")  # A2A §5.7
        if self.rule in ("additionalProperties", "unevaluatedProperties") and "_" in self.says.partition(": ")[2]:
            return "DM-SERIAL-001"  # A2A §5.5: camelCase
        return ANY_ANSWER

    def line(self) -> str:
        return f"{self.path}: {self.says}"


@cache
def _definitions() -> dict[int, str]:
    """Every subschema of every definition, by identity, to the name of its definition ($defs or definitions)."""
    names: dict[int, str] = {}
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        contents = load_registry()[_resource(path)[0]].contents
        for name, definition in {**contents.get("$defs", {}), **contents.get("definitions", {})}.items():
            for inner in _subschemas(definition):
                names.setdefault(id(inner), name)
    return names


def _subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        yield schema
        for key, inner in schema.items():
            if key not in ("$defs", "definitions", "description", "examples", "enum", "const", "required"):
                yield from _subschemas(inner)
    elif isinstance(schema, list):
        for inner in schema:
            yield from _subschemas(inner)


def _shown(value: Any, limit: int = 120) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unexpected(error: Any) -> list[str]:
    instance, schema = error.instance, error.schema
    if not isinstance(instance, dict):
        return []
    known = set(schema.get("properties", {}))
    return sorted(name for name in instance if name not in known)


def _says(error: Any) -> str:
    """jsonschema's finding in words, without Python's reprs."""
    rule, value, instance = error.validator, error.validator_value, error.instance
    if rule == "required":
        missing = [name for name in value if isinstance(instance, dict) and name not in instance]
        many = len(missing) > 1
        return f"the required field{'s' * many} {', '.join(missing)} {'are' if many else 'is'} missing"
    if rule == "minItems":
        return f"an empty list where a2a.proto requires at least {value} item{'s' * (value != 1)}"
    if rule in ("format", "pattern") and _definitions().get(id(error.schema)) == TIMESTAMP_DEF:
        return f"{_shown(instance)} is not an RFC 3339 UTC timestamp ending in Z"
    if rule == "format":
        return f"{_shown(instance)} is not a valid {value}"
    if rule == "pattern":
        return f"{_shown(instance)} does not match the pattern {value}"
    if rule == "enum":
        return f"{_shown(instance)} is not one of {', '.join(map(str, value))}"
    if rule == "type":
        kinds = value if isinstance(value, list) else [value]
        return f"{_shown(instance)} is not of the type {' or '.join(kinds)}"
    if rule in ("additionalProperties", "unevaluatedProperties"):
        return f"fields A2A does not define: {', '.join(_unexpected(error)) or '(unknown)'}"
    if rule in ("oneOf", "anyOf"):
        choices = [alt["required"][0] for alt in value if isinstance(alt, dict) and alt.get("required")]
        if choices and isinstance(instance, dict):
            held = [name for name in choices if name in instance]
            return f"holds {', '.join(held) or 'none'} where exactly one of {', '.join(choices)} belongs"
        matched = "none" if rule == "anyOf" else "none or several"
        return f"{_shown(instance)} matches {matched} of the shapes allowed here"
    if rule == "const":
        return f"{_shown(instance)} is not {_shown(value)}"
    return f"{_shown(instance)} breaks the rule {rule} ({_shown(value, 60)})"


def _leaves(found: Iterable[Any]) -> Iterator[Any]:
    """The errors to report: a oneOf over alternatives of one field each is reported as itself; any other
    combinator's error is reported by its most telling inner errors."""
    for error in found:
        if error.validator in ("oneOf", "anyOf") and error.context:
            alternatives = error.validator_value
            if all(isinstance(alt, dict) and set(alt) == {"required"} for alt in alternatives):
                yield error
                continue
            best = min(error.context, key=lambda inner: len(list(inner.absolute_path)) * -1)
            yield from _leaves([best])
            continue
        yield error


def violations(instance: Any, ref: str) -> list[Violation]:
    """Every way `instance` breaks the schema at `ref`, in words, one per path and rule."""
    seen: dict[tuple[str, str], Violation] = {}
    for error in _leaves(validator(ref).iter_errors(instance)):
        schema = _definitions().get(id(error.schema), ref.rpartition("/")[2])
        rule = "format" if error.validator == "pattern" and schema == TIMESTAMP_DEF else error.validator
        missing = tuple(name for name in error.validator_value if isinstance(error.instance, dict)
                        and name not in error.instance) if error.validator == "required" else ()
        found = Violation(schema, error.json_path, rule, _says(error), _shown(error.instance), missing)
        seen.setdefault((found.path, found.rule), found)
    return sorted(seen.values(), key=lambda v: v.path)
