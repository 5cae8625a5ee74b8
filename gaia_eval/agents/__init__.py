"""What drives or contains a coding agent, shared by the suites that run one (tasks, code,
sessions): the harnesses, the child process and its tools, isolation and `--fence`,
workspaces and checkouts, the model gateway and its usage parsing, the billing meter,
routing, the offline `gh` stand-in. No suite's item logic lives here.
"""
