"""CI's small `--suite full`: the stand-in corpus (retrieval_full_standin.py) served from
127.0.0.1, fetched with `--fetch-only` into a temporary cache, then
`--suite full --offline` over every dataset, two scale tiers (the larger one also trying
IVF and HNSW) and every retrieval hard case, with the hash embedder.

    python tests/retrieval_full_ci.py [--out DIR] [extra gaia-eval flags]

Exits with the run's exit code."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from retrieval_fileserver import manifest_for, serve
from retrieval_full_standin import standin_files

from gaia_eval.cli.main import main

RAG = ["retrieval", "--component", "rag"]


def run(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="gaia-eval-full-ci-") as tmp:
        root = Path(tmp)
        os.environ["GAIA_EVAL_CACHE"] = str(root / "cache")
        files, layout = standin_files()
        with serve(files) as srv:
            manifest = manifest_for(srv, layout, root / "sources.json")
            rc = main([*RAG, "--fetch-only", "--sources", str(manifest), "--scale-tiers", "10,30"])
            if rc != 0:
                return rc
        out = [] if "--out" in argv else ["--out", str(root / "run")]
        return main(
            [*RAG, "--suite", "full", "--offline", "--sources", str(manifest), "--embedder",
             "hash", "--retrieval-only", "--no-vlm", "--scale-tiers", "10,30", "--ann-from",
             "30", *out, *argv]
        )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
