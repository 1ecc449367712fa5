@cards @design
Feature: Agent cards
  A2A §8.2: the agent card is at /.well-known/agent-card.json. Design, "Decisions": a generic public
  card plus a per-caller extended card built from <workspace>/.volcanic/a2a/card.json, read on every
  request; without card.json the name comes from settings and the description from PERSONA.md.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"
    And the workspace's card.json says:
      """
      {"name": "Eugene's assistant", "description": "Schedules meetings and answers for Eugene.",
       "skills": [{"id": "scheduling", "name": "Scheduling", "description": "Books meetings.",
                   "tags": ["calendar"], "examples": ["Find us an hour on Tuesday"]}]}
      """

  @Card_Public_IsGeneric @no_binding
  Scenario: The public card is generic
    When anyone fetches the public agent card
    Then the card is a valid agent card of its A2A version
    And the card shows nothing of any workspace
    And the card matches the snapshot

  @no_binding
  Scenario: The public card offers both bindings in 1.0 and in 0.3
    When anyone fetches the public agent card
    Then the card lists these interfaces:
      | binding   | version | path    |
      | JSONRPC   | 1.0     | /a2a    |
      | HTTP+JSON | 1.0     | /a2a/v1 |
      | JSONRPC   | 0.3     | /a2a    |
      | HTTP+JSON | 0.3     | /a2a    |
    And the card declares the security schemes "apiKey, bearer"

  @no_binding @server
  Scenario: The public card can be cached
    When anyone fetches the public agent card
    Then the card comes with Cache-Control max-age, an ETag and Last-Modified
    When anyone fetches the public agent card again with that ETag
    Then the card is not modified

  @no_binding
  Scenario: The hybrid card adds the 0.3 fields only when asked to
    When anyone fetches the public agent card
    Then the card has no 0.3 top-level fields
    When the server runs with the hybrid card setting
    And anyone fetches the public agent card
    Then the card has the 0.3 top-level fields

  @Card_Extended_FromCardJson @v0_3
  Scenario: The extended card comes from card.json
    When the caller fetches the extended agent card
    Then the call succeeds
    And the card's name is "Eugene's assistant"
    And the card's description is "Schedules meetings and answers for Eugene."
    And the card's skills are "scheduling"

  Scenario: An edit of card.json applies to the next request
    When the owner changes the name in card.json to "Eugene's new assistant"
    And the caller fetches the extended agent card
    Then the card's name is "Eugene's new assistant"

  @Card_Extended_FallsBackToPersona @v0_3
  Scenario: Without card.json the extended card falls back to PERSONA.md
    Given the workspace has no card.json and its PERSONA.md begins with "Plans trips for Alice."
    When the caller fetches the extended agent card
    Then the call succeeds
    And the card's name is "Volcanic assistant"
    And the card's description is "Plans trips for Alice."
    And the card's skills are "chat"

  Scenario: Without card.json or PERSONA.md the extended card uses the settings
    Given the workspace has no card.json and no PERSONA.md
    When the caller fetches the extended agent card
    Then the card's description is "A general-purpose assistant reachable over A2A."

  Scenario: A malformed card.json falls back with a warning naming the file
    Given the workspace's card.json is not valid JSON
    When the caller fetches the extended agent card
    Then the call succeeds
    And the card's name is "Volcanic assistant"
    And a warning names the card file but not the key
