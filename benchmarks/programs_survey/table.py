"""Programs x commands from the survey's logs in FOLDER: cli1.log/api1.log the first
runs (before the fixes), cli2.log (rows run again) and api2.log the final ones:
``python table.py FOLDER``."""

import os
import re
import sys

from common import NAMES

CLI_GROUPS = [
    ("structure", ["structure"]),
    ("accumulate (default, markowitz, reverse)", ["accumulate", "acc-markowitz", "acc-reverse"]),
    ("compare", ["compare"]),
    ("faces", ["faces"]),
    ("render .svg", ["render"]),
    ("codegen py, jax, --sparse", ["codegen-py", "codegen-jax", "codegen-sparse"]),
    ("codegen .c", ["codegen-c"]),
    ("codegen hessian/hvp .py", ["hessian-py", "hvp-py"]),
    ("codegen hessian .c", ["hessian-c"]),
    ("accumulate --hessian", ["acc-hessian"]),
]
API_GROUPS = [
    ("dgraph.jacobian", ["accum"]),
    (
        "make_function jacobian (py, sparse, c, c sparse, jax)",
        ["jacobian", "jacobian-sp", "jacobian-c", "jacobian-csp", "jacobian-jax"],
    ),
    ("jvp, vjp (py)", ["jvp", "vjp"]),
    ("jvp, vjp (c)", ["jvp-c", "vjp-c"]),
    ("dgraph.hessian (py, sparse, c, jax), hvp", ["hess", "hess-sp", "hess-c", "hess-jax", "hvp"]),
]


def cli_state(line):
    if line is None:
        return None
    rc = re.search(r"rc=(\S+)", line).group(1)
    if rc == "0":
        return "ok"
    if rc == "2":
        return "ref"
    if rc == "1" and "internal error" not in line:  # exit 1: the result is not verified
        return "unverified"
    return "ERR"


def api_state(line):
    if line is None:
        return None
    rest = line.split(None, 4)[4] if len(line.split(None, 4)) > 4 else ""
    if rest.startswith("skip (params)"):  # dgraph.jacobian took no params= then
        return "ref"
    if rest.startswith("skip"):
        return "-"
    if rest.startswith("ok") or rest.startswith("verified=True"):
        return "ok" if "verified=False" not in rest else "unverified"
    if rest.startswith("NAN"):  # a NaN in the result or in JAX's reference (survey47)
        return "NaN"
    if rest.startswith("WRONG"):
        return "WRONG"
    if rest.startswith("REFUSED"):
        return "ref"
    if "verified=False" in rest:
        return "unverified"
    return "ERR"


def read(path, kind):
    found = {}
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        if kind == "cli":
            found[(parts[0], parts[1])] = line
        else:
            found[(parts[0], parts[1], parts[2])] = line
    return found


def logs(folder, kind, first, final):
    """The first run of each row (the first log that has it) and the final one (the
    last): cli3/cli4 and api4 hold the ten programs added later; cli2, cli4 and api3
    rows run again after a fix."""
    before, after = {}, {}
    for name in first:
        path = f"{folder}/{name}.log"
        if os.path.exists(path):
            for key, line in read(path, kind).items():
                before.setdefault(key, line)
    for name in final:
        path = f"{folder}/{name}.log"
        if os.path.exists(path):
            after.update(read(path, kind))
    return before, after


def merge(states):
    states = [s for s in states if s not in (None, "-")]
    if not states:
        return "-"
    for bad in ("ERR", "WRONG", "NaN", "SLOW", "unverified", "ref"):
        if bad in states:
            return bad if all(s == bad for s in states) or bad != "ref" else "ok/ref"
    return "ok"


def cell(before, after):
    if after == before or "-" in (before, after):
        return after
    if after == "ok" and before != "ok":
        return f"fixed ({before})"
    return f"{after} (was {before})"


