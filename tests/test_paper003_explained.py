"""Paper 003's rows that hpcnetsim does not reproduce, and the experiments that isolate why
(docs/validation.md, paper 003; python/hpcnetsim/published/003.toml names these tests in its
``explained_by`` fields).

Single collectives run on the study's own base (studies/twin-torus.toml: the EXTOLL switch,
one-cell credits, messages cut into packets of at most 32 cells) as task programs, so that a
turnaround or an algorithm can be changed one at a time. The paper's values are read from the
study file's tables, never written here. The synthetic-traffic variants (Zipf, traffic classes)
take 15 minutes: their runs are stored in tests/data/paper003/variants.csv
(benchmarks/paper003_variants.py); the tests check the claims on the stored runs and rerun one
point of each sweep to check that the file is still what hpcnetsim computes."""

import csv
import importlib.util
import math
import statistics
import tomllib
from pathlib import Path

import pytest

import hpcnetsim
from hpcnetsim import confidence

ROOT = Path(__file__).resolve().parents[1]
STUDY = tomllib.loads((ROOT / "studies/twin-torus.toml").read_text())
VARIANTS = ROOT / "tests/data/paper003/variants.csv"

#: the Table I networks: topology, routing and VCs as the study's collectives sweep runs them
NETWORKS = {
    ("3D", 256): ("torus:8x8x4", "dor", 2),
    ("5DT", 256): ("twin-torus:4x4x2x2x2", "ts-dor", 4),
    ("3D", 512): ("torus:8x8x8", "dor", 2),
    ("5DT", 512): ("twin-torus:4x4x2x4x2", "ts-dor", 4),
    ("3D", 1024): ("torus:16x8x8", "dor", 2),
    ("5DT", 1024): ("twin-torus:4x4x2x4x4", "ts-dor", 4),
}
SIZES = {256: "256 PEs", 512: "512 PEs", 1024: "1K PEs"}
#: Paper 003 §3.1: on the twin torus each source card's packets use two TCs ("one adaptive TC
#: and one deterministic TC"), TS-DOR's two VCs in each.
TWO_TCS = {"vcs": 8, "traffic_classes": 2}


def published(table: str, kernel: str, nbytes: int, net: str, pes: int) -> float:
    """A value of the study's copy of Table II or III."""
    spec = next(t for t in STUDY["report"]["pair_tables"] if t["title"].startswith(table))
    row = next(r for r in spec["published"] if r[0] == kernel and r[1] == nbytes)
    i = [n[0] for n in spec["networks"]].index(SIZES[pes])
    return row[2 + 3 * i + (0 if net == "3D" else 1)]


def run(net: str, pes: int, program: hpcnetsim.Program, seed: int = 1, **switch) -> tuple[int, float]:
    """(execution time, mean packet network latency) of ``program`` on a study network."""
    topology, routing, vcs = NETWORKS[net, pes]
    base = STUDY["base"]
    config = {
        "seed": seed,
        "technology": base["technology"],
        "topology": topology,
        "switch": {**base["switch"], "vcs": vcs, **switch},
        "routing": {"algorithm": routing},
        "traffic": {"packet_phits": 32},
    }
    r = program.run(config)
    assert r.status == "completed", r.message
    return r.execution_time_cycles, r.packet_latency["mean"]


def parent(r: int) -> int:
    """Open MPI's bmtree: rank r hears from r minus its highest bit."""
    return r - (1 << (r.bit_length() - 1))


def bmtree(p: hpcnetsim.Program, n: int, nbytes: int, turnaround: int = 0) -> None:
    """The study's Bcast (bmtree, nearest child first), ``turnaround`` cycles from a task's
    receive to its first send."""
    for r in range(n):
        if r:
            p.recv(r, parent(r), nbytes)
        mask = 1 << r.bit_length() if r else 1
        if r and r + mask < n and turnaround:
            p.compute(r, turnaround)
        while r + mask < n:
            p.send(r, r + mask, nbytes)
            mask <<= 1


