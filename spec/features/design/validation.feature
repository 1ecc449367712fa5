@bindings @server
Feature: Requests are validated field by field, with this server's own rules
  Design README: bad input gets a clear error naming the field and why, all bad fields at once; on top of
  A2A §5.7 (spec/features/a2a/errors.feature) the server refuses 0.3 parts in 1.0, agent roles and the
  contextIds the design does not take, and takes snake_case names as ProtoJSON parsers do.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: A bad message is refused with the field and the reason
    When the caller sends the message <message>
    Then the call fails with InvalidParams
    And the error names the field "<field>" because it <reason>

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
