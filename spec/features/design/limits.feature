@bindings @server
Feature: Request bodies are read within limits, on every binding
  RFC 8259 and I-JSON (RFC 7493): JSON numbers are finite and strings are Unicode. The design README: bad
  input gets a clear error naming the problem, before any handler runs. One reader serves both bindings
  and every version, with bounds on nesting, integers, numbers and strings; parts and metadata, which the
  server stores and sends back, have limits of their own. Each refusal names the limit it hit.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  Scenario Outline: A body beyond a limit is a parse error that names the limit
    When the caller sends a message whose metadata holds <value>
    Then the call fails with ParseError
    And the error message says "<hint>"

    Examples:
      | value                       | hint                                             |
      | arrays nested 10,000 deep   | nested deeper than 64 levels                     |
      | arrays nested 65 deep       | nested deeper than 64 levels                     |
      | an integer of 4,301 digits  | an integer of more than 100 digits               |
      | NaN                         | NaN is not JSON                                  |
      | -Infinity                   | -Infinity is not JSON                            |
      | the number 1e400            | too large for a double                           |
      | a lone surrogate            | message.metadata.x holds a lone UTF-16 surrogate |
      | a key with a lone surrogate | message.metadata holds a lone UTF-16 surrogate   |

  Scenario Outline: A message beyond a size limit is refused, naming the field
    When the caller sends a message made of <what>
    Then the call fails with InvalidParams
    And the error names the field "<field>" because it <reason>

    Examples:
      | what                                  | field                     | reason                          |
      | 101 parts                             | message.parts             | has 101 parts; the limit is 100 |
      | metadata of 70,000 bytes              | message.metadata          | the limit is 65536 bytes        |
      | a part whose metadata is 70,000 bytes | message.parts[0].metadata | the limit is 65536 bytes        |

  Scenario: A message at the limits is taken
    When the caller sends a message made of 100 parts
    Then the call succeeds

  Scenario: A body within the limits is read as sent
    When the caller sends a message whose metadata holds arrays nested 40 deep
    Then the call succeeds

  Scenario: A stranger's hostile body is refused as unauthenticated
    Given the caller presents no key
    When the caller sends a message whose metadata holds arrays nested 10,000 deep
    Then the call is refused as unauthenticated

  Scenario: A version number of thousands of digits is not supported
    Given the caller sends an A2A-Version of 4,301 nines
    When the caller fetches the extended agent card
    Then the call fails with VersionNotSupported
