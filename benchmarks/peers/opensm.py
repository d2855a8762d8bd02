#!/usr/bin/env python3
"""OpenSM itself on simulated fabrics, against hpcnetsim's table engines.

Every fabric is exported with ``Topology.export("ibnet")`` (switches ``S<index>``, hosts
``H<index>``, InfiniBand ports = hpcnetsim ports + 1), loaded into ``ibsim`` and routed once by
Debian's ``opensm`` through ``libumad2sim`` (``opensm --once -R ENGINE``). OpenSM's
``opensm-lfts.dump`` and the lanes its DFSSSP needed ("Virtual Lanes needed: N" in its log)
are kept, per fabric and engine, in ``OUT/<fabric>-<engine>.json.gz`` (host-destination
entries only), and ``OUT/summary.json`` compares them with hpcnetsim's tables for the same
spec: next hops per (switch, destination host) matched by name, path lengths, routes per
switch-to-switch channel and lanes. ``tests/test_opensm_peer.py`` re-checks the stored tables.

Needs the Debian packages ``opensm``, ``ibsim-utils`` and ``libumad2sim0`` (not project
dependencies): ``apt-get install opensm ibsim-utils``. See benchmarks/peers/README.md.

    python benchmarks/peers/opensm.py [--fabric NAME ...] [--out tests/data/opensm]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
S0_GUID = 0x200000  # ibsim's first switch GUID (sim_net.c)

# name -> (spec, engines). The paper-001 plane is generated (hpcnetsim.inputs.fabrics), not a spec.
FABRICS: dict[str, tuple[str, list[str]]] = {
    "torus-4x4": ("torus:4x4,t=2", ["minhop", "sssp", "dfsssp", "updn"]),
    "tree-4-3": ("tree:k=4,n=3", ["minhop", "sssp", "dfsssp", "updn", "ftree"]),
    "hyperx-12x8": ("hyperx:12x8,t=7", ["minhop", "sssp", "dfsssp", "updn"]),
    "hyperx-12x8-f15": ("hyperx:12x8,t=7|faults:random=15,seed=1", ["minhop", "sssp", "dfsssp", "updn"]),
    "paper001-fattree": ("fabric:paper001-fattree", ["minhop", "sssp", "dfsssp", "updn", "ftree"]),
    # Paper 000's 4:2-ary 3-thin-tree, and an XGFT whose leaves have more up-links (4) than
    # terminals (2): ftree uses only two of them per leaf, as OpenSM does.
    "thintree-4-2-3": ("tree:k=4,kp=2,n=3", ["minhop", "ftree"]),
    "xgft-2-4-4-w1-4-2": ("xgft:h=3;m=2,4,4;w=1,4,2", ["minhop", "ftree"]),
    # The plane with the paper's count of failed links (197) at seeded random places.
    "paper001-fattree-f197": (
        "director-tree:nodes=672,edges=48,directors=6|faults:random=197,seed=1",
        ["ftree", "minhop"],
    ),
}


def is_tree(spec: str) -> bool:
    """Trees: both OpenSM and hpcnetsim find the Up*/Down* roots themselves (the top switches)."""
    return spec.startswith(("tree:", "xgft:", "fabric:paper001", "director-tree:"))


# Extra DFSSSP-only runs: the faulty HyperX under other fault draws (lanes only).
FAULT_SEEDS = range(1, 11)


def resolve_spec(spec: str, workdir: Path) -> str:
    """`fabric:NAME` -> an `edges:` spec of the generated fabric file in `workdir`."""
    if not spec.startswith("fabric:"):
        return spec
    from hpcnetsim.inputs import fabrics

    name = spec.split(":", 1)[1]
    path = workdir / f"{name}.edges"
    if not path.exists():
        path.write_text(fabrics.generate(name))
    return f"edges:{path}"


def export_net(spec: str) -> str:
    from hpcnetsim import Topology

    return Topology.from_spec(spec).export("ibnet")


# --------------------------------------------------------------------------- parsing


def parse_net(text: str) -> dict:
    """Switches and hosts of an ibnet text, in file order, and the port graph by name."""
    switches: list[str] = []
    hosts: list[str] = []
    links: dict[str, dict[int, tuple[str, int]]] = {}
    node = None
    for line in text.splitlines():
        m = re.match(r'^(Switch|Ca|Hca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node = m.group(2)
            (switches if m.group(1) == "Switch" else hosts).append(node)
            links[node] = {}
            continue
        m = re.match(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        if m and node is not None:
            links[node][int(m.group(1))] = (m.group(2), int(m.group(3)))
    return {"switches": switches, "hosts": hosts, "links": links}


def parse_opensm_lfts(text: str, hosts: list[str]) -> dict[str, list[int]]:
    """opensm-lfts.dump -> {switch name: [port towards each host, -1 if none]}."""
    index = {h: i for i, h in enumerate(hosts)}
    lft: dict[str, list[int]] = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^Unicast lids .* of switch .*\('([^']+)'\):", line)
        if m:
            cur = lft.setdefault(m.group(1), [-1] * len(hosts))
            continue
        m = re.match(r"^0x[0-9a-fA-F]+\s+(\d+)\s+#\s+Channel Adapter portguid \S+: '([^']+)'", line)
        if m and cur is not None and m.group(2) in index:
            cur[index[m.group(2)]] = int(m.group(1))
    return lft


def parse_opensm_fabric(text: str, net: dict) -> dict:
    """opensm-lfts.dump, every destination (switches too) -> the fabric as OpenSM's DFSSSP
    sees it (see opensm_layers.channel_paths): switches in GUID order (OpenSM's switch table),
    then stably sorted by attached hosts, descending (sw_list_sort_by_num_hca); the hosts of
    each switch by port, then the switches' management ports."""
    guid: dict[str, int] = {}
    lid: dict[str, int] = {}
    lft: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^Unicast lids .* of switch Lid (\d+) guid (0x[0-9a-fA-F]+) \('([^']+)'\):", line)
        if m:
            cur = lft.setdefault(m.group(3), {})
            lid[m.group(3)], guid[m.group(3)] = int(m.group(1)), int(m.group(2), 16)
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)\s+(\d+)\s+#.*: '([^']+)'", line)
        if m and cur is not None:
            cur[m.group(3)] = int(m.group(2))
            lid.setdefault(m.group(3), int(m.group(1), 16))
    return dfsssp_fabric(sorted(guid, key=lambda s: guid[s]), lid, lft, net)


