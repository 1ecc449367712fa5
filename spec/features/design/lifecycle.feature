@lifecycle @design
Feature: Task files and lazy restart recovery
  Design, "Files": tasks/<taskId>.json is the task plus caller and pushConfigs, written atomically; a
  malformed task file reads as missing, without a log line. "Lazy restart recovery": a task file read in
  state submitted/working with no live run is rewritten as failed ("server restarted"); input-required
  tasks survive a restart. "Deviations": a just-finished run counts as live for a one-minute grace.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @TaskFile_WorkingWithoutLiveRun_MarkedFailedOnRead @v0_3
  Scenario: A working task without a live run reads as failed
    Given a task file of the caller in state working, as if the server had died mid-run
    When the caller gets the task
    Then the task is failed
    And the task's status message says "server restarted"
    And the task file says failed with the status message "server restarted"

  @v0_3
  Scenario: A submitted task without a live run reads as failed
    Given a task file of the caller in state submitted, as if the server had died mid-run
    When the caller gets the task
    Then the task is failed
    And the task file says failed with the status message "server restarted"

  Scenario: Listing tasks recovers a working task without a live run
    Given a task file of the caller in state working, as if the server had died mid-run
    When the caller lists its tasks
    Then the listed task is failed with the status message "server restarted"
    And the task file says failed with the status message "server restarted"

  Scenario: A task that just finished is never rewritten as "server restarted"
    # design "Deviations": a run that ended less than a minute ago still counts as live, so a file read
    # while the run was working, and looked at after it ended, is not taken for a run the server lost
    When the caller sends "hello"
    Then the task is completed
    When the task file is set back to working, as a read made during its run saw it
    And the caller gets the task
    And the caller lists its tasks
    Then the task file is not rewritten as failed

  Scenario: A task file is no larger than twice the request that made it
    When the caller sends a message whose metadata holds 50 arrays nested 60 deep
    Then the task file is no larger than twice the request that made it

  @TaskFile_InputRequired_SurvivesRestart @v0_3
  Scenario: An input-required task survives a restart and continues
    When the caller sends "ask: Which dates suit you?"
    Then the task is input-required
    When the server restarts
    And the caller gets the task
    Then the task is input-required
    And the task's status message says "Which dates suit you?"
    When the caller answers "May 3 to May 9"
    Then the task is completed
    And the response artifact says "May 3 to May 9"

  @v0_3
  Scenario: A working task reads as failed after a restart
    Given a server started for this scenario
    When the caller sends "sleep 30" without waiting
    And the server restarts
    And the caller gets the task
    Then the task is failed
    And the task's status message says "server restarted"

  @v0_3
  Scenario: A malformed task file reads as not found, without a log line
    Given the owner watches the server's log
    And the caller's task file is not valid JSON
    When the caller gets the task
    Then the call fails with TaskNotFound
    And no log line mentions the task or its file

  Scenario: A task file edited or deleted by hand is what GetTask reads next
    # design: the task file is the truth; a task this server wrote is answered from memory only while its file is
    # as the server wrote it
    When the caller sends "one" and "two"
    And the caller gets the task "one"
    Then the task is completed
    When the owner edits the task file of "one" to say canceled
    And the caller gets the task "one"
    Then the task is canceled
    When the owner deletes the task file of "two"
    And the caller gets the task "two"
    Then the call fails with TaskNotFound

  Scenario: A task id that is not a UUID never reaches the file system
    Given "not-a-uuid.json" in the tasks folder holds a task of the caller with the id "not-a-uuid"
    When the caller gets the task "not-a-uuid"
    Then the call fails with TaskNotFound

  @jsonrpc
  Scenario: A task id with a path does not read a file outside the tasks
    Given "../planted.json" in the tasks folder holds a task of the caller with the id "../planted"
    When the caller gets the task "../planted"
    Then the call fails with TaskNotFound

  Scenario: A task file is the task plus the caller and its push configs
    When the caller sends "hello"
    Then the task is completed
    And the task file is the task plus the caller and its push configs
    And the task file matches the snapshot

  Scenario Outline: Every run of a task ends with one log line
    Given the owner watches the server's log
    When the caller sends "<text>"
    Then the server logs the task's end once with the state <state>

    Examples:
      | text                 | state          |
      | hello                | completed      |
      | ask: Which dates?    | input-required |
      | fail: quota exceeded | failed         |
