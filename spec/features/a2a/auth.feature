@auth
Feature: Every request is authenticated, and a caller sees only what is its own
  A2A §7.4, §3.3.2, §13.1, §5.1: the server authenticates every request as its card declares and refuses
  missing or wrong credentials, the same way on every binding; it checks on every operation that the caller may
  act on the task, and another caller's task looks exactly like one that does not exist.

  Background:
    Given the caller holds a key the agent accepts
    And the agent's card declares a security scheme

  @must @spec-7.4 @spec-3.3.2 @AUTH-SERVER-002 @v0_3
  Scenario: A request without credentials is refused
    Given the caller presents no key
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  @must @spec-7.4 @spec-3.3.2 @AUTH-SERVER-002 @v0_3
  Scenario: A request with credentials the agent does not know is refused
    Given the caller presents the key "tck-not-a-key-anyone-was-given"
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  @must @spec-7.4 @AUTH-SERVER-002
  Scenario Outline: Every operation needs credentials, on every binding
    Given the caller presents no key
    When the caller calls <operation>
    Then the call is refused as unauthenticated

    Examples:
      | operation            |
      | SendMessage          |
      | SendStreamingMessage |
      | GetTask              |
      | ListTasks            |
      | CancelTask           |
      | SubscribeToTask      |
      | GetExtendedAgentCard |

  @must @spec-5.1 @BIND-EQUIV-004
  Scenario Outline: A call without credentials is answered alike on every binding
    Given the caller presents no key
    When the caller calls <operation>
    Then the other binding refuses the call as unauthenticated exactly when this one does

    Examples:
      | operation            |
      | SendMessage          |
      | GetTask              |
      | ListTasks            |
      | CancelTask           |
      | GetExtendedAgentCard |

  @should @spec-3.3.2 @SPEC-AUTH-001
  Scenario: A refusal says which scheme to authenticate with
    Given the caller presents no key
    When the caller fetches the extended agent card
    Then the refusal carries an authentication challenge

  @must @spec-13.1 @AUTH-SCOPE-001 @v0_3
  Scenario Outline: Another caller cannot act on the caller's task
    Given another caller of the same agent
    And the caller sent a "tck-input-required" message
    When the other caller <acts on> the task
    Then the call is refused

    Examples:
      | acts on                      |
      | gets                         |
      | cancels                      |
      | subscribes to                |
      | answers                      |
      | creates a push config for    |

  @must @spec-13.1 @AUTH-SCOPE-002
  Scenario: Another caller's list holds none of the caller's tasks
    Given another caller of the same agent
    And the caller sent a "tck-complete-task" message
    When the other caller lists its tasks
    Then the list does not hold the caller's task

  @must @spec-3.3.2 @AUTH-SCOPE-003 @v0_3
  Scenario: Another caller's task looks like a task that does not exist
    Given another caller of the same agent
    And the caller sent a "tck-input-required" message
    When the other caller gets the task
    Then the refusal is the same as for a task that does not exist

  # the tier between an unknown caller (AUTH-SERVER-002) and another caller's task (AUTH-SCOPE-003): ACTS SEC-AUTH-002
  @must @spec-3.3.2 @SPEC-AUTH-002
  Scenario: A caller that is known but not allowed is refused as unauthorized
    Given a caller the agent knows but does not allow to send messages
    When that caller sends a "tck-complete-task" message
    Then the call is refused as not allowed, not as unauthenticated

  @must @spec-7.6.1 @AUTH-INTASK-001
  Scenario: An agent that needs authorization tracks the work as a task
    When the caller sends a "tck-auth-required" message
    Then the answer is a task

  @must @spec-7.6.1 @AUTH-INTASK-002
  Scenario: A task that needs authorization is auth-required
    When the caller sends a "tck-auth-required" message
    Then the task is auth-required

  @must @spec-7.6.1 @AUTH-INTASK-003
  Scenario: A task that needs authorization says what it needs
    When the caller sends a "tck-auth-required" message
    Then the task's status has a message that says something

  @should @spec-7.6.1 @AUTH-INTASK-006
  Scenario: A task waiting for authorization takes a message
    Given the caller sent a "tck-auth-required" message
    When the caller answers the task with a "tck-complete-task" message
    Then the call succeeds
