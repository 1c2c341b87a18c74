"""Everything between a finished report folder and the pull request.

`env` reads the Actions environment once into `GitHubSettings`; `client` is the only module that
talks HTTP to GitHub; `comment` renders and keeps the one sticky verdict comment; `actions` writes
the job summary, step outputs, annotations, check run and commit status; `publish` ties them
together for `flowwalk publish`; `inputs` is the table of the Action's inputs; `entrypoint` is
what the Action's container runs.
"""
