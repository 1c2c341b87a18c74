*** Settings ***
Documentation     Acme Notes (examples/site) as an aitester-bdd suite. The cookie consent overlay is an
...               interrupt dismissed before every action; signing in is the root of a rule DAG; the
...               dashboard scopes its child's checks to its own section; a report that lands 1.5 s
...               after the click is waited for with retry-redo; an emit records the report.
...               Run it:  DEMO_PASSWORD=correct-horse-battery flowwalk run examples/robot
...               --serve examples/site --secret DEMO_PASSWORD
Library           aitester_bdd.AITester
Suite Setup       Given I start verification "acme-notes"
Suite Teardown    Then I finalize verification
# tags for --tag (docs/selection.md): every test gets Test Tags, then its own [Tags]
Test Tags         acme

*** Variables ***
# --serve (or --base-url) replaces this, as `aitester run --base-url` does
${BASE_URL}       http://127.0.0.1:8000
${DEMO_USER}      ada@example.com
# DEMO_PASSWORD has no value here: it is a secret, read from the environment by --secret

*** Test Cases ***
Sign In And Generate A Report
    [Documentation]    The demo account signs in, checks its dashboard and generates a weekly report.
    [Tags]    smoke    reports
    [Setup]    Given I start scenario "acme_notes" at "${BASE_URL}/login.html"
    # The overlay covers every page of a fresh browser until a choice is made.
    And I configure interrupts    dismiss=[data-testid=cookie-accept]

    I define rule "login"
        Given selector "[data-testid=login-form]" exists
        When I type "${DEMO_USER}" into locator "#login-email"
        When I type secret "${DEMO_PASSWORD}" into locator "#login-password"
        When I click locator "[data-testid=login-submit]"    await=[data-testid=dashboard]
        Then url contains "/dashboard.html"
        And locator "[data-testid=greeting]" contains "Welcome back, Ada"
        But selector "[data-testid=cookie-overlay]" does not exist

    I define rule "dashboard"
        And I declare parents "login"
        And I scope children to "[data-testid=dashboard]"
        Given url contains "/dashboard.html"
        When I click locator "[data-testid=dismiss-whats-new]"
        Then selector "[data-testid=whats-new]" does not exist

    # Its selectors resolve inside the dashboard section (the parent's child scope). The emit
    # ends the guards, so the checks after it are observations: they fail the rule, not skip it.
    I define rule "account"
        And I declare parents "dashboard"
        Then I emit "account"
        ...    field=number    locator=[data-testid=account-number]
        Then locator "[data-testid=account-email]" has text "${DEMO_USER}"
        And locator "[data-testid=account-number]" matches "\\d"

    I define rule "open_reports"
        And I declare parents "login"
        When I open "${BASE_URL}/reports.html"
        Then locator "h1" has text "Reports"
        And locator "[data-testid=no-reports]" is visible

    # The guard fails at first: retry-redo replays the click, waits 2 s and checks again, by
    # which time the report has landed. Then the body runs for real: a second report.
    I define rule "report_ready"
        And I declare parents "open_reports"
        And I set retry 2 times with 2000 ms delay
        And I screenshot on fail
        Given selector "[data-testid=report-ready]" exists
        When I click locator "[data-testid=generate-report]"
        Then locator "[data-testid=report-id]" matches "^R-10\\d\\d$"
        And count of locator "[data-testid=recent-report]" is at least 2
        And locator "[data-testid=generate-report]" is enabled
        And I emit "report"
        ...    field=id    source=text    locator=[data-testid=report-id]
        ...    field=numbers    locator=[data-testid=report-numbers]
        ...    field=recent    source=count    locator=[data-testid=recent-report]
        ...    field=page    source=url
