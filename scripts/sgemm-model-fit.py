#!/usr/bin/env python3
"""SGEMM's time model (`estimated_time` in src/routines/gemm/tile_choice.rs) against the
measured time of every plan it chooses between. Runs here, without a GPU:

    python3 scripts/sgemm-model-fit.py sample N SEED [wide] > SHAPES
        N random shapes "pair m n k" of the decision grid (m 127 to 16384,
        n 33 to 2048, k 256 to 14336, all four pairs) under ~1.5 ms each;
        `wide` adds the sizes between (m 1536, 2000, 6144; n 160, 224, 320,
        640, 768, 1536; k 768, 3000).
    python3 scripts/sgemm-model-fit.py candidates SHAPES > CANDIDATES
        every plan `tile_plan` and `choose_tile` weigh for each shape: each
        tile meant for sm_80 on, unsplit, and split while the unsplit grid
        is short of a wave (SPLITS and the round fillers of
        candidate_splits), up to the first split of SPLIT_ROUNDS_MAX
        rounds (tile_plan's loop; the caps of effective_split).
    python3 scripts/sgemm-model-fit.py fit TIMES
        with TIMES from scripts/sgemm-plan-times.py on the GPU machine: the
        model's error, and the regret of its choice (the chosen plan's
        measured time over the shape's fastest), with the constants the
        library has and with constants fitted to TIMES (least squares of
        log time), the fit checked on the half of the shapes it did not see,
        and the constants fitted to all (a few minutes a fit). In the
        environment, FIT_EFFICIENCY=0 holds the tiles' efficiencies as the
        library has them, FAR_WEIGHT=w weighs plans over 1.3 times their
        shape's fastest by w.

The model is routines/gemm/tile_choice.rs's, for the H100/H200 (132 SMs, the tiles'
active blocks per SM as the occupancy model gives them on sm_90); keep the
two in step."""
import math
import os
import random
import sys
from collections import defaultdict

SMS = 132
SUB_PARTITIONS = 4
SPLITS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64]
SPLIT_ROUNDS_MAX = 4
MIN_K_PER_SPLIT = 32
MAX_PARTIAL_BYTES = 64 << 20
FULL_COVERAGE = 0.95
FILLING_SPLIT_MARGIN = 0.02
SHORT_K = 64.0

# name: (rows, cols, threads, active blocks per SM on sm_90 per pair (NN, NT,
#        TN, TT), one_round, efficiency per pair, long-k efficiency per pair or
#        None)  -- TILES in routines/gemm/kernels.rs
TILES = {
    "256x128": (256, 128, 256, [1] * 4, False, [1.09, 1.035, 1.05, 1.05], None),
    "128x128_t128": (128, 128, 128, [2] * 4, False, [1.01, 0.96, 0.97, 1.03], None),
    "128x128": (128, 128, 256, [2] * 4, False, [1.0, 0.93, 0.97, 0.96], None),
    "64x64_t128": (64, 64, 128, [6, 6, 4, 6], False, [0.98, 0.98, 1.1, 0.94], [0.86, 0.89, 0.72, 0.90]),
    "128x64": (128, 64, 64, [4] * 4, False, [1.045, 1.0, 0.90, 1.0], None),
    "256x64": (256, 64, 128, [2] * 4, True, [1.067, 0.98, 0.96, 0.985], None),
}
NAMES = list(TILES)
# Plans within this log time of their shape's fastest weigh 1 in the fit, the
# rest FAR_WEIGHT (environment; 1: every plan alike).
NEAR = math.log(1.3)
FAR_WEIGHT = float(os.environ.get("FAR_WEIGHT", "1"))
# Whether the tiles' efficiencies and us_per_k are fitted too (FIT_EFFICIENCY=0: held as the library has them).
FIT_EFFICIENCY = os.environ.get("FIT_EFFICIENCY", "1") == "1"

# The library's constants (time_model in routines/gemm/tile_choice.rs).
LIBRARY = {
    "us_per_k": 0.0952,
    "round_us": {name: 1.5 for name in NAMES},
    "launch_us": {name: 0.0 for name in NAMES},
    "fill": {name: {"128x128_t128": 0.8, "64x64_t128": 0.2}.get(name, 0.5) for name in NAMES},
    "pack": {name: (0.9 if name == "128x64" else 0.0) for name in NAMES},  # TAIL_PACKING_128X64
    "reduce_us": 3.0,
    "partial_bytes_per_us": 4.0e6,
    "efficiency": {name: list(TILES[name][5]) for name in NAMES},
}


