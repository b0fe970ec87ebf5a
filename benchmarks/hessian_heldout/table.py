"""Tabulate ``run.py`` and ``cli.py`` logs: ``python table.py API_LOG... --cli CLI_LOG``,
one markdown row per objective: n, true nonzeros, the sparse paths' stored count, a mark
per path (ok, or the first word of what went wrong) for NumPy / JAX, the CLI's."""

import re
import sys
from collections import defaultdict

__all__ = ["main"]


def main():
    argv = sys.argv[1:]
    cli = argv[argv.index("--cli") + 1 :] if "--cli" in argv else []
    api = argv[: argv.index("--cli")] if "--cli" in argv else argv
    head, marks, stored, cpu = {}, defaultdict(dict), defaultdict(set), defaultdict(dict)
    for path in api:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        for line in lines:
            m = re.match(r"(\S+)\s+n=(\d+) true nnz (\d+) tril (\d+)", line)
            if m:
                head[m[1]] = (int(m[2]), int(m[3]), int(m[4]))
                continue
            m = re.match(r"(\S+)\s+(np|jax)\s+(\S+)\s+([\d.]+)s (\S+)(.*)", line)
            if m:
                name, var, case, secs, word, rest = m.groups()
                marks[name][(var, case)] = word
                cpu[name][(var, case)] = float(secs)
                s = re.search(r"nnz (\d+)/(\d+)", rest)
                if s and "tril" not in case:
                    stored[name].add(int(s[1]))
    clim = defaultdict(dict)
    for path in cli:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        for line in lines:
            m = re.match(
                r"(\S+)\s+(hessian-sp|hessian-csp|hvp)\s+rc=(\S+)\s+cpu=\s*([\d.]+)(.*)", line
            )
            if m:
                name, key, rc, secs, rest = m.groups()
                word = f"rc={rc}" if rc != "0" else "WRONG" if "WRONG" in rest else "ok"
                word += " (wide)" if "WIDE" in rest else ""
                clim[name][key] = (word + (" NONDET" if "NONDET" in rest else ""), float(secs))
    print(
        "| objective | n | true nnz | stored (sparse paths) | NumPy paths | JAX paths "
        "| build CPU-s np / jax (hess) | CLI hessian --sparse / C / hvp (CPU-s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, (n, true, _) in head.items():
        row = []
        for var in ("np", "jax"):
            ws = [w for (v, _), w in marks[name].items() if v == var]
            bad = sorted(
                {f"{c}:{w}" for (v, c), w in marks[name].items() if v == var and w != "ok"}
            )
            row.append(f"{ws.count('ok')}/{len(ws)} ok" + (f" ({', '.join(bad)})" if bad else ""))
        t = [cpu[name].get((v, "hess"), float("nan")) for v in ("np", "jax")]
        c = clim.get(name, {})
        cl = " / ".join(
            f"{c[k][0]} {c[k][1]:.1f}" for k in ("hessian-sp", "hessian-csp", "hvp") if k in c
        )
        st = ", ".join(map(str, sorted(stored[name]))) or "-"
        print(
            f"| {name} | {n} | {true} | {st} | {row[0]} | {row[1]} "
            f"| {t[0]:.2f} / {t[1]:.2f} | {cl or '-'} |"
        )


if __name__ == "__main__":
    main()
