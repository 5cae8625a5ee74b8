"""`gaia-eval schema`: write (or check) the JSON Schema of every result model.

Every `gaia_eval/**/models.py` that defines `RESULT_MODELS: tuple[type[BaseModel], ...]`
(result files) or `INPUT_MODELS` (formats users write, such as the retrieval dataset file)
contributes one `<package>.<Model>.schema.json` per model. With `--check` nothing is
written: any difference from the committed files (changed, missing or stale) exits 1.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

NAME = "schema"
HELP = (
    "Regenerate (or --check) the committed JSON Schemas of the result files and of the "
    "dataset format."
)

SUFFIX = ".schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=Path, default=Path("schemas"), help="folder of the schema files (schemas)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the files differ from the models",
    )


def model_modules() -> list[str]:
    """Dotted names of every models.py module in the package, in path order."""
    import gaia_eval

    root = Path(gaia_eval.__file__).parent
    names = ["gaia_eval.core.results"]  # the envelope every results.json shares
    for path in sorted(root.rglob("models.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        if any(part.startswith((".", "_")) for part in rel.parts[1:]):
            continue
        names.append(".".join(rel.parts))
    return names


def expected_files() -> dict[str, str]:
    """{file name: JSON text} for every result model."""
    from pydantic import BaseModel

    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.results_io import dumps_json

    files: dict[str, str] = {}
    for name in model_modules():
        mod = importlib.import_module(name)
        for attr in ("RESULT_MODELS", "INPUT_MODELS"):
            models = getattr(mod, attr, None)
            if models is None:
                continue
            if not isinstance(models, tuple) or not all(
                isinstance(m, type) and issubclass(m, BaseModel) for m in models
            ):
                msg = f"{name}.{attr} must be a tuple of pydantic model classes"
                raise InvalidInputError(msg)
            package = (
                name.removeprefix("gaia_eval.").removesuffix(".models").removesuffix(".results")
            )
            for model in models:
                schema: dict[str, Any] = {"$schema": DIALECT, **model.model_json_schema()}
                files[f"{package}.{model.__name__}{SUFFIX}"] = dumps_json(schema, indent=2)
    return files


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import GateFailedError
    from gaia_eval.core.results_io import write_text

    out: Path = args.out
    want = expected_files()
    have = {p.name: p for p in out.glob(f"*{SUFFIX}")} if out.is_dir() else {}
    changed = sorted(n for n in want if n in have and have[n].read_text("utf-8") != want[n])
    missing = sorted(n for n in want if n not in have)
    stale = sorted(n for n in have if n not in want)
    if args.check:
        if changed or missing or stale:
            parts = [
                f"{label}: {', '.join(names)}"
                for label, names in (("changed", changed), ("missing", missing), ("stale", stale))
                if names
            ]
            msg = (
                f"{out}: JSON Schemas drifted from the result models ({'; '.join(parts)}); "
                f"run `nox -s schema` (gaia-eval schema --out {out}) and commit the files"
            )
            raise GateFailedError(msg)
        print(f"{out}: {len(want)} schema(s) up to date")
        return 0
    for name in changed + missing:
        write_text(out / name, want[name])
    for name in stale:
        have[name].unlink()
    print(
        f"{out}: {len(want)} schema(s); wrote {len(changed) + len(missing)}, "
        f"removed {len(stale)} stale"
    )
    return 0
