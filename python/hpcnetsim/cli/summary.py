"""Results as the few lines ``hpcnetsim run`` prints: status, loads, latency, speed, deadlock evidence."""

from __future__ import annotations


def format_value(v) -> str:
    if v is None:
        return "not computed"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list):
        return " ".join(map(str, v)) if v else "-"
    return str(v)


def _num(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def result_title(r: dict) -> str:
    vcs = f"{r['vcs']} VC" + ("" if r["vcs"] == 1 else "s")
    return f"{r['topology']}, routing {r['routing']}, {vcs}, seed {r['seed']}"


def _cells(r: dict) -> dict[str, str]:
    """The summary figures of a result dict as text; no accepted load unless it converged."""
    from ..simulation import rate

    ok = r["status"] == "converged"
    if r.get("model") == "flow":
        return _flow_cells(r)
    net = r["latency"]["network"] if ok and r["latency"]["network"]["count"] else {}
    return {
        "offered": _num(r["offered_load"], ".4g"),
        "status": r["status"],
        "accepted": _num(r["accepted_load"], ".4g") if ok else "-",
        "std": _num(r["accepted_load_std"], ".2g") if ok else "-",
        "saturated": ("yes" if r["saturated"] else "no") if ok else "-",
        "latency_mean": _num(net.get("mean"), ".1f"),
        "latency_p99": _num(net.get("p99"), ".0f"),
        "packet-hops/s": f"{rate(r['packet_hops'], r['wall_seconds']):.3g}",
    }


def _flow_cells(r: dict) -> dict[str, str]:
    """The summary figures of a flow-model result: no latency, no packets."""
    return {
        "offered": _num(r["offered_load"], ".4g"),
        "status": r["status"],
        "accepted": _num(r["accepted_load"], ".4g"),
        "std": "-",
        "saturated": "yes" if r["saturated"] else "no",
        "latency_mean": "-",
        "latency_p99": "-",
        "packet-hops/s": "-",
    }


def format_flow(r: dict) -> str:
    """A few lines about a flow-model run of independent traffic."""
    links = r["link_loads"]
    return "\n".join([
        f"{r['topology']}, flow model, paths {r['routing']}, seed {r['seed']}",
        f"flows             {len(r['flows'])} ({r['pattern']})",
        f"offered load      {r['offered_load']:.4g} of the link bandwidth per source",
        f"accepted load     {r['accepted_load']:.4g} ({r['accepted_bandwidth']:.4g} {r['bandwidth_unit']} per source)",
        f"flow rates        min {r['flow_rate']['min']:.4g}, mean {r['flow_rate']['mean']:.4g}, max {r['flow_rate']['max']:.4g}",
        f"link load         mean {links['load']['mean']:.4g}, max {links['load']['max']:.4g}; "
        f"up to {links['max_flows_per_link']} flows per link",
        f"time              {r['wall_seconds']:.3g} s",
    ])  # fmt: skip


def format_summary(r: dict) -> str:
    """A few lines about one result dict: status, loads, saturation, latency, speed."""
    c = _cells(r)
    # Loads are per terminal: a node's NIC port on one plane of a multi-plane network.
    unit = "phits/cycle/port" if _planes(r.get("topology", "")) > 1 else "phits/cycle/node"
    lines = [
        result_title(r),
        f"status            {c['status']}" + (f" ({r['message']})" if c["status"] != "converged" else ""),
        f"offered load      {c['offered']} {unit}",
    ]
    lines += format_blocked(r)
    if r["status"] == "partial" and r.get("accepted_load") is not None:
        lines.append(f"accepted load     {_num(r['accepted_load'], '.4g')} {unit} (partial)")
    if r["status"] == "converged":
        lines += [
            f"accepted load     {c['accepted']} ± {c['std']} {unit}",
            f"saturated         {c['saturated']}",
            f"network latency   mean {c['latency_mean']}, p99 {c['latency_p99']} cycles",
        ]
        lines += _physical_lines(r)
    if r.get("routed_throughput") is not None:
        ideal, routed = r["ideal_throughput"], r["routed_throughput"]
        bound = "not computed" if ideal is None else f"{ideal:.4g}"
        lines.append(f"uniform bound     {routed:.4g} along the tables' paths (any routing: {bound})")
    lines.append(f"speed             {c['packet-hops/s']} packet-hops/s ({r['cycles']} cycles)")
    return "\n".join(lines)


def format_execution(r: dict) -> str:
    """A few lines about a causal workload's result: status, execution time, messages, speed."""
    from ..simulation import rate

    vcs = f"{r['vcs']} VC" + ("" if r["vcs"] == 1 else "s")
    lines = [
        f"{r['topology']}, routing {r['routing']}, {vcs}, seed {r['seed']}: {r['kernel']} on {r['tasks']} tasks",
        f"status            {r['status']}" + (f" ({r['message']})" if r["status"] != "completed" else ""),
    ]
    if r["status"] == "completed":
        m = r["message_latency"]
        latency = f" (latency mean {m['mean']:.1f}, p99 {m['p99']:.0f} cycles)" if m["count"] else ""
        lines += [
            f"execution time    {r['execution_time_cycles']:,} cycles",
            f"messages          {r['messages']}{latency}",
        ]
        lines += _physical_lines(r)
    if r.get("replay"):
        lines += _replay_lines(r["replay"])
    for i, j in enumerate(r.get("jobs", [])):
        t = j["execution_time_cycles"]
        took = f"{t:,} cycles" if t is not None else "unfinished"
        lines.append(f"job {i:<13} {j['kernel']} on {j['tasks']} tasks: {took}")
    lines += format_blocked(r)
    lines.append(f"speed             {rate(r['packet_hops'], r['wall_seconds']):.3g} packet-hops/s ({r['cycles']} cycles)")
    return "\n".join(lines)


def _physical_lines(r: dict) -> list[str]:
    """The result in physical units, when the result carries its clock."""
    from ..units import format_rate, format_time

    if "cycle_ns" not in r:
        return []
    ns = r["cycle_ns"]
    out = [f"clock             {format_time(ns)} per cycle, links {format_rate(r['link_bandwidth_mb_s'] * 1e6)}"]
    if r.get("execution_time_us") is not None:
        mean = r.get("message_latency_mean_us")
        extra = f", message latency mean {format_time(mean * 1e3)}" if mean is not None else ""
        out.append(f"in time           {format_time(r['execution_time_us'] * 1e3)}{extra}")
    if r.get("accepted_mb_s_per_node") is not None:
        lat = r.get("latency_network_mean_ns")
        extra = f", network latency mean {format_time(lat)}" if lat is not None else ""
        accepted = r["accepted_mb_s_per_node"] * 1e6
        planes = _planes(r.get("topology", ""))
        if planes > 1:
            # Loads are per terminal, and a node of a multi-plane network has a terminal (NIC
            # port) on every plane: the node receives the sum of its ports.
            out.append(f"in bandwidth      {format_rate(accepted)} per NIC port accepted ({planes} planes: "
                       f"{format_rate(accepted * planes)} per node){extra}")  # fmt: skip
        else:
            out.append(f"in bandwidth      {format_rate(accepted)} per node accepted{extra}")
    if r.get("accepted_pct_host") is not None:
        host = format_rate(r["host_bandwidth_mb_s"] * 1e6)
        pct = f"{r['offered_pct_host']:.4g} % offered, {r['accepted_pct_host']:.4g} % accepted"
        out.append(f"of host bandwidth {pct} ({host})")
    return out


def _planes(spec: str) -> int:
    """The planes of a topology spec (``SPEC|planes:N``, its stages in any order): 1 without."""
    for stage in spec.split("|")[1:]:
        name, _, value = stage.partition(":")
        if name.strip() == "planes":
            try:
                return int(value)
            except ValueError:
                return 1
    return 1


def _replay_lines(rp: dict) -> list[str]:
    """Per-rank summary of a trace or program replay: wait and communication time."""
    n = len(rp["finish_cycles"])
    if n == 0:
        return []
    wait, comm = rp["wait_cycles"], rp["communication_cycles"]
    worst = max(range(n), key=lambda i: wait[i])
    bins = rp["latency_histogram"]
    hist = ", ".join(f"<{2 ** (k + 1)}: {c}" for k, c in enumerate(bins) if c)
    return [
        f"wait time         mean {sum(wait) / n:.1f}, max {wait[worst]} cycles (rank {worst})",
        f"communication     mean {sum(comm) / n:.1f} cycles per rank (program end minus compute)",
        f"latency bins      {hist or '-'}",
    ]


def format_blocked(r: dict) -> list[str]:
    """The deadlock evidence of a result: one line per blocked channel of the cycle."""
    cycle = r.get("blocked_channels") or []
    if not cycle:
        return []
    if r.get("blocked_cycle"):
        head = f"blocked channels  a cycle of {len(cycle)} input queues, each waiting for the next (the last for the first):"
    else:
        head = f"blocked channels  no cycle; {len(cycle)} input queues whose front packet waits for room:"
    lines = [head]
    for b in cycle:
        lines.append(f"  switch {b['switch']} port {b['port']} VC {b['vc']}: packet {b['packet']} "
                     f"({b['src']} -> {b['dst']}, {b['queued_packets']} queued) waits on output port "
                     f"{b['waits_on_port']} (needs {b['need_phits']} phits, has {b['room_phits']} of "
                     f"{b['capacity_phits']})")  # fmt: skip
    return lines


def format_curve(results: list[dict]) -> str:
    """A table of a load curve, one row per offered load."""
    cols = list(_cells(results[0]))
    rows = [cols, *([_cells(r)[c] for c in cols] for r in results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(cols))]
    lines = [result_title(results[0])]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)