def reduce(n: int, nbytes: int, turnaround: int = 0) -> hpcnetsim.Program:
    """The study's binomial Reduce to task 0, ``turnaround`` cycles from a task's last receive
    to its send."""
    p = hpcnetsim.Program(n)
    for r in range(n):
        low = r & -r if r else n
        children = [r + s for s in (1 << k for k in range(n.bit_length())) if s < low and r + s < n]
        for c in children:
            p.recv(r, c, nbytes)
        if r:
            if children and turnaround:
                p.compute(r, turnaround)
            p.send(r, r - low, nbytes)
    return p


def bcast(n: int, nbytes: int, turnaround: int = 0) -> hpcnetsim.Program:
    p = hpcnetsim.Program(n)
    bmtree(p, n, nbytes, turnaround)
    return p


def alltoall_linear(n: int, nbytes: int) -> hpcnetsim.Program:
    """Open MPI's linear All2All: every send posted at once (to i − 1, i − 2, …)."""
    p = hpcnetsim.Program(n)
    for i in range(n):
        for s in range(1, n):
            p.send(i, (i - s) % n, nbytes)
        for s in range(1, n):
            p.recv(i, (i + s) % n, nbytes)
    return p


def allgather_linear(n: int, nbytes: int) -> hpcnetsim.Program:
    """Open MPI's linear AllGather: a gather to task 0, then the bmtree broadcast of N blocks."""
    p = hpcnetsim.Program(n)
    for r in range(1, n):
        p.send(r, 0, nbytes)
    for r in range(1, n):
        p.recv(0, r, nbytes)
    bmtree(p, n, n * nbytes)
    return p


def critical_messages(n: int) -> int:
    """Messages on the critical path of a binomial tree on n tasks (a power of two)."""
    return n.bit_length() - 1


# ---- Reduce and Broadcast of 16 bytes: the critical path ----


@pytest.mark.parametrize("pes", [256, 512, 1024])
@pytest.mark.parametrize("net", ["3D", "5DT"])
def test_reduce_is_ours_plus_a_two_cycle_turnaround_per_dependent_message(net, pes):
    """Table III's 16-byte Reduce exceeds ours by exactly 2 cycles per message after the first
    on the critical path (14, 16, 18 cycles at 256, 512, 1K PEs, on both networks): a task
    sends 2 cycles after its last receive in the paper's simulator, at once in ours. With that
    turnaround ours equals all six of the paper's times."""
    paper = published("Table III", "reduce", 16, net, pes)
    plain, _ = run(net, pes, reduce(pes, 16))
    m = critical_messages(pes)
    assert paper - plain == 2 * (m - 1)
    assert run(net, pes, reduce(pes, 16, turnaround=2))[0] == paper


@pytest.mark.parametrize("pes", [256, 512, 1024])
@pytest.mark.parametrize("net", ["3D", "5DT"])
def test_bcast_latency_of_table_ii_with_a_five_cycle_packet_input(net, pes):
    """Table II's 16-byte Broadcast latencies, 3.8-4.1 cycles above ours, are ours with a
    crossbar input busy 5 cycles per packet (switch.input_packet_cycles, set from the 256-PE
    rows; the 512- and 1K-PE rows are predictions): within 0.2 cycles on all six networks."""
    paper = published("Table II", "bcast", 16, net, pes)
    _, plain = run(net, pes, bcast(pes, 16))
    _, timed = run(net, pes, bcast(pes, 16), input_packet_cycles=5)
    assert 3.5 < paper - plain < 4.5
    assert abs(timed - paper) < 0.2, (timed, paper)


def test_bcast_time_differs_from_ours_by_a_fixed_cost_per_network():
    """With the Reduce's turnaround and the 5-cycle packet input, the paper's 16-byte Broadcast
    is ours plus a constant per network family: 50 cycles on the three twin tori, 18-24 on the
    3D tori, whatever the size. A network effect grows with the paths; a constant does not.
    The twin torus's extra over the 3D torus is one link (32 cycles) of its chain, which the
    average latency (Table II, matched within 0.2 cycles) cannot show: 32 cycles over 255
    messages is 0.13 cycles. The reduction (Table III: −12.7 % at 256 PEs, −2.6 % at 512) is
    the difference of two such times: ours with the turnaround −8.7 % and +0.2 %, and with the
    twin torus's chain one link longer −13.0 % and −3.4 %."""
    residual = {}
    for net in ("3D", "5DT"):
        for pes in (256, 512, 1024):
            ours, _ = run(net, pes, bcast(pes, 16, turnaround=2), input_packet_cycles=5)
            residual[net, pes] = published("Table III", "bcast", 16, net, pes) - ours
    twin = [residual["5DT", p] for p in (256, 512, 1024)]
    tori = [residual["3D", p] for p in (256, 512, 1024)]
    assert max(twin) - min(twin) <= 2, twin
    assert max(tori) - min(tori) <= 8, tori
    assert 24 <= statistics.mean(twin) - statistics.mean(tori) <= 36, (twin, tori)


