"""The repository's ``.pre-commit-hooks.yaml``: the ``divaeval-check`` hook run by pre-commit's
own ``try-repo`` on a throwaway git repository with a good and a bad run (and a file the hook's
``files:`` pattern leaves alone)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from support import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")

GOOD = "".join(f"{t} Q0 d{t}-{i} {i} {100 - i}.5 good_run\n" for t in (1, 2) for i in range(1, 4))
# line 2 repeats d1; line 3's rank is not an integer
BAD = "1 Q0 d1 1 2.0 bad\n1 Q0 d1 2 1.0 bad\n1 Q0 d3 x 0.5 bad\n"


def test_hook_manifest():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert (hook["id"], hook["entry"], hook["language"]) == (
        "divaeval-check",
        "divaeval check",
        "python",
    )


def test_try_repo_fails_on_the_bad_run_only(tmp_path):
    repo = tmp_path / "repo"
    (repo / "runs").mkdir(parents=True)
    (repo / "runs" / "good.txt").write_text(GOOD)
    (repo / "submission").mkdir()
    (repo / "submission" / "bad.run").write_text(BAD)
    (repo / "notes.txt").write_text(BAD)  # not a run file by the hook's pattern
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        # the hook's virtualenv sees the packages installed here (no download of numpy & co.)
        "VIRTUALENV_SYSTEM_SITE_PACKAGES": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    if importlib.util.find_spec("setuptools") is not None:
        # and the repository is built offline, by the setuptools installed here
        env |= {"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0"}
    for command in (["git", "init", "-q", "."], ["git", "add", "."]):
        subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "divaeval-check",
         "--all-files", "--color", "never"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "- hook id: divaeval-check\n- exit code: 4" in out
    assert "submission/bad.run:2: error: docno d1 is repeated in topic 1 (first at line 1)" in out
    assert "submission/bad.run:3: error: rank 'x' is not an integer" in out
    assert "runs/good.txt: 0 errors, 0 warnings: passed" in out
    assert "submission/bad.run: 2 errors, 0 warnings: failed" in out
    assert "notes.txt" not in out