# cli1.log ran these after their fix was in the tree; the base tree (41bb1d24) refused
# each at reading: the argument E, the spline's positions, np.interp of traced fp
REFUSED_BEFORE = {"embed", "spline", "interp", "bilinear"}
REFUSED_BEFORE_API = {("bilinear", "np")}  # img[i, j] (its first run, interactive)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    cli1, cli2 = logs(folder, "cli", ("cli1", "cli3", "cli4"), ("cli1", "cli3", "cli2", "cli4"))
    api1, api2 = logs(folder, "api", ("api1", "api4"), ("api2", "api4", "api3"))
    head = ["program"] + [g for g, _ in CLI_GROUPS] + [g for g, _ in API_GROUPS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in NAMES:
        row = [n]
        for _, keys in CLI_GROUPS:
            after = merge([cli_state(cli2.get((n, k)) or cli1.get((n, k))) for k in keys])
            before = merge([cli_state(cli1.get((n, k))) for k in keys])
            if n in REFUSED_BEFORE:  # the base tree refused the program in every command
                before = "ref"
            elif any("ndtri" in (cli1.get((n, k)) or "") for k in keys):
                before = after  # run while another tree's files were in place
            row.append(cell(before, after))
        for _, keys in API_GROUPS:
            cells = []
            for v in ("np", "jax"):
                after = merge([api_state(api2.get((n, v, k))) for k in keys])
                first = [api1.get((n, v, k)) if k != "hvp" else api2.get((n, v, k)) for k in keys]
                before = merge([api_state(line) for line in first])  # hvp: the harness's
                if (n, v) in REFUSED_BEFORE_API:
                    before = "ref"
                elif not any(first):  # a program added later: its one run
                    before = after
                cells.append(cell(before, after) if after != "-" else "-")
            row.append(" / ".join(cells))
        print("| " + " | ".join(row) + " |")


SESSIONS = (["41"], ["42"], ["43"], ["44"], ["45"], ["46"], ["47"], ["48"], ["55"])
if __name__ == "__main__" and sys.argv[2:] not in SESSIONS:
    sys.exit(main())


def main41(folder, session="41"):
    """Session 41's table (``python table.py FOLDER 41``; 42's, 43's with ``42``, ``43``):
    its programs (NAMES41, NAMES42, NAMES43) from api1.log/cli1.log (the first runs) and
    api2.log, api3.log, cli2.log (rows run again after a fix), then each command's median
    CPU-s over the programs."""
    from statistics import median

    import common

    NAMES41 = {"41": common.NAMES41, "42": common.NAMES42, "43": common.NAMES43,
               "44": common.NAMES44, "45": common.NAMES45,
               "46": common.NAMES46, "47": common.NAMES47,
               "48": common.NAMES48, "55": common.NAMES55}[session]  # fmt: skip
    refused = {"41": REFUSED_BEFORE_41, "42": REFUSED_BEFORE_42, "44": REFUSED_BEFORE_44,
               "45": REFUSED_BEFORE_45}.get(session, set())  # fmt: skip
    refused_jac = REFUSED_BEFORE_45_JAC if session == "45" else set()
    slow = SLOW_BEFORE_41 if session == "41" else set()

    before_cli = read(f"{folder}/cli1.log", "cli")
    after_cli = dict(before_cli)
    if os.path.exists(f"{folder}/cli2.log"):
        after_cli.update(read(f"{folder}/cli2.log", "cli"))

    def state(line):  # a run past cli.py's 300 s limit: SLOW
        return "SLOW" if line and "rc=HANG" in line else cli_state(line)

    before_api = read(f"{folder}/api1.log", "api")
    timeouts = set()  # api.py's runs past their limit: "NAME TIMEOUT/rc=124"
    with open(f"{folder}/api1.log", encoding="utf-8") as fh:
        timeouts = {tuple(line.split()) for line in fh if "TIMEOUT" in line}
    after_api = dict(before_api)
    for again in ("api2", "api3"):
        if os.path.exists(f"{folder}/{again}.log"):
            after_api.update(read(f"{folder}/{again}.log", "api"))
    head = ["program"] + [g for g, _ in CLI_GROUPS] + [g for g, _ in API_GROUPS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in NAMES41:
        row = [n]
        for _, keys in CLI_GROUPS:
            after = merge([state(after_cli.get((n, k))) for k in keys])
            before = merge([state(before_cli.get((n, k))) for k in keys])
            if (n, "cli") in refused and after != "-":
                before = "ref"
            row.append(cell(before, after))
        for _, keys in API_GROUPS:
            cells = []
            for v in ("np", "jax"):
                after = merge([api_state(after_api.get((n, v, k))) for k in keys])
                before = merge([api_state(before_api.get((n, v, k))) for k in keys])
                if after == "-" and v == "np" and (n, "TIMEOUT/rc=124") in timeouts:
                    after = before = "SLOW"  # api.py's 600 s ran out before these cases
                if (n, v) in refused or ((n, v) in refused_jac and "hess" not in keys):
                    before = "ref"
                if (n, v) in slow and "hess" in keys:  # killed in hess-c
                    before = "SLOW"
                elif before == "-":  # its first run was stopped before this row
                    before = after
                cells.append(cell(before, after) if after != "-" else "-")
            row.append(" / ".join(cells))
        print("| " + " | ".join(row) + " |")
    print()
    print("| command | programs | median CPU-s | max CPU-s |")
    print("|---|---|---|---|")
    cpu = {}
    for line in after_cli.values():
        m = re.search(r"cpu=\s*([\d.]+)", line)
        if m:
            cpu.setdefault("cli " + line.split()[1], []).append(float(m.group(1)))
    for line in after_api.values():
        parts = line.split()
        if len(parts) > 4 and parts[4] != "skip":
            cpu.setdefault("api " + parts[2], []).append(float(parts[3].rstrip("s")))
    for key, values in cpu.items():
        print(f"| {key} | {len(values)} | {median(values):.2f} | {max(values):.2f} |")


# the base tree (037aaf39) refused numpy.split in every command and API call of lstm's
# NumPy version; heston's C Hessian (hess-c) did not compile in 15 minutes there
REFUSED_BEFORE_41 = {("lstm", "np"), ("lstm", "cli")}
SLOW_BEFORE_41 = {("heston", "np"), ("heston", "jax")}


# the base tree (822d26ec) refused the gamma GLM in every API call ("vertex 't10' is
# dangling": xlogy of a parameter at the array level)
REFUSED_BEFORE_42 = {("gammall", "np"), ("gammall", "jax")}

# survey44: moe's NumPy version was refused in every command and API call on the base
# (1f84bd0e: "a constant of type slice (object) is not a number", p[np.arange(n), k])
REFUSED_BEFORE_44 = {("moe", "np"), ("moe", "cli")}

# survey45: the base (3e95dba8) refused kabsch's NumPy version in every command and API
# call ("numpy.diag of a comparison": np.diag([1, 1, np.sign(det)])), and every API call but
# the Hessians of the programs with params= and a defaulted argument ("with params=, give
# sizes= for every argument beside point=")
REFUSED_BEFORE_45 = {("kabsch", "np"), ("kabsch", "cli")}
_DEFAULTED = ("splus", "tukey", "chemeq", "pipes", "ecm", "levelk", "elo")
REFUSED_BEFORE_45_JAC = {(n, v) for n in _DEFAULTED for v in ("np", "jax")}
REFUSED_BEFORE_45_JAC.add(("persample", "np"))

if __name__ == "__main__" and sys.argv[2:] in SESSIONS:
    sys.exit(main41(sys.argv[1], sys.argv[2]))
