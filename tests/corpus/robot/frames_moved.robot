*** Settings ***
Documentation     A help desk suite half moved from SeleniumLibrary and the Browser library: its frame
...               and window switches are refused, each with the calls that do the same.
Library           SeleniumLibrary
Library           aitester_bdd.AITester

*** Test Cases ***
Help Desk
    [Setup]    Given I start scenario "desk" at "http://127.0.0.1:8000/windows/desk.html"
    I define rule "guide"
        Click Element    id=guide
        Switch Window    NEW
        Then url contains "/windows/guide.html"
        Close Window
        Switch Window    MAIN
    I define rule "chat"
        Click Button    id=chat
        Switch Window    locator=NEW
        Select From List By Value    id=stars    5
        Switch Window
        Then locator "#rating" has text "rated 5"
    I define rule "frames"
        Select Frame    id=faq
        Click Element    id=more
        Unselect Frame
        Fill Text    id=pay >>> \#number    4242 4242 4242 1881
        Click    css=#pay >>> text=Pay
        Get Text    id=pay >>> \#last4    ==    1881
        Switch Page    NEW
        Select Frame    dom=window.frames[0]
