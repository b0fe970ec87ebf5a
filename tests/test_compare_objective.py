"""``compare(..., objective=)`` and ``dgraph compare --objective``: the marked winner and
``best``'s search follow the objective, effective mults first by default or structural
first; an unknown objective is refused."""

from __future__ import annotations

import json

import pytest

from dgraph.bench.realworld import REAL_WORLD
from dgraph.cli import main
from dgraph.errors import InputError
from dgraph.frontends import bundled
from dgraph.methods import compare

THREE = ["forward", "reverse", "markowitz"]


@pytest.fixture(scope="module")
def heart():
    """The heart dipole: reverse is cheapest in effective mults (24), Markowitz in
    structural (102)."""
    return REAL_WORLD["heart-dipole"]()


def test_the_objective_picks_the_winner(heart):
    effective = compare(heart, THREE)
    structural = compare(heart, THREE, objective="structural")
    mults = {m: (es.mults, es.mults_effective) for m, es in effective.results.items()}
    assert mults == {"forward": (106, 28), "reverse": (112, 24), "markowitz": (102, 28)}
    assert (effective.best, structural.best) == ("reverse", "markowitz")
    assert effective.to_dict()["objective"] == "effective"
    assert structural.to_dict()["objective"] == "structural"
    assert structural.to_text().splitlines()[-1] == "best: markowitz (structural mults first)"
    assert effective.to_text().splitlines()[-1] == "best: reverse"
    bold = [line for line in structural.to_markdown().splitlines() if "**" in line]
    assert len(bold) == 1 and bold[0].startswith("| **markowitz**")


def test_best_searches_in_the_compared_objective():
    graph = bundled("spherical_coordinates.trace")
    comparison = compare(graph, [*THREE, "best"], budget=4, objective="structural")
    found = comparison.results["best"]
    assert found.verified and found.info["objective"] == "structural"
    assert found.mults <= min(es.mults for es in comparison.results.values())
    assert comparison.cheapest.mults == found.mults


def test_an_unknown_objective_is_refused(heart):
    with pytest.raises(InputError, match="unknown objective 'fewest'"):
        compare(heart, THREE, objective="fewest")


def test_the_command_line_takes_the_objective(heart, tmp_path, capsys):
    path = tmp_path / "heart.json"
    path.write_text(heart.to_json())
    picked = {}
    for objective in (None, "structural", "effective"):
        argv = ["compare", str(path), "--methods", ",".join(THREE), "--json"]
        argv += [] if objective is None else ["--objective", objective]
        assert main(argv) == 0
        data = json.loads(capsys.readouterr().out)
        picked[objective] = (data["objective"], data["best"])
    assert picked == {
        None: ("effective", "reverse"),
        "structural": ("structural", "markowitz"),
        "effective": ("effective", "reverse"),
    }
