@tasks
Feature: ListTasks lists the caller's tasks, newest first, page by page
  A2A §3.1.4: only the tasks the caller may see; newest status first; cursor pages (pageToken in,
  nextPageToken out, always present and "" on the last page); no artifacts key unless includeArtifacts;
  a2a.proto: a page holds at most 50 tasks when the caller gives no pageSize. A2A 0.3 has no ListTasks.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.4 @spec-13.1 @CORE-LIST-001
  Scenario: The list holds only the caller's own tasks
    Given another caller of the same agent
    And the caller sent a "tck-complete-task" message
    And the other caller sent a "tck-complete-task" message
    When the caller lists its tasks
    Then the list holds the caller's task but not the other caller's

  @must @spec-3.1.4 @CORE-LIST-002
  Scenario: Pages follow the cursor from one page to the next
    Given the caller has 3 "tck-complete-task" tasks in one context
    When the caller lists the tasks of that context page by page with pageSize 2
    Then the pages hold each of those tasks once, at most 2 a page

  @must @spec-3.1.4 @CORE-LIST-003
  Scenario: The task whose status changed last is listed first
    Given the caller has 3 "tck-complete-task" tasks in one context
    When the caller lists the tasks of that context
    Then the list holds those tasks, the last one first
    And the listed status times never go up

  @must @spec-3.1.4 @CORE-LIST-004
  Scenario: The next page token is there and empty on the last page
    Given the caller has 3 "tck-complete-task" tasks in one context
    When the caller lists the tasks of that context with pageSize 100
    Then the list is the last page
    When the caller lists the tasks of that context page by page with pageSize 2
    Then every page but the last has a next page token

  @must @spec-3.1.4 @CORE-LIST-005
  Scenario: Listed tasks carry no artifacts key unless asked
    Given the caller has 1 "tck-artifact-text" task in one context
    When the caller lists the tasks of that context
    Then the listed tasks carry no artifacts
    When the caller lists the tasks of that context with includeArtifacts false
    Then the listed tasks carry no artifacts
    When the caller lists the tasks of that context with includeArtifacts true
    Then every listed task has an artifact with the text "Generated text content"

  @must @spec-3.1.4 @SPEC-LIST-001
  Scenario: Without a page size a page holds at most 50 tasks
    Given the caller has 51 "tck-complete-task" tasks in one context
    When the caller lists the tasks of that context
    Then the list holds at most 50 tasks and a next page token
