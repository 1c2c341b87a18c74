*** Settings ***
Documentation     Frames and popups: the steps between entering and leaving run in the iframe or the popup.
Library           aitester_bdd.AITester

*** Test Cases ***
Help Desk
    [Setup]    Given I start scenario "desk" at "http://127.0.0.1:8000/windows/desk.html"
    I define rule "guide"
        When I click locator "#guide" and switch to the popup
        Then url contains "/windows/guide.html"
        When I enter frame "#video"
            When I click locator "button.play"
        And I leave the frame
        When I close the popup
        Then locator "h1" has text "Help desk"
    I define rule "chat"
        When I click locator "#chat" and switch to the popup
        When I switch back from the popup
        When I click locator "#chat" and switch to the popup
            Rate The Chat    5
        When I switch back from the popup
        Then locator "#rating" has text "rated 5"
    I define rule "pay"
        When I enter frame "#pay"
            GROUP    Paying
                Pay With    4242 4242 4242 1881
            END
            Then locator "#last4" has text "1881"
        When I leave the frame
        Then local storage "paid"    absent=true

*** Keywords ***
Rate The Chat
    [Arguments]    ${stars}
    When I select "${stars}" from locator "#stars"
    When I click locator "#send"

Pay With
    [Arguments]    ${number}
    When I type "${number}" into locator "#number"
    When I enter frame "#three-d-secure"
    When I click locator "text=Confirm"
    When I leave the frame
    When I click locator "#pay-button"
