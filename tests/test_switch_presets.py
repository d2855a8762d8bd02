"""Switch presets from Python: a preset set by an override on a config read from a file fills
in the switch fields, keeping those the file chose; bad values name the field."""

import pytest

import hpcnetsim
from hpcnetsim.canonical import canonical_config


def test_preset_override_on_a_file_config(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('topology = "crossbar:8"\n[switch]\nqueue_packets = 8\n')
    config = hpcnetsim.apply_overrides(hpcnetsim.load_config(path), ["switch.preset=extoll"])
    switch = canonical_config(config)["switch"]
    assert (switch["preset"], switch["buffers"], switch["arbitration"]) == ("extoll", "voq", "islip")
    assert switch["queue_packets"] == 8  # chosen by the file, kept
    back = canonical_config(hpcnetsim.apply_overrides(config, ["switch.preset=insee"]))["switch"]
    # Default fields are left out of canonical configs.
    assert ("buffers" in back, back["arbitration"], back["queue_packets"]) == (False, "random", 8)


def test_bad_switch_settings_name_the_field():
    with pytest.raises(hpcnetsim.ConfigError, match="switch.islip_iterations"):
        canonical_config({"topology": "crossbar:4", "switch": {"preset": "extoll", "islip_iterations": 0}})
    with pytest.raises(hpcnetsim.ConfigError, match="preset = 'nope'"):
        canonical_config({"topology": "crossbar:4", "switch": {"preset": "nope"}})


def test_extoll_crossbar_runs_a_workload():
    r = hpcnetsim.execute({"topology": "crossbar:8", "switch": {"preset": "extoll"},
                           "workload": {"kernel": "bu", "message_bytes": 100, "packet_cells_min": 1,
                                        "packet_cells_max": 4}})  # fmt: skip
    assert r.status == "completed"
    again = hpcnetsim.execute({"topology": "crossbar:8", "switch": {"preset": "extoll"},
                               "workload": {"kernel": "bu", "message_bytes": 100, "packet_cells_min": 1,
                                            "packet_cells_max": 4}})  # fmt: skip
    assert again.execution_time_cycles == r.execution_time_cycles


def test_elite_wormhole_tree_runs_a_workload_and_switches_back(tmp_path):
    cfg = {"topology": "tree:k=4,n=2", "switch": {"preset": "elite"},
           "workload": {"kernel": "bu", "message_bytes": 1000}}  # fmt: skip
    switch = canonical_config(cfg)["switch"]
    assert (switch["switching"], switch["buffer_flits"], switch["vcs"]) == ("wormhole", 64, 2)
    r = hpcnetsim.execute(cfg)
    assert r.status == "completed"
    assert hpcnetsim.execute(cfg).execution_time_cycles == r.execution_time_cycles
    # Back to the cut-through preset: buffer_flits, which only wormhole uses, goes with it.
    path = tmp_path / "c.toml"
    path.write_text('topology = "tree:k=4,n=2"\n[switch]\npreset = "elite"\n')
    back = canonical_config(hpcnetsim.apply_overrides(hpcnetsim.load_config(path), ["switch.preset=insee"]))
    assert "buffer_flits" not in back["switch"] and "switching" not in back["switch"]
    with pytest.raises(hpcnetsim.ConfigError, match="switch.buffer_flits"):
        canonical_config({"topology": "tree:k=4,n=2", "switch": {"preset": "elite", "switching": "cut-through"}})
