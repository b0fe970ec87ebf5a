"""The peers' own test functions (tests/peers/: Graphax's, asdex's and sparsejac's, each
at its own test point, float64) through ``from_jax(level="array")`` and
``make_function`` in python and jax, dense and sparse, against JAX's
``jacrev``/``jacfwd``: a markdown table of the outcomes by category, the refusals with
their messages and every case that is not right or refused, for benchmarks/RESULTS.md.

    python benchmarks/peers.py [NAME-SUBSTRING ...]
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.peers import CASES
from tests.peers.harness import CATEGORIES, COMBOS, run


def main(patterns: list[str]) -> None:
    warnings.filterwarnings("ignore")
    cases = [c for c in CASES if not patterns or any(p in c.name for p in patterns)]
    counts: dict[str, Counter] = defaultdict(Counter)
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for case in cases:
        for lang, sparse in COMBOS:
            outcome = run(case, lang, sparse)
            combo = f"{lang} {'sparse' if sparse else 'dense'}"
            counts[combo][outcome.category] += 1
            found[outcome.category].append((case.name, combo, outcome.message))
            print(f"{case.name:42s} {combo:14s} {outcome.category}", file=sys.stderr, flush=True)
    print(f"{len(cases)} functions × {len(COMBOS)} (python/jax × dense/sparse)\n")
    print("| | " + " | ".join(CATEGORIES) + " |")
    print("|---|" + "---:|" * len(CATEGORIES))
    for combo in (f"{lang} {'sparse' if sparse else 'dense'}" for lang, sparse in COMBOS):
        print(f"| {combo} | " + " | ".join(str(counts[combo][c]) for c in CATEGORIES) + " |")
    total = Counter()
    for c in counts.values():
        total.update(c)
    print("| **all** | " + " | ".join(f"**{total[c]}**" for c in CATEGORIES) + " |")
    for category in CATEGORIES[1:]:
        if not found[category]:
            continue
        print(f"\n**{category}** ({len(found[category])}):\n")
        by_message: dict[str, list[str]] = defaultdict(list)
        for name, combo, message in found[category]:
            by_message[_generic(message, name)].append(f"{name} ({combo})")
        for message, where in sorted(by_message.items(), key=lambda kv: -len(kv[1])):
            print(f"- {message or '(no message)'} — {len(where)}: {_short(where)}")


def _generic(message: str, name: str) -> str:
    """The message without the function's own name (so that equal refusals group)."""
    short = name.split("/")[-1]
    message = message.split(" (d")[0]  # a wrong one's block named apart
    return message.replace(f"{short}: ", "", 1) if message.startswith(short) else message


def _short(where: list[str]) -> str:
    names = sorted({w.split(" (")[0] for w in where})
    return ", ".join(names[:12]) + (f", … ({len(names) - 12} more)" if len(names) > 12 else "")


if __name__ == "__main__":
    main(sys.argv[1:])
