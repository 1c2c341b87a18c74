*** Settings ***
Documentation     flowwalk's own keywords (not aitester-bdd's): baseline and accessibility checks,
...               saved sessions and the browser's environment, each onto the model flow specs use.
Library           aitester_bdd.AITester

*** Variables ***
${BASE_URL}       http://127.0.0.1:8080

*** Test Cases ***
Sign In
    [Setup]    Given I start scenario "sign_in" at "${BASE_URL}/login"
    I define rule "login"
        When I click locator "#submit"
        Then url contains "/home"
        And I save session "member"

Home On A Phone
    [Setup]    Given I start scenario "phone" at "${BASE_URL}/home"
    And I use session "member"
    Given I use device "Pixel 7"
    And I set viewport to 412 x 800
    And I set locale "de-DE"
    And I set timezone "Europe/Berlin"
    And I set color scheme "no-preference"
    And I set geolocation to 52.52, 13.405    accuracy=10
    I define rule "looks"
        When I scroll down
        Then page matches aria snapshot "home"
        And locator "nav" matches aria snapshot "nav"
        And page matches screenshot "page"    full_page=true    mask=.clock    mask=.ad    max_diff_pixels=20
        And locator ".card" matches screenshot "card"    threshold=0.3    max_diff_ratio=0.002
        And page is accessible
        And locator "main" is accessible    impact=serious    include=wcag2a,wcag2aa    skip=region    exclude=.ad
