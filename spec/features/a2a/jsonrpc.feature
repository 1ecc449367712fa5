@bindings @jsonrpc
Feature: The JSON-RPC binding speaks JSON-RPC 2.0
  A2A §9: JSON-RPC 2.0 envelopes over HTTP POST, application/json, PascalCase methods, service parameters in HTTP
  headers, streams as text/event-stream of JSON-RPC responses; errors are JSON-RPC error objects, A2A errors with
  the codes of §5.4 (-32001 to -32099) and a google.rpc.ErrorInfo in error.data.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-9.5 @SPEC-JSONRPC-001 @v0_3
  Scenario Outline: A malformed envelope is refused with its JSON-RPC code
    When the caller posts the JSON-RPC body <body>
    Then the call fails with <error>
    And the error message says "<hint>"

    Examples:
      | body                                                          | error          | hint                        |
      | {"jsonrpc": "2.0", "id": 1, "method": "GetTask"               | ParseError     | Invalid JSON payload        |
      | "GetTask"                                                     | InvalidRequest | JSON-RPC 2.0 request object |
      | {"id": 1, "method": "GetExtendedAgentCard"}                   | InvalidRequest | "jsonrpc": "2.0"            |
      | {"jsonrpc": "1.0", "id": 1, "method": "GetExtendedAgentCard"} | InvalidRequest | "jsonrpc": "2.0"            |
      | {"jsonrpc": "2.0", "id": 1}                                   | InvalidRequest | "method" string             |
      | {"jsonrpc": "2.0", "id": {"a": 1}, "method": "GetTask"}       | InvalidRequest | string or an integer        |
      | {"jsonrpc": "2.0", "id": 1, "method": "tasks/teleport"}       | MethodNotFound | tasks/teleport              |

  @must @spec-9.1 @JSONRPC-FMT-001
  Scenario Outline: Request ids come back with their type unchanged
    When the caller sends a message with the JSON-RPC id <id>
    Then the answer carries the JSON-RPC id <id>

    Examples:
      | id      |
      | 7       |
      | "seven" |
      | 0       |
      | ""      |

  @must @spec-9.1 @JSONRPC-FMT-001
  Scenario: Errors also echo the request id
    When the caller gets the task "tck-no-such-task" with the JSON-RPC id "abc"
    Then the call is refused
    And the answer carries the JSON-RPC id "abc"

  @must @spec-9.1 @JSONRPC-FMT-002
  Scenario: Answers are application/json
    When the caller sends a "tck-complete-task" message
    Then the answer's content type is "application/json"

  @must @spec-9.1 @JSONRPC-SVC-001
  Scenario Outline: Every method has its PascalCase name
    Given the caller sent a "tck-input-required" message
    When the caller calls <operation> on the task
    Then the method is known

    Examples:
      | operation                       |
      | SendMessage                     |
      | SendStreamingMessage            |
      | GetTask                         |
      | ListTasks                       |
      | CancelTask                      |
      | SubscribeToTask                 |
      | ListTaskPushNotificationConfigs |
      | GetExtendedAgentCard            |

  @must @spec-9.2 @JSONRPC-SVC-002
  Scenario Outline: On JSON-RPC, A2A-Version is read from its header in any case
    Given the caller sends A2A-Version "<version>" in the header "<header>"
    When the caller gets the task "tck-no-such-task"
    Then the call <outcome>

    Examples:
      | header      | version | outcome                                                   |
      | a2a-version | 1.0     | is served as A2A 1.0                                      |
      | A2A-VERSION | 1.0     | is served as A2A 1.0                                      |
      | a2a-version | 9.9     | is refused with VersionNotSupported, as under A2A-Version |

  @must @spec-9.5 @JSONRPC-ERR-001
  Scenario: An error is a JSON-RPC error object with typed details
    When the caller gets the task "tck-no-such-task"
    Then the error is a JSON-RPC error object whose data, if any, is a list of objects with an @type

  @must @spec-9.5 @JSONRPC-ERR-002
  Scenario Outline: A2A errors have codes from -32001 to -32099
    When the caller causes <error> by <situation>
    Then the error's JSON-RPC code is between -32099 and -32001

    Examples:
      | error                | situation                             |
      | TaskNotFound         | getting a task that does not exist    |
      | TaskNotCancelable    | canceling a completed task            |
      | UnsupportedOperation | sending a message to a completed task |
      | VersionNotSupported  | sending A2A-Version 9.9               |

  @should @spec-9.5 @JSONRPC-ERR-003
  Scenario Outline: An A2A error's data holds an ErrorInfo with its reason
    When the caller causes <error> by <situation>
    Then the error's details hold the ErrorInfo of its error and the domain "a2a-protocol.org"

    Examples:
      | error                | situation                             |
      | TaskNotFound         | getting a task that does not exist    |
      | TaskNotCancelable    | canceling a completed task            |
      | UnsupportedOperation | sending a message to a completed task |
      | VersionNotSupported  | sending A2A-Version 9.9               |

  @must @spec-5.4 @JSONRPC-SSE-002
  Scenario Outline: Each A2A error has the JSON-RPC code of the mapping table
    When the caller causes <error> by <situation>
    Then the error's JSON-RPC code is the one the mapping table gives its error

    Examples:
      | error                | situation                          |
      | TaskNotFound         | getting a task that does not exist |
      | TaskNotCancelable    | canceling a completed task         |
      | UnsupportedOperation | subscribing to a completed task    |
      | VersionNotSupported  | sending A2A-Version 9.9            |

  @must @spec-9.4.2 @JSONRPC-SSE-001
  Scenario: A stream is text/event-stream of JSON-RPC responses
    Given the agent's card declares streaming
    When the caller streams a "tck-stream-001" message
    Then the stream is text/event-stream
    And each event is a JSON-RPC response with the request's id and a StreamResponse
