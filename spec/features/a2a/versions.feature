@versions
Feature: A2A-Version says which version of the protocol a request speaks
  A2A §3.6: a request is served with the semantics of the Major.Minor version it names, a patch number plays no
  part, a version the interface does not serve is VersionNotSupportedError, and a request without the header is
  A2A 0.3. A client MAY send the version as a query parameter instead (§3.6.1).

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.6.2 @VER-SERVER-001 @v0_3
  Scenario: A message is answered in the shapes of the version it names
    When the caller sends a "tck-complete-task" message
    Then the answer is a task in the shapes of the caller's version

  @must @spec-3.6 @VER-CLIENT-002
  Scenario Outline: A patch number in the version plays no part
    Given the caller sends A2A-Version "<version>"
    When the caller sends a "tck-complete-task" message
    Then the call is served as A2A 1.0

    Examples:
      | version |
      | 1.0     |
      | 1.0.3   |

  @must @spec-3.6.2 @VER-SERVER-002
  Scenario Outline: Unsupported versions are refused with a hint
    Given the caller sends A2A-Version "<version>"
    When the caller gets the task "tck-no-such-task"
    Then the call fails with VersionNotSupported
    And the error message says "send the header A2A-Version: 1.0"

    Examples:
      | version |
      | 2.0     |
      | 1.1     |
      | 0.2     |
      | one     |

  @must @spec-3.6.2 @VER-SERVER-003 @jsonrpc
  Scenario: A request without a version is not read as A2A 1.0
    Given the caller sends no A2A-Version
    When the caller gets the task "tck-no-such-task"
    Then the call is refused as not A2A 1.0
    And the error message says "GetTask is an A2A 1.0 method but the request is A2A 0.3"

  @must @spec-3.6.2 @VER-SERVER-003 @jsonrpc
  Scenario: A request without a version is served as A2A 0.3
    Given the agent's card offers A2A 0.3 over JSON-RPC at the same URL
    And the caller sends no A2A-Version
    When the caller gets the task "tck-no-such-task" with the A2A 0.3 method
    Then the call is served as A2A 0.3

  @may @spec-3.6.1 @SPEC-VER-001
  Scenario: The version may come as a query parameter
    Given the caller sends A2A-Version "1.0" as a query parameter only
    When the caller gets the task "tck-no-such-task"
    Then the call is served as A2A 1.0
