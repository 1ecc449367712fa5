@bindings @jsonrpc
Feature: The JSON-RPC 2.0 binding
  A2A §9: one endpoint, POST /a2a, JSON-RPC 2.0 envelopes. Parse errors are -32700, invalid requests
  -32600, unknown methods -32601, bad params -32602; A2A errors use -32001…-32009 with a
  google.rpc.ErrorInfo in error.data. Design README: ids are echoed with their type unchanged.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: A malformed envelope is refused with its JSON-RPC code
    When the caller posts the JSON-RPC body <body>
    Then the call fails with <error>
    And the error message says "<hint>"

    @portable
    Examples: JSON-RPC 2.0 itself
      | body                                                            | error          | hint                          |
      | {"jsonrpc": "2.0", "id": 1, "method": "GetTask"                 | ParseError     | Invalid JSON payload          |
      | "GetTask"                                                       | InvalidRequest | JSON-RPC 2.0 request object   |
      | {"id": 1, "method": "GetExtendedAgentCard"}                     | InvalidRequest | "jsonrpc": "2.0"              |
      | {"jsonrpc": "1.0", "id": 1, "method": "GetExtendedAgentCard"}   | InvalidRequest | "jsonrpc": "2.0"              |
      | {"jsonrpc": "2.0", "id": 1}                                     | InvalidRequest | "method" string               |
      | {"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}         | InvalidRequest | string or an integer          |
      | {"jsonrpc": "2.0", "id": 1, "method": "tasks/teleport"}         | MethodNotFound | tasks/teleport                |

    Examples: this server's choices (no batches, no notifications, ids and params as A2A uses them)
      | body                                                            | error          | hint                          |
      | [{"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"}] | InvalidRequest | Batch requests are not supported |
      | []                                                              | InvalidRequest | Batch requests are not supported |
      | {"jsonrpc": "2.0", "method": "GetExtendedAgentCard"}            | InvalidRequest | must have an "id"             |
      | {"jsonrpc": "2.0", "id": 1.5, "method": "GetTask"}              | InvalidRequest | string or an integer          |
      | {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": [1]} | InvalidParams  | must be an object             |

  @portable
  Scenario Outline: Request ids come back with their type unchanged
    When the caller fetches the extended agent card with the JSON-RPC id <id>
    Then the answer carries the JSON-RPC id <id>

    Examples:
      | id        |
      | 7         |
      | "seven"   |
      | 0         |
      | ""        |

  @portable
  Scenario: Errors also echo the request id
    When the caller gets the task "00000000-0000-4000-8000-000000000000" with the JSON-RPC id "abc"
    Then the call fails with TaskNotFound
    And the answer carries the JSON-RPC id "abc"

  Scenario: The endpoint also answers with a trailing slash
    When the caller fetches the extended agent card at "/a2a/"
    Then the call succeeds

  Scenario: A GET on the endpoint is refused with a hint
    When the caller sends a GET to the JSON-RPC endpoint
    Then the call fails with InvalidRequest
    And the error message says "takes POST requests"

  Scenario: A body that is not UTF-8 is a parse error that says so
    When the caller posts a JSON-RPC body that is not UTF-8
    Then the call fails with ParseError
    And the error message says "not UTF-8"
