*** Settings ***
Documentation     A suite half moved from SeleniumLibrary and the Browser library: the calls of
...               their keywords are refused, each with the aitester-bdd call that does the same.
Library           SeleniumLibrary
Library           aitester_bdd.AITester

*** Variables ***
${BASE_URL}       http://localhost:5173
${PASSWORD}       placeholder

*** Test Cases ***
Sign In And Check The Cart
    [Setup]    Given I start scenario "cart" at "${BASE_URL}/login"
    I define rule "sign_in"
        Input Text    id=username    admin
        Input Password    name=password    ${PASSWORD}
        Click Button    css:button[type=submit]
        Wait Until Location Contains    /dashboard
        Element Should Be Visible    xpath=//header//img[@alt="avatar"]
        Element Should Be Visible    xpath=//header//nav
    I define rule "cart"
        And I declare parents "sign_in"
        Go To    ${BASE_URL}/cart
        Select From List By Label    id=shipping    Express
        Select Checkbox    id=gift-wrap
        Element Text Should Be    css:.total    42.00 EUR
        Page Should Contain    Free returns
        Page Should Not Contain Element    class=error
        Click Link    link=Checkout
        Get Text    \#summary    *=    3 items
        Get Element Count    .line-item    ==    3
        Wait For Elements State    \#pay    enabled
        Wait For Elements State    \#pay    stable
        Then locator "#pay" is enabled
