"""Reports: the emit.jsonl writer, the record reader, and every report rebuilt from emit.jsonl alone.

`emit.EmitWriter` and `console.ConsoleReporter` are event handlers during a run; after it,
`build.build_reports(out_dir)` reads emit.jsonl (`records.read_run`) and writes verdict.json,
junit.xml, summary.md and report.html. `merge.merge_reports` does the same for shard folders.
This package never imports the browser or the walker.
"""
