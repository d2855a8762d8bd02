"""The Elan3 host path of the qsnet preset against paper 004 §5, and the experiments behind
the rows it does not reproduce (python/hpcnetsim/published/004.toml names them):

- N½ (§5.3): a per-message cost that does not overlap the message's own bytes puts a floor
  under N½, and the paper's own 64-byte latencies and peaks put that floor above 512 B;
- bidirectional Elan to Elan (§5.4): the network loses nothing when both directions run, and
  even a whole header-only packet of link-level acknowledgement per data packet leaves the
  links above 270 MB/s each way;
- total exchange of small messages (§5.7): ours is the host's software overheads up to 128 B
  and the PCI bus at 256 B; the paper's constant 20 µs is more than that at every size.
"""

import pytest

from hpcnetsim.studies import netbench as nb

QSNET = {"topology": "tree:k=4,n=2", "technology": "qsnet", "seed": 1}
SIZES = [0, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536, 262144]


def _mapped(buffers: str, **nic) -> dict:
    return {**QSNET, "nic": {"source_buffer": buffers, "destination_buffer": buffers, **nic}}


def n_half_floor(peak_mb_s: float, latency_64_us: float, marginal_mb_s: float) -> float:
    """The smallest N½ (bytes) of a ping whose time is at least t(64 B) plus the bytes beyond 64
    at `marginal_mb_s` (the fastest rate extra bytes can go: the link, or the PCI read): the
    size S with S / (t64 + (S − 64) / marginal) = peak / 2."""
    half = peak_mb_s / 2
    return half * (latency_64_us - 64 / marginal_mb_s) / (1 - half / marginal_mb_s)


def _ping(cfg):
    f = nb.ping(cfg, SIZES, 0, 1)
    at64 = float(f.loc[f["size_bytes"] == 64, "latency_us"].iloc[0])
    at0 = float(f.loc[f["size_bytes"] == 0, "latency_us"].iloc[0])
    return nb.half_power_point(f), float(f["bandwidth_mb_s"].max()), at64, at0


def test_n_half_is_set_by_the_per_message_cost():
    # The model: its N½ respects the floor its own latency and peak set (Elan: the 400 MB/s
    # link is the fastest extra bytes go; main memory: the 200 MB/s PCI read).
    for buffers, marginal in (("nic", 400.0), ("host", 200.0)):
        n_half, peak, t64, _ = _ping(_mapped(buffers))
        assert n_half >= n_half_floor(peak, t64, marginal), (buffers, n_half, peak, t64)
    # The paper's own figures (§5.3: 2.4 µs and 335 MB/s Elan to Elan, 3.7 µs and 200 MB/s main
    # to main) put the floor at 645 and 676 B: above 512 B by more than the 10 % tolerance.
    assert n_half_floor(335, 2.4, 400) == pytest.approx(645.5, abs=1)
    assert n_half_floor(200, 3.7, 200) == pytest.approx(676, abs=1)
    assert min(n_half_floor(335, 2.4, 400), n_half_floor(200, 3.7, 200)) > 1.1 * 512
    # What N½ = 512 B takes: about 0.55 µs of the per-message cost off the ping's critical path
    # (here taken from the receive overhead, as §4.7's bandwidth loop overlaps the completion
    # wait with the next put); the 0-byte latency then falls to about 1.6 µs, outside the 2.1 µs
    # row: the paper's latency and N½ cannot come from one serial ping.
    n_half, _, _, t0 = _ping(_mapped("nic", receive_overhead="0.35 us"))
    assert n_half == pytest.approx(512, rel=0.1), n_half
    assert t0 < 0.9 * 2.1, t0


