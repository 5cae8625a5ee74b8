"""The evidence kernel's portable paths (no AVX2) against the same oracles.

This machine has AVX2, so the block paths run everywhere else in the tests; here the
whole evidence test file runs again in a child process with GAIA_EVAL_NO_AVX2=1, the
switch the kernel reads once at first use.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_eval import _native


@pytest.mark.skipif(os.environ.get("GAIA_EVAL_NO_AVX2") == "1", reason="already the child")
def test_evidence_oracles_pass_without_avx2() -> None:
    here = Path(__file__).with_name("test_evidence.py")
    env = {**os.environ, "GAIA_EVAL_NO_AVX2": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(here)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout


def test_switch_is_read_by_the_kernel() -> None:
    """The child above really takes the portable paths, and gets the same answers."""
    code = (
        "from gaia_eval import _native as n;"
        "d = n.evidence_document('a\\xa0 b\\x85\\x1c[Page 7] ' * 50);"
        "print(n.evidence_uses_avx2(), d.markers()[:2],"
        " n.evidence_find('xy' * 400 + 'z' * 300, 'y' + 'z' * 300, 0, 10**6))"
    )
    outs = {}
    for value in ("1", "0"):
        env = {**os.environ, "GAIA_EVAL_NO_AVX2": value}
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs[value] = run.stdout
    assert outs["1"] == "False [(4, 7), (17, 7)] 799\n"
    if not _native.evidence_uses_avx2():
        pytest.skip("this CPU has no AVX2: only the portable paths exist here")
    assert outs["0"] == "True [(4, 7), (17, 7)] 799\n"