def dfsssp_fabric(by_guid: list[str], lid: dict[str, int], lft: dict[str, dict[str, int]], net: dict) -> dict:
    """The fabric in the shape opensm_layers.channel_paths takes, from the switches in GUID
    order, every port's LID and the tables (switch -> {destination name: port})."""
    links, hosts = net["links"], set(net["hosts"])
    switches = sorted(by_guid, key=lambda s: -sum(peer in hosts for peer, _ in links[s].values()))
    order = [links[s][p][0] for s in switches for p in sorted(links[s]) if links[s][p][0] in hosts]
    return {
        "switches": switches,
        "by_guid": by_guid,
        "lid": lid,
        "order": order + switches,
        "links": links,
        "lft": lft,
    }


def stored_fabric(data: dict, net: dict, lft: dict[str, list[int]] | None = None) -> dict:
    """The DFSSSP fabric kept in a stored table file; `lft` (host destinations, as from
    parse_our_dump) replaces OpenSM's tables, the switch destinations then being left out."""
    by_guid, hosts = data["switch_guid_order"], data["hosts"]
    tables = lft or data["lft"]
    full = {sw: {h: tables[sw][i] for i, h in enumerate(hosts)} for sw in by_guid}
    if lft is None:
        for sw in by_guid:
            full[sw].update(zip(by_guid, data["switch_lft"][sw]))
    return dfsssp_fabric(by_guid, data["lids"], full, net)


def our_fabric(osm_fabric: dict, lft: dict[str, list[int]], net: dict) -> dict:
    """hpcnetsim's tables (host destinations) in OpenSM's switch and port order."""
    tables = {sw: {h: lft[sw][i] for i, h in enumerate(net["hosts"])} for sw in osm_fabric["by_guid"]}
    return dfsssp_fabric(osm_fabric["by_guid"], osm_fabric["lid"], tables, net)


def layering_variants(osm_fabric: dict, ours_fabric: dict) -> dict:
    """Lanes and paths per lane under OpenSM's layering (opensm_layers.layers) for OpenSM's
    routes between all end ports (what OpenSM does), between hosts only, and for hpcnetsim's
    routes between hosts."""
    from opensm_layers import channel_paths, layers

    out = {}
    for name, fab, switches in (
        ("opensm_routes_all_ports", osm_fabric, True),
        ("opensm_routes_hosts", osm_fabric, False),
        ("our_routes_hosts", ours_fabric, False),
    ):
        needed, per_vl = layers(channel_paths(fab, switches))
        out[name] = {"vls": needed, "paths_per_vl": per_vl}
    return out


