*** Settings ***
Documentation     A suite's own keywords and GROUP blocks: each call's steps nest under the keyword,
...               each group's under its name, in the reports.
Library           aitester_bdd.AITester
Suite Setup       Given I start verification "todos"

*** Variables ***
${APP}            http://127.0.0.1:8000/examples/backbone/index.html

*** Test Cases ***
Two todos
    [Setup]    Given I start scenario "todos" at "${APP}"
    I define rule "add"
        GROUP    Adding the default todos
            When Add Todo    buy some cheese
            And Add Todo    title=feed the cat
        END
        Then Todo Count Is    2
        And locator "#todo-list li label" has texts    buy some cheese    feed the cat
        And locator "#todo-list li" has classes    ${EMPTY}    ${EMPTY}
        And locator "#todo-list li" contains texts    cat

*** Keywords ***
Add Todo
    [Arguments]    ${title}    ${field}=#new-todo
    [Documentation]    Type a todo into the field and press Enter.
    When I type "${title}" into locator "${field}"
    When I press keys "${field}"    Enter

Todo Count Is
    [Arguments]    ${n}
    Then count of locator "#todo-list li" equals ${n}
    And locator "#todo-count" contains "${n}"
