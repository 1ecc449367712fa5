@bindings
Feature: Request bodies are read within limits, on every binding
  RFC 8259 and I-JSON (RFC 7493): JSON numbers are finite and strings are Unicode, so UTF-8. The design
  README: bad input gets a clear error that names the problem, before any handler runs. One reader serves
  both bindings and every version: nesting, integer size, number range and string validity are bounded,
  and a body beyond a bound is a parse error that says which bound.

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
