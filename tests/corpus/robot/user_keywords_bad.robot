*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Todos
    [Setup]    Given I start scenario "todos" at "http://127.0.0.1:8000/"
    I define rule "add"
        Add Todo
        Add Todo    a    b    c
        Add Todo    field=#x    b
        Ping
        GROUP
            When I click locator "#x"
        END

*** Keywords ***
Add Todo
    [Arguments]    ${title}    ${field}=#new-todo    &{options}
    When I type "${title}" into locator "${field}"

Ping
    Pong

Pong
    Ping

${what} Todo
    When I click locator "#x"

Each Todo
    FOR    ${t}    IN    a    b
        Add Todo    ${t}
    END