def parse_our_dump(text: str, net: dict) -> dict[str, list[int]]:
    """hpcnetsim's table dump (lmc 0) -> the same shape, ports renumbered from 1 as exported."""
    hosts, switches = net["hosts"], net["switches"]
    lft: dict[str, list[int]] = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^Unicast lids .* of switch (\d+):", line)
        if m:
            cur = lft.setdefault(switches[int(m.group(1))], [-1] * len(hosts))
            continue
        m = re.match(r"^0x[0-9a-fA-F]+\s+(\d+)\s*:\s*\(terminal (\d+) offset 0\)", line)
        if m and cur is not None:
            cur[int(m.group(2))] = int(m.group(1)) + 1
    return lft


def parse_opensm_log(text: str) -> dict:
    out: dict = {"configured": None, "vls_needed": None, "paths_per_vl": []}
    m = re.search(r"(\S+) tables configured on all switches", text)
    if m:
        out["configured"] = m.group(1)
    m = re.search(r"Virtual Lanes needed: (\d+)", text)
    if m:
        out["vls_needed"] = int(m.group(1))
        block = text.split("Paths per VL (before balancing):", 1)[1]
        block = block.split("Approx. #paths per VL", 1)[0]
        out["paths_per_vl"] = [int(x) for x in re.findall(r"\d+\. lane: (\d+)", block)]
    return out


# --------------------------------------------------------------------------- comparison


def destination_tree(net: dict, lft: dict[str, list[int]], d: int) -> tuple[dict, dict]:
    """Links from every switch to host `d` under the tables (None: no route, a loop or another
    host reached) and each switch's next (switch, port) towards it."""
    hosts, links = net["hosts"], net["links"]
    dst, host_set = hosts[d], set(hosts)
    hops: dict[str, int | None] = {}
    nxt: dict[str, tuple[str, int]] = {}
    for start in net["switches"]:
        trail, sw = [], start
        while sw not in hops:
            if sw in trail:  # a loop: no switch on it delivers
                break
            trail.append(sw)
            port = lft.get(sw, [-1] * len(hosts))[d]
            peer = links[sw].get(port)
            if peer is None or (peer[0] in host_set and peer[0] != dst):
                hops[sw] = None
            elif peer[0] == dst:
                hops[sw] = 0
            else:
                nxt[sw] = (peer[0], port)
                sw = peer[0]
        for t in reversed(trail):
            if t not in hops:
                h = hops.get(nxt[t][0])
                hops[t] = None if h is None else h + 1
    return hops, nxt


def walk(net: dict, lft: dict[str, list[int]]) -> dict:
    """Follows the tables for every ordered pair of distinct hosts: hop counts (switch-to-switch
    links), routes per switch-to-switch channel and unreachable or looping pairs. Tables are
    per destination, so each destination's routes form a tree over the switches, walked once."""
    hosts, links, switches = net["hosts"], net["links"], net["switches"]
    index = {h: i for i, h in enumerate(hosts)}
    home = {h: links[h][1][0] for h in hosts}
    attached = Counter(home.values())
    hist: Counter = Counter()
    load: Counter = Counter()
    bad = 0
    for d, dst in enumerate(hosts):
        hops, nxt = destination_tree(net, lft, d)
        carry: Counter = Counter()
        for sw in switches:
            n = attached[sw] - (home[dst] == sw)
            if n == 0:
                continue
            h = hops[sw]
            if h is None:
                bad += n
            else:
                hist[h] += n
                carry[sw] += n
        for sw in sorted((x for x in hops if hops[x]), key=lambda x: -hops[x]):
            if carry[sw]:
                up, port = nxt[sw]
                load[(sw, port)] += carry[sw]
                carry[up] += carry[sw]
    channels = sum(1 for s in switches for p in links[s].values() if p[0] not in index)
    routed = sum(hist.values())
    return {
        "paths": routed,
        "unreachable_pairs": bad,
        "hops_histogram": {str(k): v for k, v in sorted(hist.items())},
        "mean_hops": sum(k * v for k, v in hist.items()) / max(routed, 1),
        "max_routes_per_link": max(load.values(), default=0),
        "mean_routes_per_link": sum(load.values()) / max(channels, 1),
    }


