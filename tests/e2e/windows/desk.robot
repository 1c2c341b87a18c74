*** Settings ***
Documentation     The help desk of popups.flow.yaml and frames.flow.yaml as a .robot suite: its guide
...               and its chat open in windows of their own, its questions live in an iframe of the
...               page's origin and its payment form in one of another origin.
Library           aitester_bdd.AITester

*** Test Cases ***
Guide And Chat
    [Setup]    Given I start scenario "windows" at "${BASE_URL}/windows/desk.html"
    I define rule "guide"
        When I click locator "#guide" and switch to the popup
            Then url contains "/windows/guide.html"
            When I click locator "#setup summary"
            Then locator "#setup p" is visible
        When I close the popup
        Then locator "h1" has text "Help desk"
    I define rule "chat"
        And I declare parents "guide"
        When I click locator "#chat" and switch to the popup
            When I select "5" from locator "#stars"
            When I click locator "#send"
            Then session storage "rated"    equals=5
        When I switch back from the popup
        Then locator "#rating" has text "rated 5"
        And js value "window.chat.closed"    equals=false

Questions And Payment
    [Setup]    Given I start scenario "frames" at "${BASE_URL}/windows/desk.html"
    I define rule "questions"
        When I enter frame "#faq"
            When I click locator "#more"
            Then locator "#questions li" has texts    How do I reset it?    Where is my order?    Can I return it?
        When I leave the frame
    I define rule "payment"
        When I enter frame "#pay"
            GROUP    Paying by card
                Pay With Card    4242 4242 4242 1881
            END
            Then locator "#last4" has text "1881"
            And local storage "paid"    equals=yes
        When I leave the frame
        Then local storage "paid"    absent=true
        And locator "h1" has text "Help desk"

*** Keywords ***
Pay With Card
    [Arguments]    ${number}
    When I type "${number}" into locator "#number"
    When I click locator "#pay-now"
