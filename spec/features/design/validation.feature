@bindings
Feature: Requests are validated field by field
  A2A §5.7: REQUIRED fields MUST be present and REQUIRED arrays non-empty; implementations SHOULD reject
  messages that break this with a validation error (-32602 / HTTP 400). The error's
  google.rpc.BadRequest names each bad field and says why, so a client bug is never swallowed.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: A bad message is refused with the field and the reason
    When the caller sends the message <message>
    Then the call fails with InvalidParams
    And the error names the field "<field>" because it <reason>

    @portable
    Examples: what a2a.proto requires (A2A §5.7)
      | message                                                                                 | field                   | reason                 |
      | {"role": "ROLE_USER", "parts": [{"text": "hi"}]}                                        | message.messageId       | is required            |
      | {"messageId": "m1", "parts": [{"text": "hi"}]}                                          | message.role            | is required            |
      | {"messageId": "m1", "role": "user", "parts": [{"text": "hi"}]}                          | message.role            | must be one of         |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": []}                                   | message.parts           | must not be empty      |
      | {"messageId": "m1", "role": "ROLE_USER"}                                                | message.parts           | is required            |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": [{}]}                                 | message.parts[0]        | exactly one of         |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "a", "url": "https://x"}]}  | message.parts[0]        | exactly one of         |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": [{"raw": "not base64!"}]}             | message.parts[0].raw    | base64                 |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": 5}]}                        | message.parts[0].text   | must be a string       |
      | {"messageId": 5, "role": "ROLE_USER", "parts": [{"text": "hi"}]}                        | message.messageId       | must be a string       |

    Examples: what this server adds (the 0.3 hint, the role of an inbound message, the design's contextId)
      | message                                                                                 | field                   | reason                 |
      | {"messageId": "m1", "role": "ROLE_USER", "parts": [{"kind": "file", "file": {}}]}       | message.parts[0]        | A2A 0.3                |
      | {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}                    | message.role            | must be ROLE_USER      |
      | {"messageId": "m1", "role": "ROLE_USER", "contextId": "a b", "parts": [{"text": "hi"}]} | message.contextId       | [A-Za-z0-9_-]{1,100}   |
      | {"messageId": "m1", "role": "ROLE_USER", "contextId": "a\\n", "parts": [{"text": "hi"}]} | message.contextId       | [A-Za-z0-9_-]{1,100}   |

  Scenario: Every bad field is reported at once
    When the caller sends the message {"role": 7, "parts": [{}, {"text": 1}]}
    Then the call fails with InvalidParams
    And the error names the field "message.messageId" because it is required
    And the error names the field "message.parts[0]" because it must have exactly one of
    And the error names the field "message.parts[1].text" because it must be a string

  Scenario: Snake_case field names are accepted as ProtoJSON allows
    When the caller sends the message {"message_id": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    Then the call succeeds
