"""The work behind `gaia-eval code gate|report|list` (the CLI, cli/code.py, only parses);
`code run` is the suite on the engine (gaia_eval/code_bench/options.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.errors import EXIT_OK, InvalidInputError
from gaia_eval.core.launch import resolve_baseline


def _load(folder: Path) -> tuple[object, Path]:
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.results import load_envelope

    path = folder / "results.json" if folder.is_dir() else folder
    return load_envelope(path, suite=CodeBenchSuite.name), path.parent


def cmd_gate(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.gate import compare
    from gaia_eval.core.report import terminal_summary
    from gaia_eval.core.results import Envelope
    from gaia_eval.core.runloop import load_baseline, write_outputs

    env, folder = _load(args.dir)
    assert isinstance(env, Envelope)
    path, label = resolve_baseline(args.baseline, CodeBenchSuite.name)
    baseline = load_baseline(path, label, CodeBenchSuite)
    env.verdict = compare(CodeBenchSuite, baseline, env, tolerance=args.tolerance, label=label)
    paths = write_outputs(CodeBenchSuite, folder, env)
    for line in terminal_summary(CodeBenchSuite, env):
        print(line)
    for kind, p in paths.items():
        print(f"  {kind}: {p}")
    from gaia_eval.core.gate import exit_code as gate_exit_code

    return gate_exit_code(env.verdict)


def cmd_report(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.models import CodeSummary
    from gaia_eval.code_bench.report import comparison
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.report import Section, page_html, page_markdown
    from gaia_eval.core.results import Envelope
    from gaia_eval.core.results_io import write_text
    from gaia_eval.core.runloop import write_outputs

    loaded = [_load(d) for d in args.dirs]
    if len(loaded) == 1 and args.out is None:
        env, folder = loaded[0]
        assert isinstance(env, Envelope)
        for kind, p in write_outputs(CodeBenchSuite, folder, env).items():
            print(f"  {kind}: {p}")
        return EXIT_OK
    if args.out is None:
        msg = "--out DIR is required to compare several runs (the comparison's report folder)"
        raise InvalidInputError(msg)
    rows = []
    for env, folder in loaded:
        assert isinstance(env, Envelope)
        s = CodeSummary.model_validate(env.summary)
        rows.append((str(folder), env.header.system or "", env.header.model or "", s))
    sections = [Section("Runs", [comparison(rows)])]
    title = "Code benchmark — runs compared"
    args.out.mkdir(parents=True, exist_ok=True)
    md = write_text(args.out / "report.md", page_markdown(title, "", sections))
    html = write_text(args.out / "report.html", page_html(title, "", sections))
    print(page_markdown(title, "", sections))
    print(f"  report: {md}\n  html: {html}")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.definitions import load_tasks

    tasks = load_tasks(args.tasks_dir.resolve() if args.tasks_dir else None)
    width = max(len(t.id) for t in tasks)
    for t in tasks:
        print(f"{t.id:<{width}}  {t.kind:<10}  {t.category}: {t.summary}")
    print(f"{len(tasks)} tasks")
    return EXIT_OK
