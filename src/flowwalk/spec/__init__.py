"""Reading inputs: flow specs, rule files, aitester-bdd suites and `flowwalk.yaml` into `model.Suite`.

`source` parses YAML/JSON keeping a position for every node, `models` holds the pydantic models of
every input format, `flow` / `rules` / `config` turn validated input into the internal model,
`variables` resolves and redacts `{{NAME}}` placeholders, `loader` finds and loads files, and
`schemas` writes the JSON Schemas generated from the models. Nothing heavy is imported here, so
that `import flowwalk.spec.variables` stays cheap for the walker.
"""