# ---- Saturating collectives: the 3D torus ----


#: seeds of the saturating collectives: one seed's time of All2All 512 B on the 256-PE 3D torus
#: moves by 17 % (16 631-19 765 cycles over seeds 1-5), as the switches' arbitration draws fall
SATURATING_SEEDS = range(1, 4)
SATURATING = [("alltoall", 512, 256), ("alltoall", 16, 256), ("allgather", 512, 256), ("alltoall", 16, 512),
              ("alltoall", 512, 512)]  # fmt: skip


@pytest.mark.parametrize("kernel, nbytes, pes", SATURATING)
def test_saturating_collectives_agree_on_the_twin_torus_and_not_on_the_3d_torus(kernel, nbytes, pes):
    """Open MPI's linear All2All (both sizes) and linear AllGather (gather + bmtree broadcast,
    the paper's footnote), with the paper's two TCs per source card on the twin torus and the
    5-cycle packet input of Table II, ours the mean over seeds 1-3: on the twin torus the
    paper's five times of saturating collectives are within 10 % of ours (0.97-1.10), on the 3D
    torus they are 1.25-1.48 times ours. The reductions' gaps (All2All 56 / 55 % against ours
    39 / 40 %, 16 B 16 / 43 % against −8 / 13 %, AllGather 512 B 25 % against 2 %) are the 3D
    torus's times alone. One seed's ratio is a draw: with seed 1 alone the 3D torus's All2All
    512 B at 256 PEs gives 1.55, over seeds 1-5 1.43."""
    make = alltoall_linear if kernel == "alltoall" else allgather_linear
    ratio = {}
    for net in ("3D", "5DT"):
        switch = {"input_packet_cycles": 5, **(TWO_TCS if net == "5DT" else {})}
        ours = statistics.mean(run(net, pes, make(pes, nbytes), seed, **switch)[0] for seed in SATURATING_SEEDS)
        ratio[net] = published("Table III", kernel, nbytes, net, pes) / ours
    assert 0.93 <= ratio["5DT"] <= 1.10, ratio
    assert 1.2 <= ratio["3D"] <= 1.55, ratio


def test_allgather_16_bytes_reduction_is_one_draw_of_a_spread_seven_times_its_tolerance():
    """Table III's 256-PE AllGather of 16 bytes: the twin torus's reduction is a difference of
    two times of about 4 200 cycles (ours; the paper's 2 621 and 2 505) that the switches'
    arbitration draws alone move by hundreds of cycles. Over seeds 1-40 of the study's set-up
    (Open MPI's linear AllGather) one run's reduction has a standard deviation of 3.1
    percentage points, seven times the row's tolerance (10 % of 4.43 = 0.44 points), so the
    five-seed mean of `validate` (95 % interval about ±4 points) cannot resolve the row. The
    paper prints one run: its 4.43 % lies inside the central 90 % of our single runs and within
    a third of a standard deviation of their mean (3.8 %); seed 1 gives 4.62 %. What stays
    unexplained is the algorithm behind the paper's absolute times (ours are 1.6x theirs,
    docs/validation.md), not the reduction."""
    program = allgather_linear(256, 16)
    reductions = []
    for seed in range(1, 41):
        base, _ = run("3D", 256, program, seed=seed)
        twin, _ = run("5DT", 256, program, seed=seed)
        reductions.append(100 * (1 - twin / base))
    paper = 100 * (1 - published("Table III", "allgather", 16, "5DT", 256)
                   / published("Table III", "allgather", 16, "3D", 256))  # fmt: skip
    mean, sd = statistics.mean(reductions), statistics.stdev(reductions)
    cuts = statistics.quantiles(reductions, n=20)  # 5th ... 95th percentiles
    assert sd > 5 * 0.10 * paper, (sd, paper)  # so five seeds' 95 % interval, 1.24 sd, exceeds 6 tolerances
    assert cuts[0] < paper < cuts[-1], (cuts[0], paper, cuts[-1])
    assert abs(mean - paper) < 0.5 * sd, (mean, sd, paper)
    assert sum(r >= paper for r in reductions) >= 8, sorted(reductions)


