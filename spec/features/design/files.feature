@files @design
Feature: File parts given by URL
  Design step 4 and its deviation "File-part errors": a file part given by URL is downloaded over https through
  the guarded outbound client, capped at MaxFileBytes, into <workspace>/inbox/. A URL that is not https is refused
  before any task exists; a download that fails, is redirected or goes over the cap fails the task ("file").
  The cap counts the bytes kept: a gzip or deflate answer is inflated a bounded step at a time, never past it.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"
    And a file server that serves "plan.pdf"

  @v0_3
  Scenario: A file given by URL is saved to the inbox and listed in the prompt
    When the caller sends the URL of "plan.pdf" with the text "Here is the plan"
    Then the task is completed
    And the inbox holds the file as "a2a-travel-bot-<yyyymmdd-hhmmss>-plan.pdf" with the bytes served
    And the prompt lists the saved file

  @v0_3
  Scenario: A file URL that is not https is refused before a task exists
    Given the server allows neither plain-http nor private URLs
    When the caller sends the file URL "http://files.example.com/plan.pdf" with the text "Here"
    Then the call fails with InvalidParams
    And the error names the file part's URL, saying "the URL scheme must be https"
    And nothing was saved to the inbox and no task was created

  Scenario: A download over MaxFileBytes fails the task
    Given the server caps file parts at 1024 bytes
    And the file server also serves "big.bin" of 4096 bytes
    When the caller sends the URL of "big.bin" with the text "Here"
    Then the task is failed
    And the task's status message mentions "file: message.parts[1].url could not be downloaded"
    And the task's status message mentions "1024"
    And nothing was saved to the inbox

  Scenario: A gzip-compressed download is saved as its inflated bytes
    Given the file server also serves "notes.txt" gzip-compressed, 2000 bytes once inflated
    When the caller sends the URL of "notes.txt" with the text "Here"
    Then the task is completed
    And the inbox holds the file as "a2a-travel-bot-<yyyymmdd-hhmmss>-notes.txt" with the bytes served

  Scenario: A compressed download that inflates past MaxFileBytes fails the task
    Given the server caps file parts at 1024 bytes
    And the file server also serves "bomb.txt" gzip-compressed, 67108864 bytes once inflated
    When the caller sends the URL of "bomb.txt" with the text "Here"
    Then the task is failed
    And the task's status message mentions "larger than the cap of 1024 bytes"
    And nothing was saved to the inbox

  Scenario: A redirected download is not followed and fails the task
    Given the file server redirects every request to another file server
    When the caller sends the URL of "plan.pdf" with the text "Here"
    Then the task is failed
    And the task's status message mentions "redirect not followed"
    And the other file server was never asked

  Scenario: A file URL whose host resolves to a private address fails
    Given the server allows neither plain-http nor private URLs
    When the caller sends the URL of "plan.pdf" on "files.test", a name that resolves to 127.0.0.1
    Then the task is failed
    And the task's status message mentions "127.0.0.1 is loopback"
    And the file server was never asked
