"""--compat ndeval matches topic ids as ndeval reads them, as numbers (reference/ndeval.md
§3.1, §3.3): a run's ``01`` and ``wt09-1`` are qrels topic ``1``; without the option ids are
strings and the message suggests it (issue 28)."""

from __future__ import annotations

import pytest
from support import run_cli

from divaeval.topics import ndeval_topic_number

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n"
RUN = "01 Q0 d1 1 2 r\n01 Q0 d2 2 1 r\nwt09-2 Q0 d3 1 1 r\n"
#: ndeval 4.5's output for these files (ndeval QRELS RUN), topics printed as numbers
NDEVAL = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,"
    "alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,"
    "P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20\n"
    + "".join(
        f"r,{topic},0.726172,0.721433,0.721348,1.000000,1.000000,1.000000,0.658554,0.649763,"
        "0.649540,1.000000,1.000000,1.000000,0.750000,1.000000,1.000000,0.200000,0.100000,"
        "0.050000,1.000000,1.000000,1.000000\n"
        for topic in ("1", "2", "amean")
    )
)


@pytest.mark.parametrize(
    ("text", "run", "number"),
    [
        ("1", False, 1),
        ("01", False, 1),
        ("007", True, 7),
        ("wt09-1", True, 1),
        ("wt09-1", False, None),  # a prefix only in a run
        ("q1", True, None),  # no '-': ndeval's syntax error
        ("a-b-3", True, None),  # up to the first '-' only
        ("-5", True, 5),
        ("1a", True, None),
        ("", True, None),
        ("١", True, None),  # a non-ASCII digit
    ],
)
def test_ndeval_topic_number(text, run, number):
    assert ndeval_topic_number(text, run=run) == number


@pytest.fixture
def inputs(tmp_path):
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(run), str(qrels)


def test_compat_ndeval_matches_topics_as_numbers(capsys, inputs):
    run, qrels = inputs
    code, out, err = run_cli(capsys, run, qrels, "--compat", "ndeval", "-f", "ndeval")
    assert code == 0
    assert out == NDEVAL
    assert err == (
        f"divaeval: warning: {run}: 2 topic ids match the qrels as numbers, as ndeval reads "
        "them (e.g. 01 = 1, wt09-2 = 2)\n"
    )


def test_string_ids_by_default_and_the_message_suggests_the_option(capsys, inputs):
    run, qrels = inputs
    code, out, err = run_cli(capsys, run, qrels, "-m", "P@1")
    assert code == 1 and out == ""
    hint = (
        "; read as numbers, as ndeval does, 2 of them are qrels topics (e.g. 01 = 1): "
        "--compat ndeval matches them so"
    )
    assert err.splitlines()[0].endswith("(e.g. 01, wt09-2); not evaluated" + hint)
    assert err.splitlines()[-1] == (
        f"divaeval: {run}: no topic of run r is in the qrels (qrels topics look like '1')" + hint
    )
    # topics equal as strings: no hint
    code, _, err = run_cli(capsys, run, qrels, "-m", "P@1", "--compat", "ndeval")
    assert code == 0 and "--compat ndeval matches" not in err
