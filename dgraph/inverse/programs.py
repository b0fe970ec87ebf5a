"""Square straight-line programs as traces: constant width, with temporaries, relaxations.

For tests, benchmarks and examples of inverse accumulation. Every program has inputs
``x0 … x{n-1}`` and outputs ``y0 … y{n-1}``; a statement overwrites one slot (the last
write to slot i is named ``y<i>``; a slot never written is copied, ``y<i> = x<i>``). Read
them with ``dgraph.from_trace(text, "statement")``.
"""

from __future__ import annotations

import random

from ..errors import InputError

__all__ = [
    "FIGURE_4",
    "constant_width_program",
    "program_with_temporaries",
    "relaxation_program",
]

# Pearlmutter & Siskind, Fig. 4: ordered t1 t2 y1 y2 it is one lump (l = k = 2);
# ordered t1 y1 t2 y2 it is two lumps with l = k = 1.
FIGURE_4 = """\
inputs: x1, x2
outputs: y1, y2
t1 = exp(x1)
t2 = exp(x2)
y1 = x1*t1
y2 = x2*t2
"""

# Updates of slot r reading 0, 1 or 2 other slots: ∂/∂r never vanishes for real values,
# and values grow at most geometrically.
_UPDATES = (
    ("{r} + tanh({r})", "{r} + sin({r})/2", "2*{r} + sin({r})"),
    (
        "{r}*(2 + sin({s0}))",
        "{r} + sin({s0})",
        "{r}/(2 + cos({s0}))",
        "atan({r}) + {s0}",
        "{r} + {s0}/(1 + {s0}**2)",
    ),
    ("{r} + sin({s0})*{s1}", "{r}*(2 + cos({s0}*{s1}))", "2*{r} - tanh({s0})*{s1}"),
)
_TEMPORARIES = ("sin({s0})*{s1}", "tanh({s0}) + {s1}", "{s0}*{s1}", "cos({s0})")
_CONSUMERS = ("{r}*(2 + sin({t}))", "{r} + tanh({t})*{s0}", "{r}*(2 + cos({t}))")


def _render(n: int, statements: list[tuple[int | None, str, list[str]]]) -> str:
    """Trace text: statements (slot or None for a temporary, template, slots/temps read)."""
    last = {slot: k for k, (slot, _, _) in enumerate(statements) if slot is not None}
    current = {f"x{i}": f"x{i}" for i in range(n)}
    lines = [f"inputs: {', '.join(f'x{i}' for i in range(n))}"]
    lines.append(f"outputs: {', '.join(f'y{i}' for i in range(n))}")
    for k, (slot, template, names) in enumerate(statements):
        rendered = [current.get(name, name) for name in names]
        if slot is None:  # a temporary, named by its template's first name
            lines.append(f"{names[-1]} = {template.format(*rendered[:-1])}")
            continue
        fields = {"r": current[f"x{slot}"]}
        fields.update({f"s{j}": v for j, v in enumerate(rendered)})
        target = f"y{slot}" if last[slot] == k else f"x{slot}"
        lines.append(f"{target} = {template.format_map(fields)}")
        current[f"x{slot}"] = target
    lines += [f"y{i} = x{i}" for i in range(n) if i not in last]
    return "\n".join(lines) + "\n"


def constant_width_program(n: int, steps: int, seed: int = 0) -> str:
    """A random program that keeps n values live: every statement overwrites one slot.

    >>> print(constant_width_program(2, 3, seed=1), end="")
    inputs: x0, x1
    outputs: y0, y1
    x0 = x0 + sin(x0)/2
    y0 = atan(x0) + x1
    y1 = x1 + tanh(x1)
    """
    rng = random.Random(seed)
    statements: list[tuple[int | None, str, list[str]]] = []
    for _ in range(steps):
        r = rng.randrange(n)
        others = [f"x{i}" for i in range(n) if i != r]
        arity = rng.randint(0, min(2, len(others)))
        template = rng.choice(_UPDATES[arity])
        statements.append((r, template, rng.sample(others, arity)))
    return _render(n, statements)


def program_with_temporaries(n: int, steps: int, seed: int = 0, keep: float = 0.5) -> str:
    """A random program whose temporaries raise the width above n for a while.

    A temporary reads one or two slots; a later update of some slot consumes it. With
    probability ``keep`` a temporary waits for more statements before it is consumed, so
    the lumps depend on the order chosen.
    """
    rng = random.Random(seed)
    statements: list[tuple[int | None, str, list[str]]] = []
    pending: list[str] = []
    made = 0
    for _ in range(steps):
        r = rng.randrange(n)
        others = [f"x{i}" for i in range(n) if i != r]
        if rng.random() < 0.5:
            made += 1
            template = rng.choice(_TEMPORARIES)
            read = [f"x{rng.randrange(n)}" for _ in range(template.count("{s"))]
            template = template.replace("{s0}", "{0}").replace("{s1}", "{1}")
            statements.append((None, template, [*read, f"t{made}"]))
            pending.append(f"t{made}")
        if pending and rng.random() > keep:
            t = pending.pop(rng.randrange(len(pending)))
            template = rng.choice(_CONSUMERS).replace("{t}", t)
            statements.append((r, template, rng.sample(others, min(1, len(others)))))
        else:
            arity = rng.randint(0, min(2, len(others)))
            statements.append((r, rng.choice(_UPDATES[arity]), rng.sample(others, arity)))
    for t in pending:
        r = rng.randrange(n)
        others = [f"x{i}" for i in range(n) if i != r]
        template = rng.choice(_CONSUMERS).replace("{t}", t)
        statements.append((r, template, rng.sample(others, min(1, len(others)))))
    return _render(n, statements)


def relaxation_program(n: int, sweeps: int = 3, temporaries: bool = False) -> str:
    """Gauss–Seidel sweeps ``x_i += atan(x_i)/10 + sin(x_{i-1} + x_{i+1})/20`` on a ring.

    Constant width (3 edges into every update); with ``temporaries`` the sine is its own
    statement, so each update is a lump of two vertices with l = 1 and k = 3.
    """
    if n < 2:
        raise InputError("a relaxation ring needs n >= 2")
    statements: list[tuple[int | None, str, list[str]]] = []
    for sweep in range(sweeps):
        for i in range(n):
            near = [f"x{(i - 1) % n}", f"x{(i + 1) % n}"]
            if temporaries:
                t = f"t{sweep}_{i}"
                statements.append((None, "sin({0} + {1})", [*near, t]))
                statements.append((i, f"{{r}} + atan({{r}})/10 + {t}/20", []))
            else:
                statements.append((i, "{r} + atan({r})/10 + sin({s0} + {s1})/20", near))
    return _render(n, statements)
