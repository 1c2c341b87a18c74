*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Shop
    [Setup]    Given I start scenario "shop" at "http://127.0.0.1:8000/"
    I define rule "interact"
        When I type keys "" into locator "#search"
        And I drag locator "#card" to locator ""
        And I dispatch event "on blur" on locator "#email"
