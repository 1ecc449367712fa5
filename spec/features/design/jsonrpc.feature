@bindings @jsonrpc @server
Feature: The JSON-RPC binding as this server serves it
  A2A §9 leaves these choices open: this server answers at POST /a2a (and /a2a/), refuses batches and
  notifications (A2A never sends them), takes ids that are strings or integers, and says in each error
  message what was wrong. What A2A requires of the binding is in spec/features/a2a/jsonrpc.feature.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: A batch, a notification or an odd id is refused, saying why
    When the caller posts the JSON-RPC body <body>
    Then the call fails with <error>
    And the error message says "<hint>"

    Examples: this server's choices (no batches, no notifications, ids and params as A2A uses them)
      | body                                                            | error          | hint                          |
      | [{"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"}] | InvalidRequest | Batch requests are not supported |
      | []                                                              | InvalidRequest | Batch requests are not supported |
      | {"jsonrpc": "2.0", "method": "GetExtendedAgentCard"}            | InvalidRequest | must have an "id"             |
      | {"jsonrpc": "2.0", "id": 1.5, "method": "GetTask"}              | InvalidRequest | string or an integer          |
      | {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": [1]} | InvalidParams  | must be an object             |

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
