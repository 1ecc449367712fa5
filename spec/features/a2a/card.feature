@cards
Feature: The agent card says who the agent is and how to reach it
  A2A §8.1-8.3, §8.6, §3.1.11: a server makes its card available (at /.well-known/agent-card.json, or where a
  client is told) with every field a2a.proto requires, each interface naming its binding and a URL that serves it;
  it SHOULD come with Cache-Control and an ETag. The extended card needs authentication and a declared capability.

  @must @spec-8.1 @CARD-DISC-001 @no_binding @v0_3
  Scenario: The agent card is available
    When anyone fetches the public agent card
    Then the card is an agent card

  # §8.2 names the well-known URI as one way of discovery, with registries and a URL given to the client
  @may @spec-8.2 @SPEC-CARD-001 @no_binding @v0_3
  Scenario: The agent card is at the well-known path
    When anyone fetches the agent card at the well-known path
    Then the card is an agent card

  @must @spec-4.4.1 @CARD-STRUCT-001 @no_binding @v0_3
  Scenario: The card has every field a2a.proto requires
    When anyone fetches the public agent card
    Then the card is a valid agent card of its A2A version

  @must @spec-8.3 @spec-5.2 @CARD-PROTO-001 @BIND-FIELD-001 @no_binding @v0_3
  Scenario: The card declares its interfaces with binding, URL and version
    When anyone fetches the public agent card
    Then each interface of the card names its binding, its URL and its protocol version

  @must @spec-8.3.1 @CARD-PROTO-002
  Scenario: Each interface of the card is served at its URL
    Given the caller holds a key the agent accepts
    When the caller gets the task "tck-no-such-task" at the card's URL for this binding
    Then the call is answered as an A2A operation

  @should @spec-8.6.1 @CARD-CACHE-001 @no_binding
  Scenario: The card comes with Cache-Control max-age
    When anyone fetches the public agent card
    Then the card comes with Cache-Control max-age

  @should @spec-8.6.1 @CARD-CACHE-002 @no_binding
  Scenario: The card comes with an ETag
    When anyone fetches the public agent card
    Then the card comes with an ETag

  @may @spec-8.6.1 @CARD-CACHE-003 @no_binding
  Scenario: The card may come with Last-Modified
    When anyone fetches the public agent card
    Then the card comes with Last-Modified

  @must @spec-3.1.11 @spec-13.3 @CARD-EXT-001 @v0_3
  Scenario: The extended card is only for a caller who authenticates
    Given the caller holds a key the agent accepts
    And the agent's card declares an extended card and a security scheme
    When the caller fetches the extended agent card without credentials
    Then the call is refused as unauthenticated
    When the caller fetches the extended agent card
    Then the call succeeds

  @must @spec-3.1.11 @CARD-EXT-002 @v0_3
  Scenario: A declared extended card is given, or said to be missing
    Given the caller holds a key the agent accepts
    And the agent's card declares an extended card
    When the caller fetches the extended agent card
    Then the answer is an agent card, or the call fails with ExtendedAgentCardNotConfigured

  @must @spec-3.3.4 @CORE-CAP-003
  Scenario: Without the extended card capability, the extended card is unsupported
    Given the caller holds a key the agent accepts
    And the agent's card does not declare an extended card
    When the caller fetches the extended agent card
    Then the call fails with UnsupportedOperation
