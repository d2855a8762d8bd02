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