def test_3d_alltoall_is_slower_in_the_paper_than_a_lockstep_schedule():
    """The paper's 3D torus runs the 512-byte All2All (25 829 cycles) 27 % slower than the
    same messages sent shift by shift (every rank to i − s at once, then the next shift) over
    links shared max-min fairly (flow model, DOR: 20 320 cycles). Ours is faster than that
    lockstep schedule whatever the unpublished buffer depth (2 to 32 packets of 32 cells per
    VC), VC rule (dateline or upper/lower) or number of TCs (1, 2, 4); only single-packet
    buffers are slower (48 515 cycles), far beyond it."""
    cell = STUDY["base"]["switch"]["phit_bytes"]
    mp = hpcnetsim.mpigraph({"topology": "torus:8x8x4", "routing": {"algorithm": "dor"},
                             "switch": {"vcs": 2, "phit_bytes": cell}})  # fmt: skip
    bw, n = mp.bandwidth, 256
    # Each shift's messages all take as long as its slowest pair (bytes / bytes per cycle).
    lockstep = sum(512 / min(bw[i][(i + s) % n] for i in range(n)) for s in range(1, n))
    paper = published("Table III", "alltoall", 512, "3D", 256)
    assert 1.2 * lockstep < paper < 1.35 * lockstep, (lockstep, paper)
    variants = [{"queue_packets": q} for q in (2, 4, 8, 16, 32)]
    variants += [{"vcs": 4, "traffic_classes": 2}, {"vcs": 8, "traffic_classes": 4}]
    for switch in variants:
        ours, _ = run("3D", 256, alltoall_linear(n, 512), **switch)
        assert ours < lockstep * 1.15 < paper, (switch, ours, lockstep)
    topology, _, vcs = NETWORKS["3D", 256]
    config = {**STUDY["base"], "topology": topology, "routing": {"algorithm": "dor-upper-lower"},
              "switch": {**STUDY["base"]["switch"], "vcs": vcs}, "traffic": {"packet_phits": 32}}  # fmt: skip
    config.pop("measurement")
    upper_lower = alltoall_linear(n, 512).run(config).execution_time_cycles
    assert upper_lower < lockstep * 1.15, upper_lower


# ---- Synthetic traffic: the stored variants ----


def _variants() -> list[dict]:
    with open(VARIANTS, newline="") as f:
        return list(csv.DictReader(f))


def _gain(rows: list[dict], base: str, cand: str) -> float:
    """The study's comparison on stored runs: each curve at its load of highest mean accepted
    load, the candidate's increase over the baseline per repetition, averaged."""
    return statistics.mean(_gains(rows, base, cand))


def _gains(rows: list[dict], base: str, cand: str) -> list[float]:
    """The candidate's increase in percent per repetition (see ``_gain``)."""
    chosen = []
    for point in (base, cand):
        by: dict[float, dict[int, float]] = {}
        for r in rows:
            if r["point"] == point and r["status"] == "converged":
                by.setdefault(float(r["load"]), {})[int(r["repetition"])] = float(r["accepted"])
        best = max(by, key=lambda load: statistics.mean(by[load].values()))
        chosen.append(by[best])
    reps = sorted(set(chosen[0]) & set(chosen[1]))
    return [100 * (chosen[1][r] / chosen[0][r] - 1) for r in reps]


def _latency_reduction(rows: list[dict], base: str, cand: str) -> float:
    low = min(float(r["load"]) for r in rows)
    lat = {p: {int(r["repetition"]): float(r["latency"]) for r in rows if r["point"] == p and float(r["load"]) == low}
           for p in (base, cand)}  # fmt: skip
    return statistics.mean(100 * (1 - lat[cand][r] / lat[base][r]) for r in lat[base])


