@tasks
Feature: Answers follow the A2A 1.0 data model in ProtoJSON
  A2A §4.1, §5.5-5.7: a Task has its id and status, a Message its messageId, role and parts, a Part exactly one
  kind of content, an Artifact its artifactId and parts; field names are camelCase, enums their proto names,
  timestamps UTC with a Z; REQUIRED fields are there. Fields a server does not know SHOULD be ignored.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-4.1.1 @spec-4.1.2 @spec-4.1.3 @DM-TASK-001 @DM-TASK-002 @DM-STATUS-001
  Scenario Outline: A task has its id and a status whose state is a TaskState
    When the caller sends a "<prefix>" message
    Then the task has an id and a status whose state is a TaskState name

    Examples:
      | prefix             |
      | tck-complete-task  |
      | tck-input-required |
      | tck-reject-task    |

  @must @spec-4.1.4 @spec-4.1.5 @DM-MSG-001 @DM-MSG-002
  Scenario Outline: Messages have their id, a role and parts
    When the caller sends a "<prefix>" message
    Then every message of the answer has a messageId, a role that is a Role name, and parts

    Examples:
      | prefix               |
      | tck-message-response |
      | tck-input-required   |

  @must @spec-4.1.6 @spec-4.1.7 @DM-PART-001 @DM-ART-001
  Scenario Outline: Artifacts have their id and parts, each part one kind of content
    When the caller sends a "<prefix>" message
    Then every artifact has an artifactId and parts, each part with exactly one of text, raw, url and data

    Examples:
      | prefix                |
      | tck-artifact-text     |
      | tck-artifact-file     |
      | tck-artifact-file-url |
      | tck-artifact-data     |

  @must @spec-5.5 @DM-SERIAL-001
  Scenario: Field names are camelCase
    When the caller sends a "tck-artifact-file" message
    Then no field name of the answer has an underscore

  @must @spec-5.5 @DM-SERIAL-001
  Scenario: A task read again has camelCase field names
    Given the caller sent a "tck-artifact-file" message
    When the caller gets the task
    Then no field name of the answer has an underscore

  @must @spec-5.5 @DM-SERIAL-002
  Scenario: States and roles are their proto enum names
    When the caller sends a "tck-artifact-file" message
    Then every state and role of the answer is a proto enum name

  @must @spec-5.5 @DM-SERIAL-002
  Scenario: A task read again has proto enum names
    Given the caller sent a "tck-artifact-file" message
    When the caller gets the task
    Then every state and role of the answer is a proto enum name

  @must @spec-5.6.1 @DM-SERIAL-003
  Scenario: Timestamps are ISO 8601 in UTC with a Z
    When the caller sends a "tck-input-required" message
    Then every timestamp of the answer is ISO 8601 in UTC with a Z

  @must @spec-5.7 @DM-SERIAL-004
  Scenario Outline: Answers have every field a2a.proto requires
    When the caller sends a "<prefix>" message
    Then the answer has every field a2a.proto requires

    Examples:
      | prefix               |
      | tck-complete-task    |
      | tck-message-response |
      | tck-artifact-data    |

  @should @spec-5.7 @DM-SERIAL-005
  Scenario: Fields the server does not know are ignored
    When the caller sends a "tck-complete-task" message with a field no version of A2A defines
    Then the call succeeds
