*** Settings ***
Library           aitester_bdd.AITester

*** Variables ***
${PW}             hunter2

*** Test Cases ***
Lists
    [Setup]    Given I start scenario "lists" at "http://127.0.0.1:8000/"
    I define rule "add"
        When I type secret "${PW}" into locator "#pw"
        Then locator "#todo-list li" contains texts
        And locator "#todo-list li" has texts    ${PW}
        And locator "" has classes    completed
