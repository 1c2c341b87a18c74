*** Settings ***
Documentation     Acme Notes (examples/site) with flowwalk's own keywords in an aitester-bdd suite:
...               one test case signs in and saves the session, the other starts from it on an
...               emulated phone in Paris, in French and in the dark, and compares the notebook with
...               the baselines in notes.robot.snapshots/ (an aria snapshot, a screenshot) and axe-core.
...               Run it:  DEMO_PASSWORD=correct-horse-battery flowwalk run examples/robot-checks
...               --serve examples/site --secret DEMO_PASSWORD
...               Add --update-snapshots to write the baselines again after a deliberate change.
Library           aitester_bdd.AITester
Suite Setup       Given I start verification "acme-notes-checks"
Suite Teardown    Then I finalize verification

*** Variables ***
${BASE_URL}       http://127.0.0.1:8000
${DEMO_USER}      ada@example.com

*** Test Cases ***
Sign In Once
    [Documentation]    Signs in and saves the browser's state (cookies, local storage) as robot_demo.
    [Setup]    Given I start scenario "sign_in" at "${BASE_URL}/login.html"
    And I configure interrupts    dismiss=[data-testid=cookie-accept]
    I define rule "login"
        When I type "${DEMO_USER}" into locator "#login-email"
        When I type secret "${DEMO_PASSWORD}" into locator "#login-password"
        When I click locator "[data-testid=login-submit]"    await=[data-testid=dashboard]
        Then locator "[data-testid=greeting]" contains "Welcome back, Ada"
        And I save session "robot_demo"

Notebook On A Phone In Paris
    [Documentation]    Starts signed in (no login, no consent overlay) in an emulated iPhone 13.
    [Setup]    Given I start scenario "notebook_phone" at "${BASE_URL}/notes.html"
    And I use session "robot_demo"
    And I use device "iPhone 13"
    And I set locale "fr-FR"
    And I set timezone "Europe/Paris"
    And I set color scheme "dark"
    And I set geolocation to 48.8566, 2.3522    accuracy=25
    # The emit ends the guards: every check after it is an observation that fails the rule.
    I define rule "browser"
        When I emit "browser"
        ...    field=width    source=js    expr=window.innerWidth
        ...    field=language    source=js    expr=navigator.language
        ...    field=timezone    source=js    expr=Intl.DateTimeFormat().resolvedOptions().timeZone
        ...    field=dark    source=js    expr=matchMedia('(prefers-color-scheme:dark)').matches
        Then locator "[data-testid=signed-in-as]" contains "Ada"
    I define rule "baselines"
        And I declare parents "browser"
        When I emit "notes"
        ...    field=count    source=text    locator=[data-testid=notes-count]
        Then locator "[data-testid=notebook]" matches aria snapshot "notebook"
        And locator "[data-testid=note-form]" matches screenshot "note-form"    threshold=0.2
        And page is accessible    impact=serious