def partial_ld(m):
    return (m + 3) // 4 * 4


def effective_split(m, n, k, split):
    by_k = k // MIN_K_PER_SPLIT
    by_bytes = MAX_PARTIAL_BYTES // max(1, partial_ld(m) * n * 4)
    return max(1, min(split, by_k, by_bytes))


def tiles_of(name, m, n):
    rows, cols = TILES[name][:2]
    return -(-m // rows) * -(-n // cols)


def candidate_splits(tiles, per_round):
    """SPLITS past 1 and the splits that fill 1 to SPLIT_ROUNDS_MAX rounds
    (`candidate_splits` in tile_choice.rs)."""
    fillers = {min(rounds * per_round // tiles, SPLITS[-1]) for rounds in range(1, SPLIT_ROUNDS_MAX + 1)}
    return sorted(set(SPLITS[1:]) | {s for s in fillers if s > 1})


def weighed(estimate, split):
    """An estimate as the choice weighs it (`weighed_time`): FILLING_SPLIT_MARGIN over it off SPLITS."""
    return estimate * (1.0 + FILLING_SPLIT_MARGIN) if split not in SPLITS else estimate


def candidates(pair, m, n, k):
    """(tile, split) of every plan tile_plan and choose_tile weigh."""
    out = []
    for name in NAMES:
        rows, cols, threads, active, one_round = TILES[name][:5]
        per_round = active[pair] * SMS
        tiles = tiles_of(name, m, n)
        if one_round and tiles > per_round:
            continue
        out.append((name, 1))
        if tiles >= FULL_COVERAGE * per_round:
            continue
        for split in candidate_splits(tiles, per_round):
            if effective_split(m, n, k, split) != split:
                break
            blocks = tiles * split
            if one_round and blocks > per_round:
                break
            out.append((name, split))
            if blocks >= SPLIT_ROUNDS_MAX * per_round:
                break
    return out


def sample(count, seed, wide=False):
    rng = random.Random(seed)
    ms = [127, 256, 512, 1000, 1024, 2048, 3000, 4096, 8192, 11008, 14336, 16384]
    ns = [33, 48, 64, 96, 128, 192, 256, 384, 448, 512, 1024, 2048]
    ks = [256, 512, 1024, 2048, 4096, 8192, 14336]
    if wide:
        ms += [1536, 2000, 6144]
        ns += [160, 224, 320, 640, 768, 1536]
        ks += [768, 3000]
    chosen = set()
    while len(chosen) < count:
        shape = (rng.randrange(4), rng.choice(ms), rng.choice(ns), rng.choice(ks))
        if 2.0 * shape[1] * shape[2] * shape[3] / 40e6 <= 1500.0:
            chosen.add(shape)
    for shape in sorted(chosen):
        print(*shape)


def read_times(path):
    """{shape: {(tile, split): µs}}, {shape: cuBLAS µs}."""
    plans, cublas = defaultdict(dict), {}
    for line in open(path):
        fields = line.split()
        if len(fields) < 7 or not fields[0].isdigit():
            continue
        shape = tuple(map(int, fields[:4]))
        if "ERROR" in line:
            sys.exit(f"a plan's result was wrong: {line.strip()}")
        if fields[4] == "cublas":
            cublas[shape] = float(fields[6])
        else:
            plans[shape][(fields[4], int(fields[5]))] = float(fields[6])
    return plans, cublas


def report(label, params, plans, cublas, shapes):
    """Log error of the model, and the regret of its choice over `shapes`."""
    rows, model = plan_model(plans, shapes)
    estimates = defaultdict(dict)
    for (shape, plan, _), estimate in zip(rows, model(params)):
        estimates[shape][plan] = float(estimate)
    errors, regrets, against_cublas = [], [], []
    for shape in shapes:
        measured, estimated = plans[shape], estimates[shape]
        errors += [math.log(estimated[plan] / measured[plan]) for plan in measured]
        chosen = min(estimated, key=lambda plan: weighed(estimated[plan], plan[1]))
        best = min(measured.values())
        regrets.append(measured[chosen] / best)
        if shape in cublas:
            against_cublas.append(cublas[shape] / measured[chosen])
    rms = math.sqrt(sum(e * e for e in errors) / len(errors))
    geo = math.exp(sum(map(math.log, regrets)) / len(regrets))
    over = sum(r > 1.05 for r in regrets)
    cub = math.exp(sum(map(math.log, against_cublas)) / max(1, len(against_cublas)))
    print(f"{label:28s} rms log error {rms:.3f}  regret: geomean {geo:.4f}, worst {max(regrets):.3f}, "
          f"{over} of {len(regrets)} over 5 %;  cuBLAS/chosen geomean {cub:.3f}")
    return regrets


def vector_of(params):
    v = [math.log(params["us_per_k"]), math.log(params["reduce_us"]), math.log(params["partial_bytes_per_us"])]
    for name in NAMES:
        v += [params["round_us"][name], params["launch_us"][name], params["fill"][name], params["pack"][name]]
        v += [math.log(e) for e in params["efficiency"][name]]
    return v


def params_of(v):
    params = {"us_per_k": math.exp(v[0]), "reduce_us": math.exp(v[1]), "partial_bytes_per_us": math.exp(v[2]),
              "round_us": {}, "launch_us": {}, "fill": {}, "pack": {}, "efficiency": {}}
    i = 3
    for name in NAMES:
        params["round_us"][name], params["launch_us"][name], params["fill"][name], params["pack"][name] = v[i:i + 4]
        params["efficiency"][name] = [math.exp(x) for x in v[i + 4:i + 8]]
        i += 8
    return params


def plan_model(plans, shapes):
    """(plans of `shapes` as (shape, plan, µs) rows, and model(params): the
    estimated µs of each row by routines/gemm/tile_choice.rs's `estimated_time` for the
    H100/H200, over all rows at once)."""
    import numpy as np
    rows = [(shape, plan, t) for shape in shapes for plan, t in plans[shape].items()]
    tile = np.array([NAMES.index(plan[0]) for _, plan, _ in rows])
    pair = np.array([shape[0] for shape, _, _ in rows])
    m, n, k = (np.array([float(shape[i]) for shape, _, _ in rows]) for i in (1, 2, 3))
    split = np.array([float(plan[1]) for _, plan, _ in rows])
    size = np.array([TILES[name][0] * TILES[name][1] / (128.0 * 128.0) for name in NAMES])[tile]
    active = np.array([[float(a) for a in TILES[name][3]] for name in NAMES])[tile, pair]
    warps = np.array([float(-(-TILES[name][2] // 32)) for name in NAMES])[tile]
    blocks = np.array([float(tiles_of(plan[0], *shape[1:3])) for shape, plan, _ in rows]) * split
    kpb = np.ceil(np.ceil(k / 8) / split) * 8
    per_round = active * SMS
    whole = np.floor(blocks / per_round)
    rest = blocks - whole * per_round
    c_rest = np.maximum(np.minimum(np.ceil(rest / SMS), active), 1)

    def effective(c):
        busiest = np.ceil(c * warps / SUB_PARTITIONS) * SUB_PARTITIONS
        return np.minimum(np.maximum(busiest / warps, c), np.maximum(active, c))

    c_full, c_last = effective(active), effective(np.maximum(c_rest, 1))
    # The long-k efficiency scaled as the short one is, so that a refit keeps their ratio.
    long_ratio = np.array([[1.0] * 4 if TILES[name][6] is None else [l / s for l, s in zip(TILES[name][6], TILES[name][5])]
                           for name in NAMES])[tile, pair]
    short_weight = np.minimum(1.0, SHORT_K / np.maximum(1.0, kpb))
    bytes_ = 8.0 * m * n * split * (split > 1)

    def model(params):
        eff_short = np.array([params["efficiency"][name] for name in NAMES])[tile, pair]
        eff = eff_short * long_ratio + (eff_short - eff_short * long_ratio) * short_weight
        round_us = np.array([params["round_us"][name] for name in NAMES])[tile]
        launch = np.array([params["launch_us"][name] for name in NAMES])[tile]
        fill = np.array([params["fill"][name] for name in NAMES])[tile]
        work = size * kpb * params["us_per_k"] / eff

        def round_of(c):
            return c * work / (c / active) ** fill + round_us

        packed = np.array([params["pack"][name] for name in NAMES])[tile] * (whole > 0)
        tail = (1.0 - packed) * round_of(c_last) + packed * round_of(c_full)
        time = whole * round_of(c_full) + (rest > 0) * tail + launch
        return time + (split > 1) * params["reduce_us"] + bytes_ / params["partial_bytes_per_us"]

    return rows, model


def fit(start, plans, shapes):
    """Least squares of log(model / measured) over every plan of `shapes`."""
    import numpy as np
    from scipy.optimize import least_squares
    rows, model = plan_model(plans, shapes)
    log_t = np.log([t for _, _, t in rows])
    x0 = np.array(vector_of(start))
    lower = np.full_like(x0, -np.inf)
    upper = np.full_like(x0, np.inf)
    for i in range(len(NAMES)):
        base = 3 + 8 * i
        lower[base:base + 4] = [0.0, 0.0, 0.0, 0.0]
        upper[base:base + 4] = [20.0, 20.0, 1.5, 1.0]
    # Efficiencies are relative to us_per_k: the 256×128 tile's NN one stays
    # as it is, and so do that tile's fill and tail packing, which one block
    # an SM leaves undefined.
    for i in (5, 6, 7):
        lower[i], upper[i] = x0[i] - 1e-9, x0[i] + 1e-9
    if not FIT_EFFICIENCY:
        # Every tile's efficiencies as the library has them (measured at long
        # k on the large squares, whose decisions they carry).
        for i in range(len(NAMES)):
            lower[3 + 8 * i + 4:3 + 8 * i + 8] = x0[3 + 8 * i + 4:3 + 8 * i + 8] - 1e-9
            upper[3 + 8 * i + 4:3 + 8 * i + 8] = x0[3 + 8 * i + 4:3 + 8 * i + 8] + 1e-9
        lower[0], upper[0] = x0[0] - 1e-9, x0[0] + 1e-9
    x0 = np.clip(x0, lower + 1e-12, upper - 1e-12)
    # The plans near each shape's fastest decide the choice: they weigh most.
    best = {shape: math.log(min(plans[shape].values())) for shape in shapes}
    weight = np.array([1.0 if math.log(t) - best[shape] < NEAR else FAR_WEIGHT for shape, _, t in rows])
    result = least_squares(lambda v: weight * (np.log(model(params_of(v))) - log_t), x0, bounds=(lower, upper),
                           x_scale="jac")
    return params_of(result.x)


def show(params):
    print(f"  us_per_k {params['us_per_k']:.4f}  reduce_us {params['reduce_us']:.2f}  "
          f"partial bytes/µs {params['partial_bytes_per_us']:.3g}")
    for name in NAMES:
        eff = " ".join(f"{e:.3f}" for e in params["efficiency"][name])
        print(f"  {name:13s} round {params['round_us'][name]:5.2f}  launch {params['launch_us'][name]:5.2f}  "
              f"fill {params['fill'][name]:.2f}  pack {params['pack'][name]:.2f}  efficiency {eff}")


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "sample" and len(sys.argv) in (4, 5) and sys.argv[4:] in ([], ["wide"]):
        sample(int(sys.argv[2]), int(sys.argv[3]), wide=sys.argv[4:] == ["wide"])
    elif command == "candidates" and len(sys.argv) == 3:
        for line in open(sys.argv[2]):
            if line.strip() and not line.startswith("#"):
                pair, m, n, k = map(int, line.split())
                for name, split in candidates(pair, m, n, k):
                    print(pair, m, n, k, name, split)
    elif command == "fit" and len(sys.argv) == 3:
        plans, cublas = read_times(sys.argv[2])
        shapes = sorted(plans)
        print(f"{len(shapes)} shapes, {sum(len(p) for p in plans.values())} plans")
        report("library constants, all", LIBRARY, plans, cublas, shapes)
        halves = [shapes[0::2], shapes[1::2]]
        for seen, unseen in (halves, halves[::-1]):
            fitted = fit(LIBRARY, plans, seen)
            report("fitted on half, other half", fitted, plans, cublas, unseen)
            report("library, that half", LIBRARY, plans, cublas, unseen)
        fitted = fit(LIBRARY, plans, shapes)
        report("fitted on all, all", fitted, plans, cublas, shapes)
        show(fitted)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
