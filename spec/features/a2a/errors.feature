@bindings
Feature: Errors say which error it is, the same way on every binding
  A2A §3.3.2, §5.1, §5.4: each error has a code the binding defines (a JSON-RPC code; an HTTP status, with an
  ErrorInfo reason for A2A errors) and a message; input that breaks the request's rules is refused before anything
  is done, and the refusal SHOULD name the field and say why.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.3.2 @CORE-ERR-001
  Scenario Outline: An error says which error it is, with a message
    When the caller causes <error> by <situation>
    Then the call is refused with an error in the binding's own terms
    And the error has a message

    Examples:
      | error                | situation                             |
      | TaskNotFound         | getting a task that does not exist    |
      | TaskNotCancelable    | canceling a completed task            |
      | UnsupportedOperation | sending a message to a completed task |
      | VersionNotSupported  | sending A2A-Version 9.9               |
      | InvalidParams        | sending a message without a messageId |

  @must @spec-5.1 @BIND-EQUIV-003
  Scenario Outline: Each error is told the same way on every binding
    When the caller causes <error> by <situation>
    Then the call fails the same way on the other binding

    Examples:
      | error                | situation                             |
      | TaskNotFound         | getting a task that does not exist    |
      | TaskNotCancelable    | canceling a completed task            |
      | UnsupportedOperation | sending a message to a completed task |
      | UnsupportedOperation | subscribing to a completed task       |
      | VersionNotSupported  | sending A2A-Version 9.9               |
      | InvalidParams        | sending a message without a messageId |

  @must @spec-3.3.2 @CORE-ERR-002
  Scenario Outline: A message that breaks the rules is refused
    When the caller sends the message <message>
    Then the call fails with InvalidParams

    Examples:
      | message                                                                                                 |
      | {"role": "ROLE_USER", "parts": [{"text": "hi"}]}                                                        |
      | {"messageId": "tck-complete-task-1", "parts": [{"text": "hi"}]}                                         |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": []}                                  |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER"}                                               |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"text": 5}]}                       |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{}]}                                |
      | {"messageId": "tck-complete-task-1", "role": "user", "parts": [{"text": "hi"}]}                         |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"text": "a", "url": "https://x"}]} |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"raw": "not base64!"}]}            |
      | {"messageId": 5, "role": "ROLE_USER", "parts": [{"text": "hi"}]}                                        |

  # whether each message is refused at all is CORE-ERR-002's: here, what the refusal says
  @should @spec-3.3.2 @SPEC-ERR-001
  Scenario Outline: A refusal names the field and says why
    When the caller sends the message <message>
    Then the error names the field "<field>" because it <reason>

    Examples:
      | message                                                                                                 | field                 | reason            |
      | {"role": "ROLE_USER", "parts": [{"text": "hi"}]}                                                        | message.messageId     | is required       |
      | {"messageId": "tck-complete-task-1", "parts": [{"text": "hi"}]}                                         | message.role          | is required       |
      | {"messageId": "tck-complete-task-1", "role": "user", "parts": [{"text": "hi"}]}                         | message.role          | must be one of    |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": []}                                  | message.parts         | must not be empty |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER"}                                               | message.parts         | is required       |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{}]}                                | message.parts[0]      | exactly one of    |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"text": "a", "url": "https://x"}]} | message.parts[0]      | exactly one of    |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"raw": "not base64!"}]}            | message.parts[0].raw  | base64            |
      | {"messageId": "tck-complete-task-1", "role": "ROLE_USER", "parts": [{"text": 5}]}                       | message.parts[0].text | must be a string  |
      | {"messageId": 5, "role": "ROLE_USER", "parts": [{"text": "hi"}]}                                        | message.messageId     | must be a string  |
