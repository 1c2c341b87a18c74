*** Settings ***
Documentation     Issue 27's tags and timeouts of a suite, each with a bad value.
Library           aitester_bdd.AITester
Test Tags         smoke test
Default Tags      or

*** Test Cases ***
Explicit Tags
    [Tags]    and    checkout
    [Timeout]    900 s
    [Setup]    Given I start scenario "s" at "http://127.0.0.1:8080/"
    I define rule "r"
        Then url contains "/"

Default Tags And A Bad Timeout
    [Timeout]    forever
    [Setup]    Given I start scenario "t" at "http://127.0.0.1:8080/"
    I define rule "r"
        Then url contains "/"