def test_zipf_rows_are_set_by_the_rank_order_and_the_exponent():
    """Paper 003 names Zipf's law but not its exponent or how ranks map to PEs. Ours (ranks by
    terminal index, s = 1) gives +24 % accepted and −5.0 % latency at 256 PEs (paper: +20 %,
    −10 %). The order of the ranks alone sets the latency: with ranks in a random order the
    twin torus saves as much as under uniform traffic (−9.1 to −9.3 %), since with index ranks
    the likeliest destinations are one link away on both networks. The exponent sets the
    gain: in a random order s = 1 gives +30 %, s = 0.5 +20 %, uniform traffic (s → 0) +17.5 %.
    A Zipf without index locality and of exponent below 0.5 gives both of the paper's rows."""
    rows = _variants()
    got = {}
    for v in ("index ranks, s = 1", "shuffled ranks, s = 1", "shuffled ranks, s = 0.5"):
        sub = [r for r in rows if r["sweep"] == "variants-zipf" and r["variant"] == v]
        got[v] = (_gain(sub, "3D DOR", "5DT TS-DOR"), _latency_reduction(sub, "3D DOR", "5DT TS-DOR"))
    index, shuffled, flat = got["index ranks, s = 1"], got["shuffled ranks, s = 1"], got["shuffled ranks, s = 0.5"]
    uniform = [r for r in rows if r["sweep"] == "variants-classes" and r["topology"] in ("torus:8x8x4", "twin-torus:4x4x2x2x2")]
    uniform_gain = _gain(uniform, "3D DOR, 1 TC", "5DT TS-DOR, 1 TC per card")
    assert 22 < index[0] < 26 and 4 < index[1] < 6.5, index
    assert shuffled[1] > 9 and flat[1] > 9, (shuffled, flat)
    assert shuffled[0] > flat[0] > 20 > uniform_gain, (shuffled, flat, uniform_gain)
    assert flat[0] < 23, flat


def test_uniform_gain_does_not_fall_from_256_to_512_pes_with_any_traffic_classes():
    """§4.1's "20% and 12%" for 256 and 512 PEs: whichever of the card's TCs the two networks
    use (3D torus 1, 2 or 4 TCs, twin torus 1 or 2 per source card), the 512-PE gain is between
    3.2 points below and 5.8 above the 256-PE gain over five seeds, and an 8-point fall lies
    outside every assignment's 95 % interval (the nearest, 3D DOR with 4 TCs against one TC per
    card: −3.2 ± 1.8 points). The study's (1 TC, 1 per card) gives +17.5 % and +21.4 %. The
    sentence also reads as 20 % for uniform and 12 % for Zipf traffic at both sizes."""
    rows = [r for r in _variants() if r["sweep"] == "variants-classes"]
    topo = {256: ("torus:8x8x4", "twin-torus:4x4x2x2x2"), 512: ("torus:8x8x8", "twin-torus:4x4x2x4x2")}
    gains = {}
    for tori in ("3D DOR, 1 TC", "3D DOR, 2 TCs", "3D DOR, 4 TCs"):
        for twin in ("5DT TS-DOR, 1 TC per card", "5DT TS-DOR, 2 TCs per card"):
            for pes, (t3, t5) in topo.items():
                sub = [r for r in rows if (r["point"], r["topology"]) in ((tori, t3), (twin, t5))]
                gains[tori, twin, pes] = _gains(sub, tori, twin)
    for (tori, twin, pes), g in gains.items():
        if pes == 512:
            before = gains[tori, twin, 256]
            assert len(g) == len(before) == 5
            fall = statistics.mean(g) - statistics.mean(before)
            error = math.hypot(confidence.interval(g)["ci"], confidence.interval(before)["ci"])
            assert fall - error > -8 and fall > -5, (tori, twin, fall, error)
    study = ("3D DOR, 1 TC", "5DT TS-DOR, 1 TC per card")
    assert statistics.mean(gains[(*study, 512)]) > statistics.mean(gains[(*study, 256)]), gains


