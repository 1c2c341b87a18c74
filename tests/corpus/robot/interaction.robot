*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Shop
    [Setup]    Given I start scenario "shop" at "http://127.0.0.1:8000/"
    I define rule "interact"
        When I type keys "che" into locator "#search"
        And I drag locator "#card-tests" to locator "#done"
        And I dispatch event "blur" on locator "#email"
        Then locator "#results li" has texts    cheese    cherries
