*** Settings ***
Documentation     flowwalk's own keywords with a bad argument on every line: each is refused at its cell.
Library           aitester_bdd.AITester

*** Test Cases ***
Bad Settings
    [Setup]    Given I start scenario "bad" at "http://127.0.0.1:8080/"
    And I use session "the member"
    Given I use device "pixel 7"
    And I set viewport to 99999 x 800
    And I set viewport to 412 x 800
    And I set locale "Deutsch"
    And I set timezone "Europe/Berlinn"
    And I set color scheme "darkish"
    And I set geolocation to north, -200    accuracy=lots
    When I set locale "de"
    I define rule "checks"
        When I scroll down
        Then page matches aria snapshot "../home"
        And page matches screenshot "page"    full_page=maybe
        And page matches screenshot "page2"    threshold=2    max_diff_ratio=-1    mask=    max_diff_pixels=many
        And locator ".card" matches screenshot "card"    full_page=true
        And page is accessible    impact=severe    include=a,,b    exclude=#x    only=label
        And page is accessible    include=colour-contrast    skip=wcag2aa
        And page is accessible    exclude=//div
        And I save session "a b"
    And I set locale "fr"
