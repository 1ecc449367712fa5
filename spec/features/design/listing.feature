@tasks @design
Feature: The caller lists its own tasks, newest status first, page by page
  Design, "Other methods": ListTasks → the caller's tasks, filters per the SDK contract, newest first.
  A2A §3.1.4: filters contextId, status and statusTimestampAfter (>=); cursor pages with nextPageToken
  always present ("" on the last page); pageSize 1 to 100; artifacts only with includeArtifacts.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @Tasks_ListTasks_OnlyCallersTasks
  Scenario: The caller lists only its own tasks
    Given the workspace also has the caller "other-bot"
    When the caller sends "one", "two" and "three"
    And "other-bot" sends "not yours"
    And the caller lists its tasks
    Then the list holds the tasks "three", "two", "one"
    And the list counts 3 tasks in all, on a page of 50
    And the list is the last page
    When "other-bot" lists its tasks
    Then the list holds the task "not yours"

  Scenario: The task whose status changed last comes first
    When the caller sends "ask: where to?"
    And the caller sends "hello"
    And the caller answers "Lisbon" to the task "ask: where to?"
    And the caller lists its tasks
    Then the list holds the tasks "ask: where to?", "hello"

  Scenario: Tasks are filtered by context
    When the caller sends "one" in the context "trip-a"
    And the caller sends "two" in the context "trip-b"
    And the caller sends "three" in the context "trip-a"
    And the caller lists its tasks with contextId "trip-a"
    Then the list holds the tasks "three", "one"
    And the list counts 2 tasks in all, on a page of 50

  Scenario: Tasks are filtered by state
    When the caller sends "ask: where to?"
    And the caller sends "hello"
    And the caller lists its tasks with status input-required
    Then the list holds the task "ask: where to?"
    When the caller lists its tasks with status completed
    Then the list holds the task "hello"
    When the caller lists its tasks with status canceled
    Then the list holds no tasks

  Scenario: Tasks are filtered by the time of their status, inclusive
    When the caller sends "one", "two" and "three"
    And the caller lists its tasks with statusTimestampAfter the status time of "two"
    Then the list holds the tasks "three", "two"

  Scenario: Pages follow the cursor until the next page token is empty
    When the caller sends "one", "two", "three", "four" and "five"
    And the caller lists its tasks with pageSize 2
    Then the list holds the tasks "five", "four"
    And the list counts 5 tasks in all, on a page of 2
    And the list has a next page token
    When the caller lists its tasks with pageSize 2 and pageToken the next page token
    Then the list holds the tasks "three", "two"
    And the list has a next page token
    When the caller lists its tasks with pageSize 2 and pageToken the next page token
    Then the list holds the task "one"
    And the list counts 5 tasks in all, on a page of 2
    And the list is the last page

  Scenario: Listed tasks carry their artifacts only when asked
    When the caller sends "hello"
    And the caller lists its tasks
    Then the listed tasks carry no artifacts
    When the caller lists its tasks with includeArtifacts false
    Then the listed tasks carry no artifacts
    When the caller lists its tasks with includeArtifacts true
    Then the listed task "hello" carries the response artifact "hello"

  Scenario: The history length applies to each listed task
    When the caller sends "ask: where to?"
    And the caller sends "hello"
    And the caller lists its tasks with historyLength 1
    Then every listed task has 1 message in its history
    And the history of the listed task "ask: where to?" ends with "where to?"
    When the caller lists its tasks with historyLength 0
    Then the listed tasks carry no history

  @server
  Scenario Outline: A page size of <size> is refused
    When the caller lists its tasks with pageSize <size>
    Then the call fails with InvalidParams
    And the error names the field "pageSize" because it must be between 1 and 100

    Examples:
      | size |
      | 0    |
      | 101  |

  @server
  Scenario: A page token the server did not issue is refused
    When the caller lists its tasks with pageToken "bm90IGEgY3Vyc29y"
    Then the call fails with InvalidParams
    And the error names the field "pageToken" because it is not a token this server issued

  Scenario: A task file edited or deleted by hand is seen by the next listing
    # design: task files are the truth; the listing index reads the files the kernel says changed since the last call
    When the caller sends "one", "two" and "three"
    And the caller lists its tasks
    Then the list holds the tasks "three", "two", "one"
    When the owner deletes the task file of "two"
    And the owner edits the task file of "one" to say canceled
    And the caller lists its tasks with status canceled
    Then the list holds the task "one"
    When the caller lists its tasks
    Then the list holds the tasks "three", "one"

  Scenario: A server that checks files by stat sees task files edited by hand
    # A2A__FileChanges=stat: no kernel notifications (a network file system); each listing checks every file
    Given the server learns of file changes by stat
    When the caller sends "one", "two" and "three"
    And the caller lists its tasks
    Then the list holds the tasks "three", "two", "one"
    When the owner deletes the task file of "two"
    And the owner edits the task file of "one" to say canceled
    And the caller lists its tasks with status canceled
    Then the list holds the task "one"
    When the caller lists its tasks
    Then the list holds the tasks "three", "one"