def next_hop_agreement(net: dict, a: dict[str, list[int]], b: dict[str, list[int]]) -> float:
    """Share of identical output ports over (switch, host) pairs where the host is not attached
    to the switch (those entries are forced) and both tables have a route."""
    same = total = 0
    links = net["links"]
    for sw in net["switches"]:
        attached = {peer for peer, _ in links[sw].values()}
        for d, host in enumerate(net["hosts"]):
            if host in attached:
                continue
            pa, pb = a.get(sw, [])[d], b.get(sw, [])[d]
            if pa < 0 or pb < 0:
                continue
            total += 1
            same += pa == pb
    return same / max(total, 1)


def ours(spec: str, engine: str, net: dict, root_s0: bool = False) -> tuple[dict, dict[str, list[int]]]:
    from hpcnetsim import route

    report = route(spec, engine, dump=True, roots=[0] if root_s0 else None)
    return report, parse_our_dump(report.pop("dump"), net)


def compare(spec: str, engine: str, net: dict, osm: dict, root_s0: bool = False) -> dict:
    report, our_lft = ours(spec, engine, net, root_s0)
    return {
        "opensm": walk(net, osm["lft"])
        | {"vls": osm["log"]["vls_needed"], "engine": osm["log"]["configured"]},
        "hpcnetsim": walk(net, our_lft) | {"vls": report["vls_used"] if engine == "dfsssp" else None},
        "next_hop_agreement": next_hop_agreement(net, osm["lft"], our_lft),
    }


# --------------------------------------------------------------------------- running OpenSM


def _ibsim_ready(pid: int) -> bool:
    try:
        return ":ctl" in Path("/proc/net/unix").read_text()
    except OSError:
        return False


