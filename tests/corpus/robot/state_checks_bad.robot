*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Todos
    [Setup]    Given I start scenario "todos" at "http://127.0.0.1:8000/"
    I define rule "state"
        When I click locator "#clear" and answer the dialog    accept=no
        And I click locator "#clear" and answer the dialog    accept=false    answer=oat milk
        Then local storage "theme"
        And local storage "theme"    equals=dark    contains=da
        And session storage "visit"    path=user    absent=true
        And local storage keys starting with "todos-"    equals=two
        And local storage keys starting with "todos-"    where=completed
        And cookie "sid"    same_site=strict
        And js value "window.app"    equal=2
        And request to "/api/todos"    status=ok
        And request to "/api/todos"    absent=true    status=201