def test_uniform_gain_at_256_pes_moves_with_the_schedule_by_more_than_its_tolerance():
    """The row "256 PEs, uniform: +20 %" on the study's schedule (loads 0.6-1.0, five seeds)
    gives 17.5 ± 1.2 % and on the short one (loads 0.9 and 1.0, 4 000 + 3 x 2 000 cycles, 20
    seeds) 20.8 ± 1.6 %: the same two networks, 3.3 points apart, where the row's tolerance is
    ±1 point. A gain at saturation is measured on accepted load that the measurement windows
    still move; the paper names neither its windows nor its seeds. Before the canonical order
    of a cycle's events (a switch serves the fronts of one cycle oldest first) the same runs
    gave 19.0 ± 3.0 and 19.0 ± 1.3 %: the order moves each seed's gain, not the spread of the
    schedules. The paper's 20 % lies between the two schedules' intervals' outer bounds."""
    rows = _variants()
    uniform = [r for r in rows if r["sweep"] == "variants-classes" and r["topology"] in ("torus:8x8x4", "twin-torus:4x4x2x2x2")]
    full = _gains(uniform, "3D DOR, 1 TC", "5DT TS-DOR, 1 TC per card")
    short = _gains([r for r in rows if r["sweep"] == "saturation-256-short"], "3D DOR", "5DT TS-DOR")
    assert len(full) == 5 and len(short) == 20
    intervals = [confidence.interval(g) for g in (full, short)]
    assert min(i["lo"] for i in intervals) < 20 < max(i["hi"] for i in intervals), intervals
    assert abs(statistics.mean(short) - statistics.mean(full)) > 2 * 0.05 * 20, intervals


def test_short_schedule_gain_is_20_percent_within_its_noise():
    """The quick row's uniform +20 % on the short schedule (4 000 + 3 x 2 000 cycles, loads
    0.9 and 1.0): one seed's gain varies by 3.5 points (standard deviation), so five seeds'
    mean has a 95 % interval of ±4.3, four times the tolerance (19-21 %). Over 20 seeds ours is
    20.8 ± 1.6 %: the paper's 20 % inside the interval; the full schedule's row gives
    17.5 ± 1.2 % over five seeds (test_uniform_gain_at_256_pes_moves_with_the_schedule_by_more_than_its_tolerance)."""
    rows = [r for r in _variants() if r["sweep"] == "saturation-256-short"]
    gains = _gains(rows, "3D DOR", "5DT TS-DOR")
    assert len(gains) == 20
    ours = confidence.interval(gains)
    assert ours["lo"] < 20 < ours["hi"], ours
    five = confidence.t_quantile(4) * statistics.stdev(gains) / math.sqrt(5)
    assert five > 2, gains  # five seeds' interval: twice the tolerance band


def test_the_stored_variants_are_what_hpcnetsim_computes():
    """One run of each sweep again (repetition 0 of a point, at the lowest load: cheap)."""
    spec = importlib.util.spec_from_file_location("variants", ROOT / "benchmarks/paper003_variants.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    from hpcnetsim.studies.validate import Context

    stored = {(r["sweep"], r["point"], r["variant"], r["topology"], float(r["load"]), int(r["repetition"])): r
              for r in _variants()}  # fmt: skip
    ctx = Context(1, 1, quick=False)
    for sweep, point, variant, load in [("variants-zipf", "5DT TS-DOR", "shuffled ranks, s = 0.5", 0.05),
                                        ("variants-classes", "3D DOR, 2 TCs", "", 0.6),
                                        ("saturation-256-short", "5DT TS-DOR", "", 0.9)]:  # fmt: skip
        p = next(p for p in ctx.points("twin-torus", sweep) if p.values.get("point") == point
                 and p.values.get("zipf", "") == variant and float(p.config["traffic"]["load"]) == load
                 and p.config["topology"].startswith(("torus:8x8x4", "twin-torus:4x4x2x2x2")))  # fmt: skip
        r = ctx.run([p])[0]
        row = stored[sweep, point, variant, p.config["topology"], load, 0]
        assert int(row["seed"]) == p.config["seed"]
        assert math.isclose(float(row["accepted"]), r["accepted_load"], abs_tol=1e-6), (row, r["accepted_load"])
        assert script.COLUMNS[-1] == "latency"
