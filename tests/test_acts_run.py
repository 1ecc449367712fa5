"""The ACTS runner's pure parts (scripts/acts): dot paths, {{...}} templating, the assertion grammar, stream
expectations, errors in A2A terms, the wire form of abstract operations, and how the corpus is read. No server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.acts import assertions, corpus, evaluate, paths, streams, wire
from scripts.acts.execute import UNREACHABLE_WEBHOOK, until_holds, webhook_for
from scripts.acts.paths import MISSING
from scripts.acts.runtest import SPECIALS
from scripts.acts.template import Scope, Unresolved, names, render

ROOT = Path(__file__).resolve().parents[1]
TASK = {"task": {"id": "t1", "status": {"state": "TASK_STATE_COMPLETED"},
                 "artifacts": [{"parts": [{"text": "a"}, {"data": {"k": 1}}]}, {"parts": [{"text": "b"}]}]}}


# paths


def test_path_get_reaches_nested_fields_and_indexes() -> None:
    assert paths.get(TASK, "task.artifacts[1].parts[0].text") == "b"
    assert paths.get(TASK, "task.history") is MISSING
    assert paths.get(TASK, "task.artifacts[5]") is MISSING


def test_path_collect_expands_wildcards_and_drops_what_is_missing() -> None:
    assert paths.collect(TASK, "task.artifacts[*].parts[*].text") == ["a", "b"]
    assert paths.collect(TASK, "task.nothing[*]") == []


def test_missing_is_not_null() -> None:
    assert paths.get({"a": None}, "a") is None
    assert paths.get({}, "a") is MISSING


# templating


def test_a_whole_template_keeps_the_value_type() -> None:
    scope = Scope(variables={"n": 3}, steps={"send": {"response": TASK, "taskId": "t1"}})
    assert render("{{send.response}}", scope) == TASK
    assert render({"id": "{{send.taskId}}", "size": "{{n}}"}, scope) == {"id": "t1", "size": 3}


def test_a_template_inside_text_is_written_as_text() -> None:
    scope = Scope(variables={"base": "http://h"}, steps={"s": {"ok": True}})
    assert render("{{base}}/x?ok={{s.ok}}", scope) == "http://h/x?ok=true"


def test_a_capture_takes_precedence_over_a_document_variable() -> None:
    scope = Scope(variables={"send.taskId": "from-document"}, steps={"send": {"taskId": "captured"}})
    assert render("{{send.taskId}}", scope) == "captured"


def test_document_variables_resolve_through_other_variables_and_env() -> None:
    scope = Scope(variables={"baseUrl": "{{env.SUT}}/a2a"}, env={"SUT": "http://127.0.0.1:1"})
    assert render("{{baseUrl}}", scope) == "http://127.0.0.1:1/a2a"


def test_uuid_is_fresh_at_each_occurrence() -> None:
    first, second = render(["{{$uuid}}", "{{$uuid}}"], Scope())
    assert first != second and len(first) == 36


def test_an_unknown_bare_name_is_a_runner_input_and_an_unknown_step_is_not() -> None:
    with pytest.raises(Unresolved) as bare:
        render("{{insufficientAuthToken}}", Scope())
    assert bare.value.runner_input
    with pytest.raises(Unresolved) as step:
        render("{{send.taskId}}", Scope(steps={"send": {}}))
    assert not step.value.runner_input


def test_names_lists_every_expression() -> None:
    assert names({"a": ["{{x}}", "p {{ y.z }} q"]}) == ["x", "y.z"]


# assertions


def test_exact_match_is_json_equality() -> None:
    assert assertions.check("TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED") is None
    assert assertions.check(1, 1.0) is None
    assert assertions.check(True, 1) is not None
    assert assertions.check(MISSING, "x") is not None


def test_nested_maps_mirror_the_response_and_report_the_path() -> None:
    failure = assertions.check(TASK, {"task": {"status": {"state": "TASK_STATE_FAILED"}}})
    assert failure is not None and failure.path == "task.status.state"
    assert assertions.check(TASK, {"task": {"id": {"type": "string"}, "artifacts": {"count_gte": 2}}}) is None


def test_exists_and_absent() -> None:
    assert assertions.check(MISSING, {"absent": True}) is None
    assert assertions.check(None, {"absent": True}) is not None  # null is present
    assert assertions.check(MISSING, {"exists": True}) is not None


def test_type_names() -> None:
    for value, name in [("s", "string"), (1.5, "number"), (False, "boolean"), ([], "array"), ({}, "object"),
                        (None, "null")]:
        assert assertions.check(value, {"type": name}) is None
    assert assertions.check(True, {"type": "number"}) is not None


def test_any_of_lets_a_field_be_absent_or_an_empty_array() -> None:
    spec = {"history": {"any_of": [{"absent": True}, {"type": "array", "count": 0}]}}
    assert assertions.check({}, spec) is None
    assert assertions.check({"history": []}, spec) is None
    assert assertions.check({"history": [{}]}, spec) is not None


def test_one_of_takes_values_or_assertion_maps() -> None:
    assert assertions.check("TASK_STATE_WORKING", {"one_of": ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]}) is None
    alternatives = {"one_of": [{"task": {"status": {"exists": True}}}, {"status_update": {"exists": True}}]}
    assert assertions.check({"status_update": {"status": {}}}, alternatives) is None
    assert assertions.check({"message": {}}, alternatives) is not None


def test_text_and_number_operators() -> None:
    assert assertions.check("Task 1 was not found", {"all_of": [{"matches": ".{12,}"}, {"contains": "not found"}]}) \
        is None
    assert assertions.check("Task 1", {"matches": ".{12,}"}) is not None
    assert assertions.check("2026-01-01T00:00:00Z", {"matches": "^\\d{4}-\\d{2}-\\d{2}T"}) is None
    assert assertions.check("1.0", {"starts_with": "1.", "ends_with": ".0"}) is None
    assert assertions.check("0.3", {"starts_with": "1."}) is not None
    assert assertions.check(5, {"gte": 5, "lt": 6}) is None
    assert assertions.check(5, {"gt": 5}) is not None


def test_not_inverts() -> None:
    assert assertions.check("a", {"not": "b"}) is None
    assert assertions.check("a", {"not": {"contains": "a"}}) is not None


def test_items_map_applies_to_every_element_and_items_list_by_position() -> None:
    interfaces = [{"url": "u", "protocolVersion": "1.0"}, {"url": 3, "protocolVersion": "0.3"}]
    failure = assertions.check(interfaces, {"items": {"url": {"type": "string"}}})
    assert failure is not None and failure.path == "[1].url"
    assert assertions.check(interfaces, {"items": [{"protocolVersion": {"starts_with": "1."}}]}) is None


def test_a_yaml_array_asserts_positions() -> None:
    assert assertions.check(TASK["task"]["artifacts"], [{"parts": [{"text": "a"}]}]) is None
    assert assertions.check([], [{"parts": {}}]) is not None


def test_a_field_called_type_is_a_field_when_its_assertion_is_a_map() -> None:
    problem = {"type": "about:blank", "title": "Not found", "status": 404}
    assert assertions.check(problem, {"type": {"type": "string"}, "status": {"type": "number"}}) is None
    assert assertions.check({"title": "x"}, {"type": {"type": "string"}}) is not None


# streams


STREAM = [
    {"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}},
    {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}},
    {"artifactUpdate": {"taskId": "t", "artifact": {"parts": [{"text": "x"}]}}},
    {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}},
]


def test_generic_event_keys_reach_the_payload_and_typed_keys_select_the_member() -> None:
    expect = {"min_count": 2, "ordering": "monotonic_state",
              "final_event": {"status": {"state": "TASK_STATE_COMPLETED"}},
              "events": [{"match": "any_position", "artifact": {"exists": True}},
                         {"index": 0, "task": {"status": {"exists": True}}}]}
    assert streams.check(STREAM, expect) is None
    assert streams.check(STREAM, {"final_event": {"message": {"exists": True}}}) is not None


def test_monotonic_state_fails_only_the_two_must_rules() -> None:
    assert streams.monotonic(["TASK_STATE_SUBMITTED", "TASK_STATE_COMPLETED"]) is None
    assert streams.monotonic(["TASK_STATE_WORKING", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]) is None
    assert streams.monotonic(["TASK_STATE_COMPLETED", "TASK_STATE_WORKING"]) is not None
    assert streams.monotonic(["TASK_STATE_WORKING", "TASK_STATE_SUBMITTED"]) is not None


def test_min_count_and_each_event_on_raw_events() -> None:
    raw = [{"jsonrpc": "2.0", "result": {}}, {"jsonrpc": "1.0", "result": {}}]
    assert streams.check(raw, {"min_count": 3}, raw=True) is not None
    failure = streams.check(raw, {"each_event": {"jsonrpc": "2.0"}}, raw=True)
    assert failure is not None and failure.path == "event[1].jsonrpc"


# errors and expectations


def test_jsonrpc_codes_are_named_as_a2a_5_4_says() -> None:
    assert wire.jsonrpc_error({"code": -32009, "message": "m"}).type == "VersionNotSupportedError"
    assert wire.jsonrpc_error({"code": -32003}).type == "PushNotificationNotSupportedError"


def test_rest_errors_are_named_by_error_info_and_checked_against_the_http_status() -> None:
    body = {"error": {"code": 404, "status": "NOT_FOUND", "message": "no", "details": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND"}]}}
    assert wire.rest_error(404, body).type == "TaskNotFoundError"
    assert wire.rest_error(404, body).problem is None
    assert wire.rest_error(409, body).problem is not None
    assert wire.rest_error(400, {"error": {"status": "INVALID_ARGUMENT"}}).type == "InvalidParamsError"


def _exchange(status: int, body: object, binding: str = "jsonrpc") -> wire.Exchange:
    exchange = wire.Exchange(wire.Request("POST", "http://h/a2a", {}), status=status, body=body,
                             text=json.dumps(body))
    wire.read_answer(exchange, binding, raw=False)
    return exchange


def test_expect_error_reads_the_corpus_code_as_the_error_type() -> None:
    exchange = _exchange(200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "Task x not found"}})
    assert evaluate.expect_error({"code": "TaskNotFoundError", "message": {"type": "string"}}, exchange) is None
    assert evaluate.expect_error({"code": {"one_of": ["TaskNotCancelableError"]}}, exchange) is not None
    assert evaluate.expect_error({"error_type": "TaskNotFoundError", "data": {"type": "object"}}, exchange) \
        is not None  # data missing


def test_an_abstract_expect_wants_success_unless_it_asks_for_the_error() -> None:
    error = _exchange(200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32004, "message": "terminal"}})
    assert evaluate.expect_block({"status": 200}, error, raw=False) is not None
    assert evaluate.expect_block({"status": "error", "error": {"exists": True}}, error, raw=False) is None
    success = _exchange(200, {"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t"}}})
    assert evaluate.expect_block({"task": {"id": "t"}}, success, raw=False) is None  # the body-less form
    assert evaluate.expect_block({"status": "error"}, success, raw=False) is not None


def test_named_collection_assertions() -> None:
    assert evaluate.named({"any": {"path": "task.artifacts[*].parts[*]", "match": {"data": {"type": "object"}}}},
                          TASK) is None
    assert evaluate.named({"all": {"path": "task.artifacts[*].parts[*]", "match": {"text": {"exists": True}}}},
                          TASK) is not None
    assert evaluate.named({"none": {"path": "task.artifacts[*].parts[*]", "match": {"text": "b"}}}, TASK) \
        is not None


def test_until_expressions() -> None:
    root = {"status": {"state": "TASK_STATE_WORKING"}}
    assert until_holds("status.state == TASK_STATE_WORKING", root)
    assert not until_holds("status.state != TASK_STATE_WORKING", root)
    assert until_holds("status.state in [TASK_STATE_COMPLETED, TASK_STATE_WORKING]", root)
    assert not until_holds("status.state in [TASK_STATE_COMPLETED]", root)


# the wire form


def test_a_push_config_is_flattened_into_the_1_0_request() -> None:
    params = {"taskId": "t", "pushNotificationConfig": {"url": "http://w", "authentication": {"scheme": "Bearer"}}}
    request = wire.rest_request("http://h/a2a/v1", "create_push_config", params, {})
    assert request.url == "http://h/a2a/v1/tasks/t/pushNotificationConfigs"
    assert json.loads(request.body or b"") == {"taskId": "t", "url": "http://w", "authentication": {"scheme": "Bearer"}}


def test_rest_get_parameters_go_to_the_path_and_the_query() -> None:
    request = wire.rest_request("http://h/a2a/v1", "list_tasks", {"contextId": "c 1", "includeArtifacts": False}, {})
    assert request.method == "GET" and request.url == "http://h/a2a/v1/tasks?contextId=c%201&includeArtifacts=false"
    with pytest.raises(wire.StepError):
        wire.rest_request("http://h/a2a/v1", "get_task", {}, {})


def test_jsonrpc_stream_events_are_opened_and_a_first_error_is_the_answer() -> None:
    exchange = wire.Exchange(wire.Request("POST", "http://h/a2a", {}), status=200,
                             events=[{"jsonrpc": "2.0", "id": 1, "result": STREAM[0]}])
    wire.read_answer(exchange, "jsonrpc", raw=False)
    assert exchange.events == [STREAM[0]] and exchange.error is None
    refused = wire.Exchange(wire.Request("POST", "http://h/a2a", {}), status=200,
                            events=[{"jsonrpc": "2.0", "id": 1, "error": {"code": -32004, "message": "terminal"}}])
    wire.read_answer(refused, "jsonrpc", raw=False)
    assert refused.error is not None and refused.error.type == "UnsupportedOperationError" and refused.events == []


# the corpus


def test_the_vendored_corpus_loads_whole_and_splits_into_passes() -> None:
    tests = corpus.load(ROOT / "spec" / "acts" / "suite.acts.yaml")
    by_id = {t.id: t for t in tests}
    assert len(tests) == 111
    assert corpus.pass_of(by_id["CORE-CAP-001"]) == "reduced"
    assert corpus.pass_of(by_id["SEC-AUTH-001"]) == "auth"
    assert corpus.pass_of(by_id["SEC-PUSH-001"]) == "main"
    assert by_id["PUSH-CFG-001"].variables["webhookUrl"].startswith("https://")


def test_notes_name_what_the_runner_reads_outside_the_grammar() -> None:
    by_id = {t.id: t for t in corpus.load(ROOT / "spec" / "acts" / "suite.acts.yaml")}
    assert any("beside `message`" in n for n in corpus.notes(by_id["CORE-SEND-002"]))
    assert any("expect_error.code" in n for n in corpus.notes(by_id["CORE-ERR-001"]))
    assert any("capabilities.authentication" in n for n in corpus.notes(by_id["SEC-AUTH-001"]))
    assert any("not text" in n for n in corpus.notes(by_id["CORE-SEND-004"]))


def test_only_a_test_that_waits_for_pushes_gets_the_runners_webhook() -> None:
    # a config that is only stored and read back gets an https URL that never resolves: the receiver's http URL on
    # 127.0.0.1 is one a server may refuse (A2A §13.2), and the documents' example.com one a server may push to
    by_id = {t.id: t for t in corpus.load(ROOT / "spec" / "acts" / "suite.acts.yaml")}

    class Receiver:
        def url_for(self, label: str) -> str:
            return f"http://127.0.0.1:9/webhook/{label}"

    stored = webhook_for(by_id["PUSH-CFG-001"], "rest/PUSH-CFG-001", Receiver(), delivers=False)
    assert stored.startswith(f"{UNREACHABLE_WEBHOOK}/rest/PUSH-CFG-001/")
    assert stored != webhook_for(by_id["PUSH-CFG-001"], "rest/PUSH-CFG-001", Receiver(), delivers=False)
    waited = webhook_for(by_id["PUSH-DELIV-002"], "rest/PUSH-DELIV-002", Receiver(), delivers=True)
    assert waited == "http://127.0.0.1:9/webhook/rest/PUSH-DELIV-002"
    assert webhook_for(by_id["PUSH-DELIV-002"], "x", None, delivers=True).startswith(UNREACHABLE_WEBHOOK)
    assert SPECIALS["PUSH-DELIV-002"].delivers and not SPECIALS["CORE-CTX-001"].delivers
