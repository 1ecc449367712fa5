@bindings @rest
Feature: The HTTP+JSON binding serves resources at their URLs
  A2A §11: each operation at its URL pattern and HTTP verb under the interface URL, query parameters in camelCase,
  service parameters in HTTP headers, application/a2a+json; errors as google.rpc.Status with the HTTP status of
  §5.4 and, for A2A errors, an ErrorInfo in details; streams as text/event-stream of StreamResponses.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-11.3 @HTTP_JSON-URL-001 @HTTP_JSON-URL-002
  Scenario Outline: Every 1.0 route is served with its verb
    When the caller requests <verb> <route>
    Then the answer is HTTP <status> <outcome>

    Examples:
      | verb | route              | status | outcome                 |
      | POST | /message:send      | 400    | for the missing message |
      | POST | /message:stream    | 400    | for the missing message |
      | GET  | /tasks             | 200    | with a task list        |
      | GET  | /extendedAgentCard | 200    | as the card declares it |

  # which error a task that does not exist gets is CORE-GET-002's and its kin's: here only that the route serves
  @must @spec-11.3 @HTTP_JSON-URL-001 @HTTP_JSON-URL-002
  Scenario Outline: Every 1.0 route of a task is served with its verb
    When the caller requests <verb> <route>
    Then the call is answered as an A2A operation

    Examples:
      | verb   | route                                                      |
      | GET    | /tasks/tck-no-such-task                                    |
      | POST   | /tasks/tck-no-such-task:cancel                             |
      | POST   | /tasks/tck-no-such-task:subscribe                          |
      | GET    | /tasks/tck-no-such-task/pushNotificationConfigs            |
      | GET    | /tasks/tck-no-such-task/pushNotificationConfigs/tck-config |
      | DELETE | /tasks/tck-no-such-task/pushNotificationConfigs/tck-config |

  @should @spec-11.1 @HTTP_JSON-SVC-001
  Scenario: Answers are application/a2a+json
    When the caller sends a "tck-complete-task" message
    Then the answer's content type is "application/a2a+json"

  @must @spec-11.2 @HTTP_JSON-SVC-002
  Scenario Outline: On HTTP+JSON, A2A-Version is read from its header in any case
    Given the caller sends A2A-Version "<version>" in the header "<header>"
    When the caller gets the task "tck-no-such-task"
    Then the call <outcome>

    Examples:
      | header      | version | outcome                                                   |
      | a2a-version | 1.0     | is served as A2A 1.0                                      |
      | A2A-VERSION | 1.0     | is served as A2A 1.0                                      |
      | a2a-version | 9.9     | is refused with VersionNotSupported, as under A2A-Version |

  @must @spec-11.5 @HTTP_JSON-QP-001
  Scenario: Query parameters have the camelCase names of the fields
    Given the caller has 3 "tck-complete-task" tasks in one context
    When the caller lists the tasks of that context with pageSize 1
    Then the list holds at most 1 task and a next page token

  @must @spec-11.6 @HTTP_JSON-ERR-001
  Scenario Outline: An error is a google.rpc.Status
    When the caller requests <verb> <route>
    Then the answer is a google.rpc.Status whose code is its HTTP status

    Examples:
      | verb | route                   |
      | GET  | /tasks/tck-no-such-task |
      | POST | /message:send           |

  @must @spec-11.6 @HTTP_JSON-ERR-002
  Scenario Outline: An A2A error's details hold an ErrorInfo with its reason
    When the caller causes <error> by <situation>
    Then the error's details hold the ErrorInfo of its error and the domain "a2a-protocol.org"

    Examples:
      | error                | situation                             |
      | TaskNotFound         | getting a task that does not exist    |
      | TaskNotCancelable    | canceling a completed task            |
      | UnsupportedOperation | sending a message to a completed task |
      | VersionNotSupported  | sending A2A-Version 9.9               |

  @must @spec-5.4 @HTTP_JSON-STATUS-001
  Scenario Outline: Each A2A error has the HTTP status of the mapping table
    When the caller causes <error> by <situation>
    Then the answer's HTTP status is the one the mapping table gives its error

    Examples:
      | error                | situation                          |
      | TaskNotFound         | getting a task that does not exist |
      | TaskNotCancelable    | canceling a completed task         |
      | UnsupportedOperation | subscribing to a completed task    |
      | VersionNotSupported  | sending A2A-Version 9.9            |

  @must @spec-11.7 @HTTP_JSON-SSE-001
  Scenario: A stream is text/event-stream of StreamResponses
    Given the agent's card declares streaming
    When the caller streams a "tck-stream-001" message
    Then the stream is text/event-stream
    And each event is a StreamResponse
