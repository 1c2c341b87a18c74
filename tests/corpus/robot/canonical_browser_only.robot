*** Settings ***
Library           aitester_bdd.AITester
Suite Setup       Given I start verification "corpus-canonical"
Suite Teardown    Then I finalize verification

*** Variables ***
${ENGINE}         playwright
${BASE_URL}       http://localhost:8080
${PW}             s3cret

*** Test Cases ***
Login Then Inspect
    [Setup]    Given I start scenario "inspect" at "${BASE_URL}/login"
    And I configure interrupts    dismiss=#cookie-accept
    I define rule "login"
        Given selector "form#login" exists
        When I type "alice" into locator "#user"
        When I type secret "${PW}" into locator "#pass"
        When I click locator "[data-testid=submit] | button[type=submit]"    await=#app
        Then url does not contain "/login"
        And locator "#app h1" has text "Dashboard"
    I define rule "widgets"
        And I declare parents "login"
        And I set rule timeout 5 s
        And I screenshot on fail
        When I click text "Refresh"
        Then count of locator ".widget" is at least 3
        But selector ".error-banner" does not exist
        And I emit "widget_probe"
        ...    field=n    source=count    locator=.widget
        ...    field=title    source=text    locator=#app>h1
    I define rule "retrying_guard"
        And I declare parents "login"
        And I set retry 2 times with 200 ms delay
        Given locator "#status" contains "ready"
        When I click locator "#poke"
        Then locator "#status" has class "ok"