def run_opensm(net_text: str, engine: str, workdir: Path, root_s0: bool = False) -> dict:
    """Starts ibsim on the fabric, runs OpenSM once with `engine`, stops ibsim (by its pid).
    `root_s0`: Up*/Down* rooted at switch S0 (ibsim gives the first switch of the file the GUID
    0x200000; checked against OpenSM's dump)."""
    for tool in ("ibsim", "opensm"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool}: not found; install it with 'apt-get install opensm ibsim-utils'")
    run = workdir / engine
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    (run / "fabric.net").write_text(net_text)
    sim_log = open(run / "ibsim.log", "w")
    sim = subprocess.Popen(
        [
            "ibsim",
            "-s",
            "-n",
            "-N",
            "4096",
            "-S",
            "1024",
            "-P",
            str(1024 * 48 + 4096 * 2),
            str(run / "fabric.net"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=sim_log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(200):
            if _ibsim_ready(sim.pid) or sim.poll() is not None:
                break
            time.sleep(0.05)
        if sim.poll() is not None:
            raise RuntimeError(f"ibsim exited: see {run / 'ibsim.log'}")
        env = dict(os.environ, LD_PRELOAD=UMAD2SIM, OSM_CACHE_DIR=str(run))
        roots = []
        if root_s0:
            (run / "roots.txt").write_text(f"{S0_GUID:#018x}\n")
            roots = ["-a", str(run / "roots.txt")]
        started = time.time()
        subprocess.run(
            [
                "opensm",
                "--once",
                "-r",
                "-R",
                engine,
                "-D",
                "0x43",
                "--dump_files_dir",
                str(run),
                "-f",
                str(run / "opensm.log"),
                *roots,
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            timeout=1800,
            check=True,
        )
        seconds = time.time() - started
    finally:
        sim.terminate()
        sim.wait()
        sim_log.close()
    net = parse_net(net_text)
    log = parse_opensm_log((run / "opensm.log").read_text())
    dump = (run / "opensm-lfts.dump").read_text()
    if root_s0 and f"guid {S0_GUID:#018x} ('{net['switches'][0]}')" not in dump:
        raise RuntimeError(f"switch {net['switches'][0]} did not get GUID {S0_GUID:#x} in ibsim")
    lft = parse_opensm_lfts(dump, net["hosts"])
    return {"lft": lft, "log": log, "seconds": round(seconds, 1), "fabric": parse_opensm_fabric(dump, net)}


def opensm_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "opensm"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def save_tables(path: Path, fabric: str, spec: str, engine: str, net: dict, osm: dict, root_s0: bool) -> None:
    data = {
        "roots": [net["switches"][0]] if root_s0 else "OpenSM's own choice",
        "fabric": fabric,
        "spec": spec,
        "engine": engine,
        "opensm": opensm_version(),
        "configured": osm["log"]["configured"],
        "vls_needed": osm["log"]["vls_needed"],
        "paths_per_vl": osm["log"]["paths_per_vl"],
        "hosts": net["hosts"],
        "lft": osm["lft"],
    }
    if engine == "dfsssp":  # what opensm_layers needs to replay OpenSM's layering
        fab = osm["fabric"]
        data["switch_guid_order"] = fab["by_guid"]
        data["lids"] = fab["lid"]
        data["switch_lft"] = {sw: [fab["lft"][sw][t] for t in fab["by_guid"]] for sw in fab["by_guid"]}
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(json.dumps(data, separators=(",", ":"), sort_keys=True).encode())


def load_tables(path: Path) -> dict:
    with gzip.open(path, "rt") as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fabric", action="append", choices=sorted(FABRICS), help="default: all")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "tests/data/opensm")
    ap.add_argument(
        "--seeds", action="store_true", help="also DFSSSP lanes on the faulty HyperX, fault seeds 1-10"
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    summary_path = args.out / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    with tempfile.TemporaryDirectory(prefix="hpcnetsim-opensm-") as tmp:
        work = Path(tmp)
        for fabric in args.fabric or list(FABRICS):
            spec, engines = FABRICS[fabric]
            real = resolve_spec(spec, work)
            text = export_net(real)
            net = parse_net(text)
            for engine in engines:
                root_s0 = engine == "updn" and not is_tree(spec)
                osm = run_opensm(text, engine, work / fabric, root_s0)
                save_tables(args.out / f"{fabric}-{engine}.json.gz", fabric, spec, engine, net, osm, root_s0)
                row = compare(real, engine, net, osm, root_s0) | {
                    "spec": spec,
                    "opensm_seconds": osm["seconds"],
                }
                if engine == "dfsssp":
                    mine = our_fabric(osm["fabric"], ours(real, engine, net)[1], net)
                    row["opensm_layering"] = layering_variants(osm["fabric"], mine)
                    if (
                        row["opensm_layering"]["opensm_routes_all_ports"]["paths_per_vl"]
                        != osm["log"]["paths_per_vl"]
                    ):
                        raise RuntimeError(
                            f"{fabric}: the replay of OpenSM's layering does not match its log"
                        )
                summary.setdefault(fabric, {})[engine] = row
                o, h = row["opensm"], row["hpcnetsim"]
                print(
                    f"{fabric:18} {engine:7} opensm[{o['engine']}] hops {o['mean_hops']:.3f} max/mean "
                    f"{o['max_routes_per_link']}/{o['mean_routes_per_link']:.1f} vls {o['vls']} | ours hops "
                    f"{h['mean_hops']:.3f} max/mean {h['max_routes_per_link']}/{h['mean_routes_per_link']:.1f} "
                    f"vls {h['vls']} | same next hop {row['next_hop_agreement']:.3f} ({osm['seconds']} s)",
                    flush=True,
                )
        if args.seeds:
            from hpcnetsim import route

            lanes = {}
            for seed in FAULT_SEEDS:
                spec = f"hyperx:12x8,t=7|faults:random=15,seed={seed}"
                text = export_net(spec)
                net = parse_net(text)
                osm = run_opensm(text, "dfsssp", work / f"seed{seed}")
                mine = our_fabric(osm["fabric"], ours(spec, "dfsssp", net)[1], net)
                variants = layering_variants(osm["fabric"], mine)
                lanes[str(seed)] = {
                    "opensm": osm["log"]["vls_needed"],
                    "opensm_paths_per_vl": osm["log"]["paths_per_vl"],
                    "hpcnetsim": route(spec, "dfsssp")["vls_used"],
                } | {k: v["vls"] for k, v in variants.items()}
                if variants["opensm_routes_all_ports"]["paths_per_vl"] != osm["log"]["paths_per_vl"]:
                    raise RuntimeError(f"seed {seed}: the replay of OpenSM's layering does not match its log")
                print(f"faults seed {seed}: dfsssp lanes {lanes[str(seed)]}", flush=True)
            summary["dfsssp_lanes_by_fault_seed"] = lanes
    summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