def test_bidirectional_elan_is_not_limited_by_the_network():
    sizes = [65536, 262144]
    uni = float(nb.ping(_mapped("nic"), sizes, 0, 1)["bandwidth_mb_s"].max())
    both = float(nb.bidirectional(_mapped("nic"), sizes, 0, 1)["bandwidth_mb_s"].max())
    # Full-duplex links, flow control out of band: both directions at the one-way peak.
    assert both == pytest.approx(uni, rel=0.01)
    # Every data packet acknowledged by a whole header-only packet (58 B) on the reverse link,
    # which in a symmetric exchange is the same load as 58 more bytes in every packet of the
    # other direction: 400 × 320 / (378 + 58) MB/s each way.
    acked = {**_mapped("nic", packet_overhead="116 B"), "traffic": {"packet_phits": 218}}
    with_acks = float(nb.bidirectional(acked, sizes, 0, 1)["bandwidth_mb_s"].max())
    assert with_acks == pytest.approx(400 * 320 / 436, rel=0.02)
    # Still above the paper's 270 MB/s by more than the tolerance: the rest of §5.4's loss is
    # inside the Elan (its DMA engine and inputter interleaved on one microcode processor and
    # internal data bus, §2.1.1), which the paper leaves to its performance counters.
    assert with_acks > 1.05 * 270


def test_main_memory_bidirectional_is_half_the_pci_bus():
    # §5.4: 140 MB/s each way; the bus moves data at its 275 MB/s burst-write rate (§5.3).
    both = float(nb.bidirectional(_mapped("host"), [262144], 0, 1)["bandwidth_mb_s"].max())
    assert both == pytest.approx(275 / 2, rel=0.02)
    strict = float(
        nb.bidirectional(_mapped("host", host_bus_bandwidth=""), [262144], 0, 1)["bandwidth_mb_s"].max()
    )
    assert strict == pytest.approx(1 / (1 / 200 + 1 / 275), rel=0.02)


def test_barrier_release_costs_one_thread_activation():
    with_thread = nb.barrier(QSNET, [2, 8])
    without = nb.barrier({**QSNET, "nic": {"thread_overhead": "0 ns"}}, [2, 8])
    delta = with_thread["hardware_broadcast_us"] - without["hardware_broadcast_us"]
    assert list(delta) == pytest.approx([2.0, 2.0])
    # The host-based barriers do not use the thread.
    assert list(with_thread["linear_us"]) == list(without["linear_us"])


def test_small_exchange_is_host_software():
    # §5.7's total exchange of 8 nodes as the study runs it (nonblocking linear alltoall).
    times = nb.exchange(QSNET, [16, 64, 128, 256], 8, algorithm="linear")["time_us"].tolist()
    # Up to 128 B: exactly seven send and seven receive overheads, the network and the PCI
    # bus hidden under them; the time does not depend on the size.
    assert times[:3] == pytest.approx([7 * (1.0 + 0.9)] * 3, abs=1e-9)
    # At 256 B each node moves 14 × 256 B through its one PCI bus (13 µs at 275 MB/s): without
    # any software overhead the exchange still takes longer than that, and with them it grows.
    bare = {**QSNET, "nic": {"send_overhead": "0 ns", "receive_overhead": "0 ns"}}
    pci_floor = 14 * 256 / 275
    bare_256 = float(nb.exchange(bare, [256], 8, algorithm="linear")["time_us"].iloc[0])
    assert pci_floor < bare_256 < times[3]
    # Buffers in Elan memory (no PCI): back to the software floor at 256 B.
    elan = {**QSNET, "nic": {"source_buffer": "nic", "destination_buffer": "nic"}}
    assert float(nb.exchange(elan, [256], 8, algorithm="linear")["time_us"].iloc[0]) == pytest.approx(13.3)
    # The paper's constant 20 µs is more than 10 % above that floor at every size up to
    # 256 B: per-exchange software (§5.7's "cost of synchronization"), not bytes or network.
    assert 20 > 1.1 * times[0]


def test_a_difference_that_rounds_to_zero_has_no_sign():
    # 274.8 MB/s against a published 275 was written "-0 %" in summary.md and report.html.
    from hpcnetsim.studies import quadrics

    study = {"published": [{"key": "a", "label": "a", "value": 275.0}, {"key": "b", "label": "b", "value": 100.0},
                           {"key": "c", "label": "c", "value": 100.0}]}  # fmt: skip
    table = quadrics.summary(study, {"a": 274.8, "b": 88.0, "c": 100.4})
    cells = [line.split("|")[5].strip() for line in quadrics.markdown(table).splitlines()[2:]]
    assert cells == ["0 %", "-12 %", "0 %"]
