"""Planning a run: the rule DAG order (`dag`), the frozen plan (`model`) and sharding (`shard`)."""
