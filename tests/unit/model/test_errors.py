"""domain/errors.py: one error tree, one table; every error class is in the table."""

from __future__ import annotations

import inspect

import pytest

from reference_server.bindings.errors import ERROR_TABLE, wire_error
from reference_server.model import errors
from reference_server.model.errors import A2AError, FieldViolation, InvalidParams

ERROR_CLASSES = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
                 if issubclass(cls, A2AError) and cls is not A2AError]
# A2A v1.0.1 §5.4: the A2A-specific errors and their JSON-RPC codes
A2A_CODES = {
    "TaskNotFound": -32001, "TaskNotCancelable": -32002, "PushNotificationNotSupported": -32003,
    "UnsupportedOperation": -32004, "ContentTypeNotSupported": -32005, "InvalidAgentResponse": -32006,
    "ExtendedAgentCardNotConfigured": -32007, "ExtensionSupportRequired": -32008, "VersionNotSupported": -32009,
}


def test_the_module_defines_the_errors_the_spec_names() -> None:
    names = {cls.__name__ for cls in ERROR_CLASSES}
    assert set(A2A_CODES) <= names
    assert {"ParseError", "InvalidRequest", "MethodNotFound", "InvalidParams", "InternalError"} <= names


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_error_class_is_in_the_table(cls: type[A2AError]) -> None:
    assert cls in ERROR_TABLE, f"{cls.__name__} is not in ERROR_TABLE"


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_error_class_has_a_one_line_docstring(cls: type[A2AError]) -> None:
    doc = cls.__doc__ or ""
    assert doc.strip() and "\n" not in doc.strip(), f"{cls.__name__}: {doc!r}"


def test_the_table_holds_only_error_classes_of_the_module() -> None:
    assert set(ERROR_TABLE) == set(ERROR_CLASSES)


def test_the_a2a_errors_have_their_own_codes() -> None:
    codes = {cls.__name__: ERROR_TABLE[cls].jsonrpc_code for cls in ERROR_CLASSES if cls.__name__ in A2A_CODES}
    assert codes == A2A_CODES
    a2a_range = [row.jsonrpc_code for row in ERROR_TABLE.values() if -32009 <= row.jsonrpc_code <= -32001]
    assert len(a2a_range) == len(set(a2a_range)), "two errors share an A2A code"


def test_the_json_rpc_errors_have_the_json_rpc_codes() -> None:
    expected = {"ParseError": -32700, "InvalidRequest": -32600, "MethodNotFound": -32601, "InvalidParams": -32602,
                "InternalError": -32603}
    assert {cls.__name__: ERROR_TABLE[cls].jsonrpc_code for cls in ERROR_CLASSES
            if cls.__name__ in expected} == expected


def test_errors_with_a_reason_have_distinct_reasons() -> None:
    reasons = [row.reason for row in ERROR_TABLE.values() if row.reason is not None]
    assert len(reasons) == len(set(reasons))


def test_a_subclass_uses_the_row_of_its_base() -> None:
    class Narrower(errors.TaskNotFound):
        """A test-only subclass."""

    assert wire_error(Narrower()) is ERROR_TABLE[errors.TaskNotFound]


def test_an_error_outside_the_table_is_an_internal_error() -> None:
    class Unlisted(A2AError):
        """A test-only error the table does not know."""

    assert wire_error(Unlisted()) is ERROR_TABLE[errors.InternalError]


def test_invalid_params_names_the_first_field_and_counts_the_rest() -> None:
    error = InvalidParams(violations=[FieldViolation("message.role", "must be ROLE_USER"),
                                      FieldViolation("message.parts", "must not be empty")])
    assert error.message == "Invalid parameters: message.role: must be ROLE_USER (and 1 more)"
    assert InvalidParams().message == "Invalid parameters"
