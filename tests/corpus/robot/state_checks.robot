*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Todos
    [Setup]    Given I start scenario "todos" at "http://127.0.0.1:8000/"
    I define rule "state"
        When I type keys "buy milk" into locator "#new-todo"
        And I click locator "#clear" and answer the dialog    message=Clear every todo?    accept=false
        And I click locator "#rename" and answer the dialog    answer=oat milk
        Then local storage "theme"    equals=dark
        And session storage "visit"    path=user.name    matches=^ada
        And local storage "coupon"    absent=true
        And local storage keys starting with "todos-"    equals=2    where=completed=true
        And cookie "sid"    http_only=true    same_site=Strict    expires_after_s=3600
        And js value "window.app.todos.length"    equals=2
        And request to "/api/todos"    method=POST    body=title=buy milk    status=201
        And request to "/collect"    absent=true
