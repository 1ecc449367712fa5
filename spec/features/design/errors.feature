@bindings @server
Feature: One error table for both bindings
  A2A v1.0.1 §5.4: each A2A error has one JSON-RPC code and one HTTP status with a gRPC status name;
  JSON-RPC puts a google.rpc.ErrorInfo in error.data, HTTP+JSON answers a google.rpc.Status whose
  details hold the ErrorInfo (reason in UPPER_SNAKE_CASE, domain "a2a-protocol.org").

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: Each error has its code on JSON-RPC and its status on HTTP+JSON
    When the caller causes <error> by <situation>
    Then the call fails with <error>
    And on JSON-RPC the code is <code>, on HTTP+JSON the status is <http> <status>
    And the error carries the reason <reason>

    Examples: errors any server can be made to show
      | error                        | situation                       | code   | http | status              | reason                          |
      | TaskNotFound                 | getting an unknown task         | -32001 | 404  | NOT_FOUND           | TASK_NOT_FOUND                  |
      | VersionNotSupported          | sending A2A-Version 9.9         | -32009 | 400  | FAILED_PRECONDITION | VERSION_NOT_SUPPORTED           |

    Examples: errors that need this server's agent or choices
      | error                        | situation                       | code   | http | status              | reason                          |
      | TaskNotCancelable            | canceling a completed task      | -32002 | 400  | FAILED_PRECONDITION | TASK_NOT_CANCELABLE             |
      | UnsupportedOperation         | subscribing to a completed task | -32004 | 400  | FAILED_PRECONDITION | UNSUPPORTED_OPERATION           |
      | InvalidParams                | sending a message with no parts | -32602 | 400  | INVALID_ARGUMENT    | INVALID_PARAMS                  |
      | MethodNotFound               | calling an unknown method       | -32601 | 404  | NOT_FOUND           | METHOD_NOT_FOUND                |

  Scenario: An error message says which task was not found
    When the caller gets the task "00000000-0000-4000-8000-000000000000"
    Then the call fails with TaskNotFound
    And the error metadata names the task "00000000-0000-4000-8000-000000000000"

  Scenario: A body over the size limit is refused before it is parsed
    When the caller sends a message of 17 MiB
    Then the call is refused as too large, with the limit in the message
