*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Help Desk
    [Setup]    Given I start scenario "desk" at "http://127.0.0.1:8000/windows/desk.html"
    When I enter frame "#faq"
    I define rule "navigations"
        When I enter frame ""
        When I enter frame "#faq"
            When I click locator "#more"
            When I open "http://127.0.0.1:8000/windows/guide.html"
            When I reload
            When I close the popup
        When I leave the frame
    I define rule "left twice"
        When I click locator "#guide" and switch to the popup
            When I leave the frame
        When I close the popup
        When I close the popup
        When I switch back from the popup
        When I click locator "" and switch to the popup    await=#x
        When I close the popup    now
    I define rule "ends in a keyword"
        Enter The Faq
        When I click locator "#more"
    I define rule "left in a keyword"
        When I enter frame "#pay"
            Leave The Frame
        When I leave the frame
    I define rule "ends in a group"
        GROUP    Half a frame
            When I enter frame "#faq"
        END
        When I click locator "#more"
    I define rule "never left"
        When I enter frame "#faq"
        When I click locator "#more"

Popup Left Open At The End
    [Setup]    Given I start scenario "desk" at "http://127.0.0.1:8000/windows/desk.html"
    I define rule "chat"
        When I click locator "#chat" and switch to the popup
        Then locator "#stars" is visible

*** Keywords ***
Enter The Faq
    When I enter frame "#faq"

Leave The Frame
    When I leave the frame
